#!/usr/bin/env bash
# Builds the project for arm64 (aarch64) Linux and runs the whole test suite under qemu-user,
# on Debian's arm64 packages, with arm64 Mesa llvmpipe as the GPU. As root, on Debian 12 (amd64).
#
#   scripts/check-arm64.sh            # everything; ctest's arguments may follow, e.g. -R shaders
#
# 1. Host tools: the cross compiler (g++-aarch64-linux-gnu), qemu-user-static, mmdebstrap.
# 2. An arm64 sysroot (NFT_ARM64_SYSROOT, default build/arm64-sysroot; made once, ~1.1 GB): the
#    project's library packages for arm64 (the list below mirrors install-deps.sh), downloaded
#    and unpacked by mmdebstrap's extract variant — no arm64 program runs to make it, and the host's
#    own packages are not touched (no dpkg --add-architecture: several -dev packages cannot be
#    co-installed for two architectures).
# 3. binfmt_misc: qemu-aarch64 registered for arm64 programs, where the kernel allows it, so the
#    tests that start other programs (nft_replay from the replay tests, xvfb-run) work too.
# 4. cmake with cmake/toolchain-arm64.cmake into build/arm64 (NFT_ARM64_BUILD), build, and ctest
#    with qemu-aarch64 as CMAKE_CROSSCOMPILING_EMULATOR; the tests' own time limits scaled by
#    NFT_TEST_TIMEOUT_SCALE (default 10: emulation is 10-300x slower than native).
# Not run by CI (too slow for its 90 minutes on 2 cores); results in docs/platforms.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SYSROOT=${NFT_ARM64_SYSROOT:-$ROOT/build/arm64-sysroot}
BUILD=${NFT_ARM64_BUILD:-$ROOT/build/arm64}
MIRROR=${NFT_ARM64_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${NFT_ARM64_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
JOBS=${JOBS:-2}

HOST_PACKAGES=(g++-aarch64-linux-gnu qemu-user-static mmdebstrap cmake ninja-build pkg-config glslang-tools xvfb xauth)
ARM64_PACKAGES=(
  libc6-dev libstdc++-12-dev
  libegl-dev libgles-dev libegl1 libgles2 libegl-mesa0 libgl1-mesa-dri
  libopencv-dev libeigen3-dev libyaml-cpp-dev libglfw3-dev libcli11-dev libspdlog-dev nlohmann-json3-dev libcurl4-openssl-dev
  zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev
)

if [ "$(id -u)" -ne 0 ]; then
  echo "check-arm64: run as root (installs host packages, makes the sysroot, registers binfmt_misc)" >&2
  exit 1
fi

missing=()
for p in "${HOST_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "check-arm64: installing ${missing[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$SYSROOT/.nft-sysroot-complete" ]; then
  echo "check-arm64: making the arm64 sysroot in $SYSROOT"
  rm -rf "$SYSROOT"
  include=$(IFS=,; echo "${ARM64_PACKAGES[*]}")
  mmdebstrap --variant=extract --architectures=arm64 --mode=root --include="$include" bookworm "$SYSROOT" \
    "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" "deb $SECURITY_MIRROR bookworm-security main"
  # Absolute symlinks (libm.so -> /lib/aarch64-linux-gnu/libm.so.6) would point into the host:
  # make them relative, inside the sysroot.
  (cd "$SYSROOT" && find . -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" ".$target")" "$link"
  done)
  # What update-alternatives would have linked (maintainer scripts do not run in an extract).
  for lib in blas/libblas.so.3 lapack/liblapack.so.3; do
    dir=$SYSROOT/usr/lib/aarch64-linux-gnu
    [ -e "$dir/$lib" ] && ln -sfn "$lib" "$dir/$(basename "$lib")"
  done
  touch "$SYSROOT/.nft-sysroot-complete"
fi

binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e $binfmt/qemu-aarch64 ] && [ ! -e $binfmt/nft-qemu-aarch64 ]; then
  mountpoint -q $binfmt 2>/dev/null || mount -t binfmt_misc binfmt_misc $binfmt 2>/dev/null || true
  if [ -w $binfmt/register ]; then
    magic=$(sed -n 's/^magic //p' /usr/share/binfmts/qemu-aarch64)
    mask=$(sed -n 's/^mask //p' /usr/share/binfmts/qemu-aarch64)
    printf ':nft-qemu-aarch64:M::%s:%s:%s:F\n' "$magic" "$mask" "$(command -v qemu-aarch64-static)" > $binfmt/register
    echo "check-arm64: registered qemu-aarch64-static for arm64 programs (binfmt_misc)"
  else
    echo "check-arm64: WARNING: binfmt_misc not writable: tests that start other programs will fail" >&2
  fi
fi
# For arm64 programs started through binfmt_misc (by a test, or by xvfb-run): the sysroot's
# loader and libraries. Host programs are unaffected (no such folders on an amd64 host).
export QEMU_LD_PREFIX=$SYSROOT
export LD_LIBRARY_PATH=/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchain-arm64.cmake" \
  -DNFT_ARM64_SYSROOT="$SYSROOT" -DCMAKE_BUILD_TYPE=Release -DNFT_WARNINGS_AS_ERRORS=ON \
  -DNFT_TEST_TIMEOUT_SCALE="${NFT_TEST_TIMEOUT_SCALE:-10}"
start=$(date +%s)
cmake --build "$BUILD" -j "$JOBS"
built=$(date +%s)
status=0
ctest --test-dir "$BUILD" -j "$JOBS" --timeout 1800 --output-on-failure "$@" || status=$?
end=$(date +%s)
echo "check-arm64: build $((built - start)) s, tests $((end - built)) s (qemu-user, $(qemu-aarch64-static --version | head -1))"
exit $status
