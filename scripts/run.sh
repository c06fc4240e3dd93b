#!/usr/bin/env bash
# Set-up command 1: installs the Debian packages, builds the release preset and runs the main
# job on its built-in default input. Until the replay program lands, the main job is
# nft_gpuinfo: what this machine's OpenGL ES 2.0 GPU offers the tracker. Extra arguments go
# to the program (e.g. --json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
exec build/release/apps/nft_gpuinfo "$@"
