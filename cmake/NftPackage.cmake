# Installation of libnft as a package an app builds against (included at the end of the top-level
# CMakeLists.txt). `cmake --install build/release --prefix /opt/nft` puts there:
#
#   lib/libnft.so.0.1.0, libnft.so.0.1, libnft.so (links)      the library (NFT_SHARED=OFF: lib/libnft.a)
#   include/nft/*.h                                            the public API (session/include/nft/)
#   include/nft/config/config.h, config_error.h                the configuration it takes
#   lib/cmake/nft/nftConfig.cmake, nftConfigVersion.cmake,     find_package(nft) -> nft::nft
#                 nftTargets.cmake, nftTargets-release.cmake
#   lib/pkgconfig/nft.pc                                       pkg-config --cflags --libs nft
#
# Nothing else: private headers (gpu/, detection/, tracker/, render/, session/*.h) stay in the
# source tree; every symbol an app needs is declared in the public headers.
# Install components: nft_runtime (the shared library and its SONAME link: what a program needs to
# run), nft_headers (the public headers; tests/package installs them alone) and nft_development
# (the rest an app's build needs). `cmake --install` without --component installs all three.
include(CMakePackageConfigHelpers)

set(NFT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/nft" CACHE STRING
    "Where nftConfig.cmake is installed, relative to the prefix")
set(NFT_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
    "Where nft.pc is installed, relative to the prefix")

# --- The library -----------------------------------------------------------------------------
install(TARGETS nft EXPORT nftTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT nft_runtime NAMELINK_COMPONENT nft_development
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT nft_development)

# --- The public headers ----------------------------------------------------------------------
# Every header in session/include/nft/ is public (a header there is installed without a list to
# update); config.h includes "config_error.h" beside it, and session.h includes "config/config.h"
# relative to itself, so both resolve in include/nft/ as in the source tree.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/session/include/nft/"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/nft" COMPONENT nft_headers
  FILES_MATCHING PATTERN "*.h")
install(FILES "${PROJECT_SOURCE_DIR}/config/config.h" "${PROJECT_SOURCE_DIR}/config/config_error.h"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/nft/config" COMPONENT nft_headers)

# --- CMake package: find_package(nft) --------------------------------------------------------
install(EXPORT nftTargets NAMESPACE nft:: FILE nftTargets.cmake
  DESTINATION "${NFT_INSTALL_CMAKEDIR}" COMPONENT nft_development)
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/nftConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/nftConfig.cmake"
  INSTALL_DESTINATION "${NFT_INSTALL_CMAKEDIR}")
# SameMinorVersion: while the major version is 0 the API and ABI may change with every minor
# release — the shared library's SOVERSION is MAJOR.MINOR (session/CMakeLists.txt) for the same
# reason —, so an app built for 0.1 must not be handed 0.2; patch releases (0.1.x) only fix
# bugs and stay compatible. At 1.0, SOVERSION becomes MAJOR and this SameMajorVersion.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/nftConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/package/nftConfig.cmake"
              "${PROJECT_BINARY_DIR}/package/nftConfigVersion.cmake"
  DESTINATION "${NFT_INSTALL_CMAKEDIR}" COMPONENT nft_development)

# --- pkg-config: nft.pc ----------------------------------------------------------------------
# The prefix is found from the .pc file's own place (${pcfiledir}), so the file is right
# wherever `cmake --install --prefix` puts the tree. The public headers need OpenCV (core);
# a static libnft also needs what the library uses inside.
foreach(dir IN ITEMS LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(NFT_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(NFT_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
file(RELATIVE_PATH NFT_PC_PREFIX_FROM_PCFILEDIR "/prefix/${NFT_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" NFT_PC_PREFIX_FROM_PCFILEDIR "${NFT_PC_PREFIX_FROM_PCFILEDIR}")
if(NFT_SHARED)
  # libnft.so records its own dependencies (DT_NEEDED): an app links -lnft and OpenCV only.
  set(NFT_PC_REQUIRES_PRIVATE "")
  set(NFT_PC_LIBS_PRIVATE "")
else()
  set(NFT_PC_REQUIRES_PRIVATE "\nRequires.private: yaml-cpp glfw3 zlib egl glesv2 eigen3")
  set(NFT_PC_LIBS_PRIVATE "\nLibs.private: -lstdc++ -lm")
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/nft.pc.in" "${PROJECT_BINARY_DIR}/package/nft.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/package/nft.pc"
  DESTINATION "${NFT_INSTALL_PKGCONFIGDIR}" COMPONENT nft_development)

# --- The recognition service's client: libnft-recognition.a (session/recognition/) ------------
# Component nft_recognition, apart from libnft's (libnft0 and libnft-dev gain no libcurl):
#   lib/libnft-recognition.a                  the client (static, position-independent)
#   include/nft/recognition.h                 its header (beside libnft's, which it includes)
#   lib/cmake/nft/nftRecognitionTargets*.cmake   find_package(nft COMPONENTS recognition)
#                                                -> nft::recognition (links nft::nft and libcurl)
#   lib/pkgconfig/nft-recognition.pc          pkg-config --cflags --libs nft-recognition
if(TARGET nft_recognition_lib)
  install(TARGETS nft_recognition_lib EXPORT nftRecognitionTargets
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT nft_recognition)
  install(FILES "${PROJECT_SOURCE_DIR}/session/recognition/include/nft/recognition.h"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/nft" COMPONENT nft_recognition)
  install(EXPORT nftRecognitionTargets NAMESPACE nft:: FILE nftRecognitionTargets.cmake
    DESTINATION "${NFT_INSTALL_CMAKEDIR}" COMPONENT nft_recognition)
  configure_file("${CMAKE_CURRENT_LIST_DIR}/nft-recognition.pc.in" "${PROJECT_BINARY_DIR}/package/nft-recognition.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/package/nft-recognition.pc"
    DESTINATION "${NFT_INSTALL_PKGCONFIGDIR}" COMPONENT nft_recognition)
endif()

# --- API reference (Doxygen): the nft_docs target and its test --------------------------------
include(NftDocs)

# --- Debian packages (CPack DEB): libnft0, libnft-dev, nft-tools, python3-nft ------------------
include(NftDebian)
