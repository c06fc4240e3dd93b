# Debian packages of the install components, made by CPack's DEB generator (included at the end of
# cmake/NftPackage.cmake). From a build of the deb preset (prefix /usr, so that the library lands
# in Debian's multiarch folder and the Python module in /usr/lib/python3/dist-packages):
#
#   cmake --preset deb && cmake --build --preset deb && (cd build/deb && cpack -G DEB)
#
#   libnft0      component nft_runtime                 the shared library (ldconfig on install)
#   libnft-dev   components nft_headers, nft_development  public headers, libnft.so, CMake package, nft.pc
#   nft-tools    component nft_programs                the programs, their manual pages, share/nft/config
#   python3-nft  component nft_python                  the Python module nft and its stubs
#   gstreamer1.0-nft  components nft_gstreamer,       the GStreamer plugin libgstnft.so (nfttrack,
#                     nft_gstreamer_headers           nftgloverlay), in /usr/lib/<multiarch>/gstreamer-1.0
#                                                      (Debian's gstreamer1.0-* naming), where GStreamer
#                                                      looks, and /usr/include/nft/gst/meta.h
#   libnft-recognition-dev  component nft_recognition  the recognition service's client: libnft-recognition.a,
#                                                      <nft/recognition.h>, find_package(nft COMPONENTS
#                                                      recognition), nft-recognition.pc (a static archive:
#                                                      no runtime package; libnft0 gains no libcurl)
#
# Each package depends on the Debian packages of the shared libraries its ELF files link, found by
# dpkg-shlibdeps (dpkg-dev), and on those no ELF file shows: libnft-dev on libnft0 of the same
# version and on libopencv-dev (the public headers use OpenCV's core; nftConfig.cmake finds it);
# python3-nft on Debian's python3 of the version it was built for and NumPy; nft-tools recommends
# opencv-doc (nft_replay's built-in input). libnft0 ships a shlibs file (the exact version: the
# ABI may change with any 0.x release). scripts/test-deb.sh builds, installs, uses and purges them.
set(NFT_PACKAGE_CONTACT "nft maintainers <nft@invalid>" CACHE STRING
    "Maintainer field of the Debian packages (name <e-mail>)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nft)
set(CPACK_PACKAGE_VENDOR nft)
set(CPACK_PACKAGE_CONTACT "${NFT_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/deb")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <package>_<version>-<release>_<architecture>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(nft_deb_version "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")

set(CPACK_COMPONENTS_ALL nft_runtime nft_headers nft_development nft_programs)
set(CPACK_DEBIAN_NFT_RUNTIME_PACKAGE_NAME libnft0)
set(CPACK_DEBIAN_NFT_RUNTIME_PACKAGE_SECTION libs)
# Its shlibs file, written here rather than by CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS, which would
# look at every package's shared objects and warn about the Python module's (no SONAME).
file(WRITE "${PROJECT_BINARY_DIR}/package/debian/shlibs"
     "libnft ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR} libnft0 (= ${nft_deb_version})\n")
set(CPACK_DEBIAN_NFT_RUNTIME_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/package/debian/shlibs")
set(CPACK_COMPONENT_NFT_RUNTIME_DESCRIPTION
    "natural-feature-tracking AR on OpenGL ES 2.0 (library)
 nft finds a planar target (a book cover, a poster) in camera frames, follows it, estimates
 the camera's pose and draws augmentations, with SURF-ES detection on an OpenGL ES 2.0 GPU.
 This package holds the shared library libnft that apps embed (nft::Session).")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libnft-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libnft0 (= ${nft_deb_version}), libopencv-dev")
# (CPACK_DEBIAN_<GROUP>_DESCRIPTION: a group's package does not read the group's
# CPACK_COMPONENT_GROUP_DEV_DESCRIPTION, which left libnft-dev with CPack's "nft built using CMake".)
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "natural-feature-tracking AR on OpenGL ES 2.0 (development files)
 The public headers of libnft (#include <nft/nft.h>), its CMake package (find_package(nft),
 target nft::nft) and its pkg-config file (nft.pc).")

set(CPACK_DEBIAN_NFT_PROGRAMS_PACKAGE_NAME nft-tools)
set(CPACK_DEBIAN_NFT_PROGRAMS_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_NFT_PROGRAMS_PACKAGE_RECOMMENDS opencv-doc)
set(CPACK_COMPONENT_NFT_PROGRAMS_DESCRIPTION
    "natural-feature-tracking AR on OpenGL ES 2.0 (programs)
 nft_replay tracks a target through a recorded video; nft_train trains targets and target
 databases; nft_preview tracks live in a window; nft_eval evaluates descriptors and tracking
 and runs regression suites (locally or on Slurm); nft_bench measures; nft_gpuinfo reports the
 OpenGL ES 2.0 device; nft_describe computes SURF descriptors. With their manual pages and the
 configuration files they take (/usr/share/nft/config).")

if(NFT_PYTHON_MODULE)
  list(APPEND CPACK_COMPONENTS_ALL nft_python)
  set(CPACK_DEBIAN_NFT_PYTHON_PACKAGE_NAME python3-nft)
  set(CPACK_DEBIAN_NFT_PYTHON_PACKAGE_SECTION python)
  # The module is built for one Python (its file name says cpython-3XY): that version's python3.
  string(REGEX REPLACE "^([0-9]+)\\.([0-9]+)$" "\\1" nft_py_major "${NFT_PYTHON_VERSION}")
  string(REGEX REPLACE "^([0-9]+)\\.([0-9]+)$" "\\2" nft_py_minor "${NFT_PYTHON_VERSION}")
  math(EXPR nft_py_next "${nft_py_minor} + 1")
  set(CPACK_DEBIAN_NFT_PYTHON_PACKAGE_DEPENDS
      "python3 (>= ${NFT_PYTHON_VERSION}~), python3 (<< ${nft_py_major}.${nft_py_next}), python3-numpy")
  set(CPACK_COMPONENT_NFT_PYTHON_DESCRIPTION
      "natural-feature-tracking AR on OpenGL ES 2.0 (Python module)
 The Python module nft: nft.Session over NumPy images, and the detection lane's pieces
 (SURF-ES, the CPU SURF lane, the GPU matcher, scale-aware FAST).")
endif()

if(NFT_GST_PLUGIN)
  # The plugin and GstNftMeta's header (<nft/gst/meta.h>, GStreamer's headers only) in one package:
  # the component group gstreamer.
  list(APPEND CPACK_COMPONENTS_ALL nft_gstreamer nft_gstreamer_headers)
  set(CPACK_DEBIAN_GSTREAMER_PACKAGE_NAME gstreamer1.0-nft)
  set(CPACK_DEBIAN_GSTREAMER_PACKAGE_SECTION video)
  # gst-launch-1.0 and gst-inspect-1.0, and the elements the plugin's pipelines start from.
  set(CPACK_DEBIAN_GSTREAMER_PACKAGE_RECOMMENDS "gstreamer1.0-tools, gstreamer1.0-plugins-base, gstreamer1.0-plugins-good")
  # The header's includes (gst/gst.h): for apps that read the meta.
  set(CPACK_DEBIAN_GSTREAMER_PACKAGE_SUGGESTS "libgstreamer1.0-dev")
  # A group's package takes its description from CPACK_DEBIAN_<GROUP>_DESCRIPTION (CPackDeb; the
  # group's CPACK_COMPONENT_GROUP_*_DESCRIPTION is not used for it).
  set(CPACK_DEBIAN_GSTREAMER_DESCRIPTION
      "natural-feature-tracking AR on OpenGL ES 2.0 (GStreamer plugin)
 The GStreamer elements nfttrack (raw video) and nftgloverlay (GL memory): find planar targets,
 follow them and estimate the camera's pose; per buffer a GstNftMeta (its C header
 <nft/gst/meta.h> for apps' pad probes) and an element message nft-result on the bus, the video
 passed through (with the augmentations drawn on request).")
endif()

if(TARGET nft_recognition_lib)
  list(APPEND CPACK_COMPONENTS_ALL nft_recognition)
  set(CPACK_DEBIAN_NFT_RECOGNITION_PACKAGE_NAME libnft-recognition-dev)
  set(CPACK_DEBIAN_NFT_RECOGNITION_PACKAGE_SECTION libdevel)
  # No ELF file in it (a static archive): its dependencies are named here. The app links libnft
  # and libcurl itself (nftRecognitionTargets.cmake, nft-recognition.pc).
  set(CPACK_DEBIAN_NFT_RECOGNITION_PACKAGE_DEPENDS
      "libnft-dev (= ${nft_deb_version}), libcurl4-openssl-dev | libcurl-dev")
  set(CPACK_COMPONENT_NFT_RECOGNITION_DESCRIPTION
      "natural-feature-tracking AR on OpenGL ES 2.0 (recognition service client)
 The client of the nft catalogue recognition service: nft::SessionRecognition, a Session that
 asks the service (over HTTP, libcurl) for the target in view when it finds none of its own, and
 downloads and tracks what it recognises. A static library (#include <nft/recognition.h>,
 find_package(nft COMPONENTS recognition) -> nft::recognition, pkg-config nft-recognition).")
endif()

include(CPack)
cpack_add_component_group(dev)
cpack_add_component(nft_headers GROUP dev)
cpack_add_component(nft_development GROUP dev)
if(NFT_GST_PLUGIN)
  cpack_add_component_group(gstreamer)
  cpack_add_component(nft_gstreamer GROUP gstreamer)
  cpack_add_component(nft_gstreamer_headers GROUP gstreamer)
endif()
