#!/usr/bin/env bash
# CI's second half (issue 11), after ./scripts/test.sh: the whole test suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer (the asan preset; leaks of the
# graphics driver and camera libraries suppressed by tests/lsan.supp), then each libFuzzer target
# of tests/fuzz/ for 30 s on its seed corpus (scripts/fuzz.sh). About 15 minutes on 2 cores:
# asan build ~10, asan suite ~2-5, fuzz build + runs ~3.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
echo "== ASan + UBSan + LSan build =="
cmake --preset asan
cmake --build --preset asan
echo "== Test suite under ASan + UBSan + LSan =="
log=build/asan/ctest-asan.log
failed_list=build/asan/Testing/Temporary/LastTestsFailed.log
# LeakSanitizer's stop-the-world tracer itself sometimes crashes at exit, after the test has
# passed ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error": a known,
# open sanitizer-runtime flake with threads exiting during the check, google/sanitizers#1353).
# Seen here on 1 of 303 tests, in streaks (4 runs in a row, then 0 in 60). That is no finding,
# so such tests are run again, up to 3 times — but only when every failure of the round is one
# of those crashes; any other failure fails CI at once.
ctest_args=(--preset asan -j "$(nproc)")
for attempt in 1 2 3 4; do
  if ctest "${ctest_args[@]}" --output-log "$log"; then break; fi
  failed=$(grep -c . "$failed_list" || true)
  crashes=$(grep -c "Tracer caught signal" "$log" || true)
  if [ "$attempt" -eq 4 ] || [ "$failed" -eq 0 ] || [ "$crashes" -lt "$failed" ]; then
    echo "test-reliability: $failed test(s) failed under the sanitizers ($crashes tracer crash(es))" >&2
    exit 1
  fi
  echo "== $failed test(s) failed only by LeakSanitizer's tracer crash: running them again ($attempt of 3) =="
  ctest_args=(--preset asan --rerun-failed)
done
echo "== Fuzzing the file loaders, 30 s each =="
scripts/fuzz.sh --seconds 30
