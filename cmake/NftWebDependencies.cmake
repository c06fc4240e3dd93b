# The third-party libraries of the web build (included by the top-level CMakeLists.txt when the
# toolchain is emscripten's). OpenCV, yaml-cpp and zlib come from the WebAssembly prefix that
# scripts/build-web-deps.sh builds from Debian's source packages (NFT_WEB_DEPS, passed by
# scripts/build-web.sh); Eigen is header-only and taken from Debian's libeigen3-dev. EGL and
# OpenGL ES 2.0 are emscripten's own (WebGL 1 underneath).
set(NFT_WEB_DEPS "" CACHE PATH "WebAssembly prefix of OpenCV, yaml-cpp and zlib (scripts/build-web-deps.sh)")
if(NOT NFT_WEB_DEPS OR NOT EXISTS "${NFT_WEB_DEPS}/stamp.txt")
  message(FATAL_ERROR "NFT_WEB_DEPS='${NFT_WEB_DEPS}' is not a complete web dependency prefix "
                      "(no stamp.txt): build it with scripts/build-web-deps.sh, or use scripts/build-web.sh")
endif()
# emscripten's toolchain searches its sysroot only; the prefix is a second root.
list(APPEND CMAKE_FIND_ROOT_PATH "${NFT_WEB_DEPS}")
set(ZLIB_ROOT "${NFT_WEB_DEPS}")

set(NFT_GLES_LIBS "-lEGL" "-lGL")
find_package(OpenCV 4 REQUIRED COMPONENTS core imgproc imgcodecs calib3d features2d
             PATHS "${NFT_WEB_DEPS}" NO_DEFAULT_PATH)
find_package(yaml-cpp REQUIRED PATHS "${NFT_WEB_DEPS}" NO_DEFAULT_PATH)
find_package(ZLIB REQUIRED)

# Eigen: headers only, so the host's are the same code (its CMake package would be searched for
# in the sysroot only).
find_path(NFT_EIGEN_INCLUDE_DIR Eigen/Core PATHS /usr/include/eigen3 NO_CMAKE_FIND_ROOT_PATH NO_DEFAULT_PATH)
if(NOT NFT_EIGEN_INCLUDE_DIR)
  message(FATAL_ERROR "Eigen's headers not found in /usr/include/eigen3: install libeigen3-dev (scripts/install-deps.sh)")
endif()
add_library(Eigen3::Eigen INTERFACE IMPORTED)
set_target_properties(Eigen3::Eigen PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${NFT_EIGEN_INCLUDE_DIR}")

# C++ exceptions carry every error of the library (nft::Error and the rest): on in every object.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
