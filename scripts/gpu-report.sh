#!/usr/bin/env bash
# GPU report (issue 36): one command that measures, on whatever EGL device this machine has (a
# real GPU through EGL_EXT_platform_device where there is one, else Mesa's llvmpipe), the SURF-ES
# cases (storage paths, box reads), the matcher, the detection lane (GPU backends against CPU
# backends, and against OpenCV ORB/SIFT) and the replay, each next to its CPU baseline measured
# in the same run (nft_bench, docs/programs/nft_bench.md), and writes
#   DIR/gpu-report.json  nft_bench's JSON (system: GL renderer, GL version, EGL platform, CPU;
#                        results: each case, its baselines and ratios) plus "gpu_report" (date,
#                        command, filter)
#   DIR/gpu-report.md    the same as a Markdown table headed by the renderer and driver, to paste
#                        into docs/results.md with the card's name
# CI never depends on a GPU: tests/apps/gpu_report_test.cpp runs it with --quick on llvmpipe.
#   scripts/gpu-report.sh [--out DIR] [--build-dir build/release] [--quick] [--filter REGEX]
#                         [--platform auto|device|surfaceless|default] [--data DIR]
# Defaults: --out gpu-report, the cases of every group above, --platform auto (a hardware EGL
# device first), --data $NFT_DATA_DIR or ../shared/data. Exit status: nft_bench's, 2 for bad
# arguments.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

out=gpu-report
build="$root/build/release"
quick=""
filter='^(surf_es|surf_es_boxes|surf_cpu|matcher|detection_lane|replay)/'
platform=auto
data="${NFT_DATA_DIR:-$root/../shared/data}"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --quick) quick="--quick"; shift ;;
    --filter) filter="$2"; shift 2 ;;
    --platform) platform="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "gpu-report.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
bench="$build/apps/nft_bench"
if [ ! -x "$bench" ]; then
  echo "gpu-report.sh: $bench is missing (cmake --preset release && cmake --build build/release --target nft_bench)" >&2
  exit 2
fi
mkdir -p "$out"
raw="$out/nft_bench.json"
echo "gpu-report.sh: nft_bench $quick --platform $platform --filter '$filter' (data: $data)" >&2
"$bench" $quick --platform "$platform" --filter "$filter" --data "$data" --json "$raw" | tee "$out/nft_bench.txt"
python3 "$here/lib/gpu_report.py" "$raw" "$out/gpu-report.json" "$out/gpu-report.md" \
  --command "scripts/gpu-report.sh${quick:+ $quick} --platform $platform --filter '$filter'" --filter "$filter"
rm -f "$raw"
echo "gpu-report.sh: wrote $out/gpu-report.json and $out/gpu-report.md" >&2
