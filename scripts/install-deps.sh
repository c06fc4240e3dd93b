#!/usr/bin/env bash
# The single list of every Debian 12 package the project uses, and their installation.
# Installs only what is missing (so repeated runs are quick and offline); as root, or through
# sudo when run by another user. Used by scripts/run.sh and scripts/test.sh.
set -euo pipefail

PACKAGES=(
  # Toolchain and build; help2man makes the programs' manual pages from their --help
  build-essential cmake ninja-build pkg-config help2man
  # EGL + OpenGL ES 2.0: headers, the GLVND loaders, Mesa's EGL and its llvmpipe driver
  # (the GPU of machines without one: CI, containers)
  libegl-dev libgles-dev libegl1 libgles2 libegl-mesa0 libgl1-mesa-dri
  # Libraries: image/video I/O, RANSAC, PnP; linear algebra; YAML configs; desktop window;
  # command lines; logging; JSON output; CRC-32 of model files
  libopencv-dev libeigen3-dev libyaml-cpp-dev libglfw3-dev libcli11-dev libspdlog-dev nlohmann-json3-dev
  zlib1g-dev
  # Tests and benchmarks; a virtual X server for the preview window's test; the Khronos GLSL
  # reference compiler (glslangValidator) for the shaders' GLSL ES 1.00 conformance test
  libgtest-dev libgmock-dev libbenchmark-dev
  xvfb xauth glslang-tools
  # The API reference of the public headers (target nft_docs, test docs.api_reference); the
  # corner comparison of scripts/test-package.sh
  doxygen python3
  # The libFuzzer targets of tests/fuzz/ (CI runs them briefly): clang, compiler-rt's libFuzzer
  clang libclang-rt-14-dev
  # Real sample images (graf1.png, building.jpg): nft_replay's built-in default input is
  # synthesised from them at run time
  opencv-doc
  # Photographs cropped into distractor targets by scripts/make-distractors.py (Debian's own
  # python3 with OpenCV's bindings runs it): the many-targets test and benchmarks
  gnome-backgrounds plasma-workspace-wallpapers python3-opencv
  # The Python module nft (python/, pybind11) and what its tests and examples use: Debian's python3
  # with its headers, NumPy, pytest (ctest runs tests/python/ with it), matplotlib (the examples'
  # plots); python3-opencv is listed above
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest python3-matplotlib
  # Slurm and munge: `nft_eval suite run --slurm` submits job arrays (sbatch); the test labelled
  # slurm starts its own single-node cluster (munged, slurmctld, slurmd) in a temporary folder
  slurm-wlm munge
  # The web build (scripts/build-web.sh, issue 25): Debian's emscripten, dpkg-source for the
  # dependencies' Debian source packages; Debian's Chromium runs the web tests headless
  # (scripts/test-web.sh, WebGL 1 through SwiftShader)
  emscripten dpkg-dev chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} Debian packages are installed"
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
