#!/usr/bin/env bash
# Soak test (issue 11): a long replay of a real video looped (default 10,000 frames of
# cmu_book/book.mp4, 641 frames a pass) under the default config, with rendering, and the figures
# that show whether anything leaks or drifts:
#   - resident memory (the progress line's rss) after frame 1,000 and at the last frame: must
#     differ by less than 1 %;
#   - GL errors (nft_replay checks glGetError every 30 frames; the report's gl_errors): must be 0;
#   - the tracker's median ms per frame over frames 1,000-1,999 and the last 1,000: the late one
#     must not exceed the early one by more than 10 % (shared machines are noisy).
# Exit status 1 when a check fails. Not run by CI (about 2 minutes on a 2-core llvmpipe machine).
#   scripts/soak.sh [--frames N] [--build-dir build/release] [--keep DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

frames=10000
build=build/release
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --frames) frames="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ "$frames" -lt 2000 ]; then echo "soak.sh: --frames must be at least 2000" >&2; exit 2; fi
data="${NFT_DATA_DIR:-../shared/data}/video/cmu_book"
replay="$build/apps/nft_replay"
[ -x "$replay" ] || { echo "soak.sh: $replay is missing (cmake --build --preset release)" >&2; exit 1; }
[ -f "$data/book.mp4" ] || { echo "soak.sh: $data/book.mp4 is missing (set NFT_DATA_DIR)" >&2; exit 1; }

out="${keep:-$(mktemp -d)}"
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT
loops=$((frames / 600 + 1))
echo "soak: $frames frames of $data/book.mp4 (looped), default config, rendering; outputs in $out"
start=$(date +%s)
"$replay" --target "$data/cv_cover.jpg" --video "$data/book.mp4" --loop "$loops" --frames "$frames" \
  --progress 1000 --poses "$out/poses.csv" --report "$out/report.json" 2>"$out/stderr.log" >"$out/stdout.log"
echo "soak: replay took $(($(date +%s) - start)) s"
grep -E "^frame " "$out/stderr.log" | sed 's/^/  /'

# RSS from the progress lines ("frame 1000/10000 ... rss 201.3 MB").
rss_at() { grep -E "^frame $1/" "$out/stderr.log" | sed -n 's/.* rss \([0-9.]*\) MB.*/\1/p' | tail -1; }
# Median of the CSV's ms column (19th) over frames [from, to).
median_ms() {
  awk -F, -v a="$1" -v b="$2" 'NR > 1 && $1 >= a && $1 < b { print $19 }' "$out/poses.csv" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
rss_early=$(rss_at 1000)
rss_late=$(rss_at "$frames")
ms_early=$(median_ms 1000 2000)
ms_late=$(median_ms $((frames - 1000)) "$frames")
gl_errors=$(sed -n 's/.*"gl_errors": *\([0-9]*\).*/\1/p' "$out/report.json")
rows=$(($(wc -l <"$out/poses.csv") - 1))
nan_rows=$(grep -ciE "nan|inf" "$out/poses.csv" || true)

status=0
check() {  # check <what> <awk condition> <figures>
  if awk "BEGIN { exit !($2) }"; then echo "  PASS  $1: $3"; else echo "  FAIL  $1: $3"; status=1; fi
}
echo "soak: figures"
check "frames" "$rows == $frames && $nan_rows == 0" "$rows CSV rows, $nan_rows with NaN/inf"
check "resident memory" "$rss_late < $rss_early * 1.01 && $rss_late > $rss_early * 0.99" \
  "$rss_early MB at frame 1000, $rss_late MB at frame $frames ($(awk "BEGIN { printf \"%+.2f\", ($rss_late / $rss_early - 1) * 100 }") %)"
check "GL errors" "$gl_errors == 0" "$gl_errors"
check "per-frame time" "$ms_late <= $ms_early * 1.10" \
  "median $ms_early ms (frames 1000-1999), $ms_late ms (frames $((frames - 1000))-$((frames - 1)))"
exit $status
