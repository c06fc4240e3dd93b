#!/usr/bin/env bash
# Set-up command 2: installs every group of Debian packages (scripts/install-deps.sh all), builds
# the release preset and runs the whole test suite through ctest, then the installed package as
# an app uses it, the Debian packages (built, installed, used, purged), and the web build. GPU
# tests run on the machine's EGL driver (Mesa's llvmpipe when there is no GPU); nft_gpuinfo
# prints which renderer that is first. Each stage prints its time (scripts/lib/stages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/stages.sh
source scripts/lib/stages.sh
stage "install the Debian packages (all groups)" scripts/install-deps.sh all
stage "configure (release preset)" cmake --preset release
stage "build (release preset)" cmake --build --preset release
echo "== GPU the tests run on =="
build/release/apps/nft_gpuinfo
stage "test suite (ctest)" ctest --preset release -j "$(nproc)"
# The installed package as an app uses it (examples/), the programs and their manual pages.
stage "installed package (scripts/test-package.sh)" scripts/test-package.sh --build-dir build/release
# The Debian packages: built (CPack), installed with apt, used from /usr, purged.
stage "Debian packages (scripts/test-deb.sh)" scripts/test-deb.sh
# The web build in headless Chromium (web/, tests/web/).
stage "web build and tests (scripts/test-web.sh)" scripts/test-web.sh --native-build build/release
[ -n "${NFT_CI:-}" ] || stage_summary
