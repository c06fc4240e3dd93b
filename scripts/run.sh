#!/usr/bin/env bash
# Set-up command 1: installs the Debian packages, builds the release preset and runs the main
# job, nft_replay, on its built-in default input: a hand-held-camera sequence synthesised from
# opencv-doc's graf1.png with exact ground truth, ending with an accuracy report. Without
# arguments the rendered video, the per-frame poses and the JSON report go to
# build/release/replay-default/; with arguments, they go to nft_replay as they are (e.g.
# --target cover.jpg --video clip.mp4 --out out.mp4; --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
echo "== GPU the replay runs on =="
build/release/apps/nft_gpuinfo
echo "== nft_replay =="
if [ $# -eq 0 ]; then
  out=build/release/replay-default
  mkdir -p "$out"
  build/release/apps/nft_replay --out "$out/video.mp4" --poses "$out/poses.csv" --report "$out/report.json"
  echo "run.sh: wrote $out/video.mp4, $out/poses.csv and $out/report.json"
else
  exec build/release/apps/nft_replay "$@"
fi
