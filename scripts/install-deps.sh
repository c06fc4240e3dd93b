#!/usr/bin/env bash
# The single list of every Debian 12 package the project uses, in groups, and their installation.
# Installs only what is missing (so repeated runs are quick and offline); as root, or through
# sudo when run by another user.
#
#   scripts/install-deps.sh [GROUP...]     install the groups (default: all of them)
#   scripts/install-deps.sh --list GROUP   print the groups' packages, one a line
#   scripts/install-deps.sh --count GROUP  how many packages apt would install now (with the
#                                          ones they depend on), installing nothing
#
# Groups:
#   run     building the library and the programs, and running them (scripts/run.sh)
#   test    the C++ test suite, benchmarks, the API reference, the package checks, ccache
#   python  the Python module nft, its tests and examples
#   web     the web build and its tests in headless Chromium
#   slurm   `nft_eval suite run --slurm` and its test (a single-node cluster)
#   fuzz    the libFuzzer targets of tests/fuzz/
#   gst     the GStreamer plugin libgstnft.so (gst/), its tests and examples
#   service the catalogue recognition service (service/) and its tests
#   all     every group (scripts/test.sh)
set -euo pipefail

declare -A GROUP
# Toolchain and build; help2man makes the programs' manual pages from their --help. EGL + OpenGL
# ES 2.0: headers, the GLVND loaders, Mesa's EGL and its llvmpipe driver (the GPU of machines
# without one: CI, containers). Libraries: image/video I/O, RANSAC, PnP; linear algebra; YAML
# configs; desktop window; command lines; JSON output; CRC-32 of model files; HTTP for the
# recognition service's C++ client (session/recognition/, a library of its own). Real sample images
# (graf1.png, building.jpg): nft_replay's built-in default input is synthesised from them.
GROUP[run]="build-essential cmake ninja-build pkg-config help2man
  libegl-dev libgles-dev libegl1 libgles2 libegl-mesa0 libgl1-mesa-dri
  libopencv-dev libeigen3-dev libyaml-cpp-dev libglfw3-dev libcli11-dev nlohmann-json3-dev zlib1g-dev
  libcurl4-openssl-dev opencv-doc"
# GoogleTest, Google Benchmark; a virtual X server for the preview window's test; the Khronos
# GLSL reference compiler (glslangValidator) for the shaders' GLSL ES 1.00 conformance test;
# Doxygen for the documentation site (test docs.*); python3 for the corner comparisons of
# scripts/test-package.sh; dpkg-dev's dpkg-shlibdeps for the Debian packages (CPack); ccache
# for rebuilds (the native and sanitizer builds); photographs that scripts/make-distractors.py
# (Debian's python3 with OpenCV's bindings) crops into distractor targets for the many-targets
# measurements.
GROUP[test]="libgtest-dev libgmock-dev libbenchmark-dev xvfb xauth glslang-tools doxygen python3
  dpkg-dev ccache gnome-backgrounds plasma-workspace-wallpapers python3-opencv"
# Debian's python3 with its headers, pybind11, NumPy, pytest (ctest runs tests/python/ with it),
# matplotlib (the examples' plots), OpenCV's bindings (the examples read videos with them).
GROUP[python]="pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest python3-matplotlib
  python3-opencv"
# Debian's emscripten, dpkg-source for the dependencies' Debian source packages
# (scripts/build-web-deps.sh); Debian's Chromium runs the web tests headless (WebGL 1 through
# SwiftShader); python3 serves the test pages.
GROUP[web]="emscripten dpkg-dev chromium python3"
# Slurm and munge: `nft_eval suite run --slurm` submits job arrays (sbatch); the test labelled
# slurm starts its own single-node cluster (munged, slurmctld, slurmd) in a temporary folder.
GROUP[slurm]="slurm-wlm munge"
# clang and compiler-rt's libFuzzer.
GROUP[fuzz]="clang libclang-rt-14-dev"
# GStreamer 1.22: the development files of the plugin libgstnft.so (core, base, video; the GL
# library for the GL element to come), gst-launch-1.0 and gst-inspect-1.0, the base and good
# plugins (videotestsrc, videoconvert, decodebin, pngenc, multifilesink), the libav decoders
# (avdec_h264: the shared clips), and python3-gi with the GStreamer typelibs for the Python
# bus reader (examples/gstreamer/) and the pipeline tests.
GROUP[gst]="libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good gstreamer1.0-libav gstreamer1.0-gl python3-gi gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0"
# The catalogue recognition service (service/, issue 48): FAISS's Python bindings for the global
# descriptor index, Dask distributed for its workers, FastAPI + uvicorn for the HTTP front and
# httpx for its clients and tests; SciPy's sparse matrices for the word shortlist; OpenBLAS,
# which Debian's alternatives then give FAISS's exact search in place of the reference BLAS (8x
# faster on 2 cores); threadpoolctl to keep the front's BLAS to one thread (a query's small
# products, where a second thread's wake-ups cost more than they give). An app that does not use
# the service needs none of them.
GROUP[service]="python3-faiss python3-scipy python3-distributed python3-fastapi python3-uvicorn python3-httpx python3-numpy
  python3-opencv python3-pytest libopenblas0-pthread python3-threadpoolctl"
ORDER=(run test python web slurm fuzz gst service)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d;s/^# \{0,1\}//'; }

mode=install
groups=()
while [ $# -gt 0 ]; do
  case "$1" in
    --list) mode=list; shift ;;
    --count) mode=count; shift ;;
    -h|--help) usage; exit 0 ;;
    all) groups+=("${ORDER[@]}"); shift ;;
    -*) echo "install-deps: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    *)
      [ -n "${GROUP[$1]+x}" ] || { echo "install-deps: unknown group '$1' (expected one of ${ORDER[*]}, all)" >&2; exit 2; }
      groups+=("$1"); shift ;;
  esac
done
[ ${#groups[@]} -gt 0 ] || groups=("${ORDER[@]}")

declare -A seen
PACKAGES=()
for g in "${groups[@]}"; do
  for p in ${GROUP[$g]}; do
    [ -n "${seen[$p]+x}" ] && continue
    seen[$p]=1
    PACKAGES+=("$p")
  done
done

if [ "$mode" = list ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi
if [ "$mode" = count ]; then
  # apt's own plan for this machine, as `apt-get install` would make it: "Inst" lines.
  n="$(apt-get install --simulate --no-install-recommends "${PACKAGES[@]}" 2>/dev/null | grep -c '^Inst ' || true)"
  echo "install-deps: ${groups[*]}: ${#PACKAGES[@]} packages listed; apt would install or upgrade $n on this machine"
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} Debian packages of ${groups[*]} are installed"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: missing packages (${missing[*]}); run this script as root or install sudo" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
