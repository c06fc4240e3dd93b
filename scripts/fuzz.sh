#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ (the `fuzz` preset: clang, ASan + UBSan) and runs
# each on its seed corpus (tests/fuzz/corpus/<name>/), printing executions and time per target.
#   scripts/fuzz.sh                     # every target, 1,000,000 executions or 10 minutes each
#   scripts/fuzz.sh --seconds 30        # a short run per target (what CI runs)
#   scripts/fuzz.sh --runs 100000 config calibration
#   scripts/fuzz.sh --make-corpus       # (re)writes the .nftm and .nftdb seeds with nft_train (release)
# Targets: target_model target_database config calibration keypoint_csv ground_truth suite.
# New inputs go to <build>/fuzz-corpus/<name>/ (the committed seeds are not touched); a crash, hang
# (> 10 s per input) or sanitizer report stops that target, saves the input under
# <build>/fuzz-artifacts/ and makes the script exit 1 after the other targets ran. Needs clang and
# libclang-rt-14-dev (compiler-rt's libFuzzer), which scripts/install-deps.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${NFT_FUZZ_BUILD_DIR:-build/fuzz}"
runs=1000000
seconds=600
make_corpus=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; runs=-1; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --make-corpus) make_corpus=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(target_model target_database config calibration keypoint_csv ground_truth suite)

if [ "$make_corpus" = 1 ]; then
  # Seeds of the .nftm loader, trained by nft_train on graf1.png (opencv-doc) scaled down to the
  # smallest working size: as a whole file (first byte odd) and as a bare payload (first byte
  # even: the harness adds header and CRC-32), for SURF-64 oriented and SURF-36 upright, and a
  # SURF-64 label on a cylinder (c64: the geometry after the quality report). Written in the
  # current format (version 3); v2-s64-file.bin is a file of version 2 (no geometry), written by
  # the build before version 3 and still read: kept as it is.
  train="${NFT_TRAIN:-build/release/apps/nft_train}"
  graf=/usr/share/doc/opencv-doc/examples/data/graf1.png
  out=tests/fuzz/corpus/target_model
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$out"
  "$train" "$graf" -o "$tmp/s64.nftm" --working-size 64 --keypoints 16 >/dev/null
  "$train" "$graf" -o "$tmp/s36.nftm" --working-size 64 --keypoints 8 --descriptor 36 --upright >/dev/null
  "$train" "$graf" -o "$tmp/c64.nftm" --working-size 64 --keypoints 16 --geometry cylinder --radius-m 0.04 \
    --height-m 0.08 >/dev/null
  for m in s64 s36 c64; do
    { printf '\001'; cat "$tmp/$m.nftm"; } >"$out/$m-file.bin"
    { printf '\000'; tail -c +17 "$tmp/$m.nftm" | head -c -4; } >"$out/$m-payload.bin"
  done
  ls -l "$out"
  # Seeds of the .nftdb loader, built by nft_train --database as the Session trains images, with
  # configs that keep them small (96-pixel images): graf1.png and box.png, SURF-64 oriented, 24
  # keypoints a target without tilted views, 10 visual words (31 KB); graf1.png, box.png (with
  # its own width) and butterfly.jpg, SURF-36 upright with the tilted views, 40 keypoints a target,
  # 28 words (59 KB) — more than 10, so loading it builds the search tree by k-means
  # (vocabulary.h). Same two forms: the whole file, and the bare payload (the harness adds header
  # and CRC-32). Written in the current format (version 4: compact records with residual codes,
  # JPEG images, each target's geometry); the v1-* seeds (and the regress-* ones, made whole
  # version-1 files) are files of the version-1 format, v2-s64-file.bin one of version 2 (8-bit
  # descriptors) and v3-s64-file.bin one of version 3 (no geometry), which the loader still reads,
  # written by the builds before versions 2, 3 and 4: kept as they are.
  data=/usr/share/doc/opencv-doc/examples/data
  out=tests/fuzz/corpus/target_database
  mkdir -p "$out"
  printf 'detector:\n  max_keypoints: 24\ntarget:\n  working_size: 96\n  max_tracking_patches: 12\n'`
        `'  min_size_px: 0\n  view_tilt_deg: 0\n' >"$tmp/s64.yaml"
  printf 'detector:\n  max_keypoints: 40\ndescriptor:\n  type: surf36\n  orientation: upright\n'`
        `'target:\n  working_size: 96\n  max_tracking_patches: 12\n  min_size_px: 0\n' >"$tmp/s36.yaml"
  printf 'graf %s/graf1.png\nbox %s/box.png\n' "$data" "$data" >"$tmp/s64.txt"
  printf 'graf %s/graf1.png\nbox %s/box.png 0.1\nbutterfly %s/butterfly.jpg\n' "$data" "$data" "$data" >"$tmp/s36.txt"
  for d in s64 s36; do
    "$train" --database "$tmp/$d.nftdb" --list "$tmp/$d.txt" --config "$tmp/$d.yaml" >/dev/null
    { printf '\001'; cat "$tmp/$d.nftdb"; } >"$out/$d-file.bin"
    { printf '\000'; tail -c +17 "$tmp/$d.nftdb" | head -c -4; } >"$out/$d-payload.bin"
  done
  ls -l "$out"
  exit 0
fi

cmake --preset fuzz -B "$build" >/dev/null
cmake --build "$build" --target nft_fuzzers
mkdir -p "$build/fuzz-artifacts"
status=0
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/nft_fuzz_$t"
  seeds="tests/fuzz/corpus/$t"
  [ -x "$bin" ] && [ -d "$seeds" ] || { echo "fuzz.sh: unknown target '$t'" >&2; exit 2; }
  work="$build/fuzz-corpus/$t"
  mkdir -p "$work"
  log="$build/fuzz-artifacts/$t.log"
  limit=(-max_total_time="$seconds")
  [ "$runs" -gt 0 ] && limit+=(-runs="$runs")
  if [ "$t" = calibration ]; then
    # OpenCV 4.6's YAML parser (cv::FileStorage, Debian 12) never returns on some malformed
    # files (tests/fuzz/known-hangs/, docs/reliability.md, "Fuzzing"): loadCalibration gives up at its deadline
    # (2 s in the harness) and leaves the stuck parser thread running, so this target runs in
    # fork mode, whose children end (and take such threads with them) every few seconds; any
    # timeout left is counted, not fatal; crashes and sanitizer reports still stop it.
    limit+=(-fork=1 -ignore_timeouts=1)
  fi
  start=$(date +%s%N)
  if ! "$bin" "$work" "$seeds" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-artifacts/$t-" >"$log" 2>&1; then
    status=1
    echo "== $t: FAILED (log $log)"
    grep -E "ERROR|runtime error|contract broken|Test unit written" "$log" | head -5
  fi
  ms=$((($(date +%s%N) - start) / 1000000))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # Fork mode prints no final stats: its last "#N: cov ..." line has the count.
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\): cov.*/\1/p' "$log" | tail -1)
  timeouts=$(sed -n 's|.*oom/timeout/crash: [0-9]*/\([0-9]*\)/.*|\1|p' "$log" | tail -1)
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1)
  printf '== %-15s %10s executions in %4d.%d s  (%s, peak RSS %s MB%s)\n' "$t" "${execs:-?}" \
    $((ms / 1000)) $((ms % 1000 / 100)) "${cov:-cov: ?}" "${peak:-?}" "${timeouts:+, $timeouts OpenCV parser timeouts}"
done
exit $status
