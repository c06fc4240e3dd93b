# Cross-compiling for arm64 (aarch64) Linux with Debian's cross compiler and an arm64 Debian
# sysroot, the tests run under qemu-user (scripts/check-arm64.sh makes the sysroot and runs it all):
#   cmake -S . -B build/arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-arm64.cmake
# Sysroot: NFT_ARM64_SYSROOT (cache or environment), else build/arm64-sysroot. Compiler:
# aarch64-linux-gnu-g++ (Debian package g++-aarch64-linux-gnu). Emulator: qemu-aarch64-static
# (qemu-user-static) with the sysroot as its prefix; ctest and gtest_discover_tests use it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

if(NOT NFT_ARM64_SYSROOT)
  if(DEFINED ENV{NFT_ARM64_SYSROOT})
    set(NFT_ARM64_SYSROOT "$ENV{NFT_ARM64_SYSROOT}")
  else()
    get_filename_component(NFT_ARM64_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../build/arm64-sysroot" ABSOLUTE)
  endif()
endif()
set(NFT_ARM64_SYSROOT "${NFT_ARM64_SYSROOT}" CACHE PATH "arm64 Debian sysroot (scripts/check-arm64.sh makes one)")
if(NOT EXISTS "${NFT_ARM64_SYSROOT}/usr/include")
  message(FATAL_ERROR "no arm64 sysroot at ${NFT_ARM64_SYSROOT}: run scripts/check-arm64.sh (or set NFT_ARM64_SYSROOT)")
endif()
# try_compile() projects re-read this file: hand them the sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES NFT_ARM64_SYSROOT)

set(CMAKE_SYSROOT "${NFT_ARM64_SYSROOT}")
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The sysroot's libraries need each other at link time (OpenCV -> GDAL, VTK, BLAS, ...).
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,-rpath-link,${NFT_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,${NFT_ARM64_SYSROOT}/lib/aarch64-linux-gnu")

set(CMAKE_FIND_ROOT_PATH "${NFT_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # host tools: glslangValidator, xvfb-run
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# pkg-config (EGL, GLESv2): the sysroot's .pc files, their paths prefixed with the sysroot.
set(ENV{PKG_CONFIG_DIR} "")
set(ENV{PKG_CONFIG_LIBDIR}
    "${NFT_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${NFT_ARM64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${NFT_ARM64_SYSROOT}")

# Test programs run under qemu-user; the arm64 dynamic loader and libraries come from the
# sysroot (-L), found through LD_LIBRARY_PATH (no ld.so.cache there: nothing ran ldconfig).
# QEMU_LD_PREFIX in the guest's environment serves the arm64 programs a test starts in turn
# (nft_replay from the replay tests), which the kernel hands to qemu through binfmt_misc.
find_program(NFT_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${NFT_QEMU_AARCH64};-L;${NFT_ARM64_SYSROOT};-E;LD_LIBRARY_PATH=/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu;-E;QEMU_LD_PREFIX=${NFT_ARM64_SYSROOT}")
