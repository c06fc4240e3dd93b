#!/usr/bin/env bash
# Measures how `nft_eval suite run` scales with the cores (issue 23's goal: --jobs 2 on 2 cores at
# least 1.7x faster than --jobs 1 on a 4-clip suite): the 4 clips of ../shared/data below, replayed
# with --jobs 1 and --jobs 2 alternately (--force, fresh output folders), RUNS times each; prints
# every wall time, the medians and their ratio, and the fastest run of each (the least disturbed).
# The machine should be otherwise idle: on shared cores the ratio says as much about the
# neighbours as about the runner.
#
#   scripts/suite-speedup.sh [--runs N] [--build-dir build/release]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3
build=build/release
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done
eval_bin="$build/apps/nft_eval"
[ -x "$eval_bin" ] || { echo "$eval_bin is not built: cmake --build $build --target nft_eval nft_replay" >&2; exit 1; }
data=$(cd "${NFT_DATA_DIR:-../shared/data}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/four.yaml" <<EOF
name: speedup
clips:
  - {name: bookI, video: $data/video/tmt_bookI/video.mp4, target: $data/video/tmt_bookI/target.png, ground_truth: $data/video/tmt_bookI/gt.tsv}
  - {name: cmu, video: $data/video/cmu_book/book.mp4, target: $data/video/cmu_book/cv_cover.jpg}
  - {name: bookI_400, video: $data/video/tmt_bookI/video.mp4, target: $data/video/tmt_bookI/target.png, ground_truth: $data/video/tmt_bookI/gt.tsv, frames: 400}
  - {name: cmu_500, video: $data/video/cmu_book/book.mp4, target: $data/video/cmu_book/cv_cover.jpg, frames: 500}
EOF
echo "cores: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A times
for ((r = 1; r <= runs; r++)); do
  for jobs in 1 2; do
    start=$(date +%s.%N)
    "$eval_bin" suite run "$tmp/four.yaml" --out "$tmp/out$jobs" --jobs "$jobs" --force >/dev/null 2>"$tmp/log"
    t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
    times[$jobs]+="$t "
    printf 'run %d --jobs %d: %.2f s\n' "$r" "$jobs" "$t"
  done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
least() { tr ' ' '\n' | sed '/^$/d' | sort -g | head -n 1; }
m1=$(echo "${times[1]}" | median)
m2=$(echo "${times[2]}" | median)
b1=$(echo "${times[1]}" | least)
b2=$(echo "${times[2]}" | least)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
printf 'median --jobs 1: %.2f s, --jobs 2: %.2f s, speed-up %sx; fastest runs: %.2f s and %.2f s, %sx (load after: %s)\n' \
  "$m1" "$m2" "$(ratio "$m1" "$m2")" "$b1" "$b2" "$(ratio "$b1" "$b2")" "$(cut -d' ' -f1-3 /proc/loadavg)"
