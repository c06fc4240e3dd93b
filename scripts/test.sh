#!/usr/bin/env bash
# Set-up command 2: installs the Debian packages, builds the release preset and runs the whole
# test suite through ctest. GPU tests run on the machine's EGL driver (Mesa's llvmpipe when
# there is no GPU); nft_gpuinfo prints which renderer that is first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
echo "== GPU the tests run on =="
build/release/apps/nft_gpuinfo
echo "== Test suite =="
ctest --preset release -j "$(nproc)"
scripts/test-package.sh --build-dir build/release  # the installed package as an app uses it (examples/)
scripts/test-web.sh --native-build build/release    # the web build in headless Chromium (web/, tests/web/)
