#!/usr/bin/env bash
# The README's picture, docs/images/augmented_frame.png: a frame of nft_replay's built-in
# synthetic sequence (opencv-doc's graf1.png on building.jpg, seed 8) as nft_replay renders it —
# camera image, cube, axes, outline, tracked patches and status line —, scaled to 480×360 and
# to 32 levels a channel so the PNG stays under 200 KB. The video is written losslessly (FFV1) and the frame taken from it by
# Debian's python3 with OpenCV's bindings (python3-opencv).
#
#   scripts/make-docs-picture.sh [--build-dir DIR] [--frame N]
#     --build-dir DIR  a build with apps/nft_replay (default build/release)
#     --frame N        the frame, from 0 (default 130)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
frame=130
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d;s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="${2:?--build-dir needs a folder}"; shift 2 ;;
    --frame) frame="${2:?--frame needs a number}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "make-docs-picture: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$build/apps/nft_replay" ] || { echo "make-docs-picture: $build/apps/nft_replay not found: build it first" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf 'output:\n  codec: FFV1\n' >"$work/lossless.yaml"
"$build/apps/nft_replay" --synthetic-frames "$((frame + 1))" --config "$work/lossless.yaml" \
  --out "$work/video.avi" --progress 0
/usr/bin/python3 - "$work/video.avi" "$frame" docs/images/augmented_frame.png <<'PY'
import sys
import cv2
video, index, out = cv2.VideoCapture(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
frame = None
for _ in range(index + 1):
    ok, frame = video.read()
    if not ok:
        sys.exit(f"make-docs-picture: the video has no frame {index}")
small = cv2.resize(frame, (480, 360), interpolation=cv2.INTER_AREA)
small = (small // 8) * 8 + 4  # 32 levels a channel: the sensor noise no longer fills the PNG
cv2.imwrite(out, small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
PY
echo "make-docs-picture: wrote docs/images/augmented_frame.png ($(stat -c %s docs/images/augmented_frame.png) bytes)"
