#!/usr/bin/env bash
# Set-up command 1: installs the Debian packages that building and running need (the run group
# of scripts/install-deps.sh), builds the library, nft_replay, nft_train and nft_preview (the run
# preset: no tests, no Python module; `cmake --build build/run` builds the other programs too) and
# runs nft_replay on its built-in default input: a hand-held-camera sequence synthesised from
# opencv-doc's graf1.png with exact ground truth, ending with an accuracy report.
# Without arguments the rendered video, the per-frame poses and the JSON report go to
# build/run/replay-default/; with arguments, they go to nft_replay as they are (e.g.
# --target cover.jpg --video clip.mp4 --out out.mp4; --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
cmake --preset run
cmake --build --preset run
echo "== nft_replay (its first line names the GPU it runs on) =="
if [ $# -eq 0 ]; then
  out=build/run/replay-default
  mkdir -p "$out"
  build/run/apps/nft_replay --out "$out/video.mp4" --poses "$out/poses.csv" --report "$out/report.json"
  echo "run.sh: wrote $out/video.mp4, $out/poses.csv and $out/report.json"
else
  exec build/run/apps/nft_replay "$@"
fi
