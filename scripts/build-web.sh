#!/usr/bin/env bash
# The web build (issue 25): the tracker as a WebAssembly module with its JavaScript API, for a
# page on a phone's browser (WebGL 1 = OpenGL ES 2.0). Three steps, each skipped when up to date:
#   1. the dependencies (OpenCV, yaml-cpp, zlib) from Debian's source packages with Debian's
#      emscripten, into a cached prefix (scripts/build-web-deps.sh);
#   2. the project's libraries (the same sources as native; gpu/context_web.cpp for the context);
#   3. the module web/ (nft_web.js + nft_web.wasm), beside nft.js, nft.d.ts and demo/.
# The result is a folder to serve as it is: see docs/web.md.
#
#   scripts/build-web.sh [--build-dir DIR] [--deps DIR] [--jobs N]
#     --build-dir DIR  the project's web build (default: build/web)
#     --deps DIR       the dependency prefix (default: $NFT_WEB_DEPS, else the cached one outside
#                      the clone that scripts/build-web-deps.sh names: ~/.cache/nft/web-deps-KEY)
#     --jobs N         parallel compile jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build/web
deps="${NFT_WEB_DEPS:-}"
jobs="$(nproc)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d;s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift 2 ;;
    --deps) deps="${2:?--deps needs a folder}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build-web: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

[ -n "$deps" ] || deps="$(scripts/build-web-deps.sh --print-prefix)"
scripts/build-web-deps.sh --prefix "$deps" --jobs "$jobs"
deps="$(cd "$deps" && pwd)"
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"  # Debian's emscripten on this node

# Configured once, and again when the prefix is another (a dependency changed: a new key).
if [ ! -f "$build_dir/CMakeCache.txt" ] ||
   ! grep -qxF "NFT_WEB_DEPS:PATH=$deps" "$build_dir/CMakeCache.txt"; then
  emcmake cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNFT_WARNINGS_AS_ERRORS=ON \
    -DNFT_WEB_DEPS="$deps" -DNFT_BUILD_TESTS=OFF -DNFT_PYTHON=OFF
fi
cmake --build "$build_dir" -j "$jobs"
echo "build-web: $build_dir/web holds the page-ready module:"
(cd "$build_dir/web" && ls -l nft_web.js nft_web.wasm nft.js nft.d.ts | awk '{ printf "  %-14s %9d bytes\n", $9, $5 }')
echo "  gzipped: $(cat "$build_dir/web/nft_web.js" "$build_dir/web/nft_web.wasm" "$build_dir/web/nft.js" | gzip -9 | wc -c) bytes (module, glue and API)"
