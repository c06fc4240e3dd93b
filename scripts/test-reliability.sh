#!/usr/bin/env bash
# CI's second half (issue 11), after ./scripts/test.sh: the whole test suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer (the asan preset; leaks of the
# graphics driver and camera libraries suppressed by tests/lsan.supp), then each libFuzzer target
# of tests/fuzz/ for 30 s on its seed corpus (scripts/fuzz.sh). About 15 minutes on 2 cores:
# asan build ~10, asan suite ~2, fuzz build + runs ~3.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
echo "== ASan + UBSan + LSan build =="
cmake --preset asan
cmake --build --preset asan
echo "== Test suite under ASan + UBSan + LSan =="
ctest --preset asan -j "$(nproc)"
echo "== Fuzzing the file loaders, 30 s each =="
scripts/fuzz.sh --seconds 30
