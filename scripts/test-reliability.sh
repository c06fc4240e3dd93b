#!/usr/bin/env bash
# CI's second half (issue 11), after ./scripts/test.sh: the whole test suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer (the asan preset; leaks of the
# graphics driver and camera libraries suppressed by tests/lsan.supp), the session tests under
# ThreadSanitizer (the tsan preset, issue 33), then each libFuzzer target
# of tests/fuzz/ for 30 s on its seed corpus (scripts/fuzz.sh). The asan build is the slowest
# stage without ccache's hits (about 20 minutes on 2 cores; the presets' flags: docs/reliability.md). Each stage prints
# its time (scripts/lib/stages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/stages.sh
source scripts/lib/stages.sh
stage "install the Debian packages (all groups)" scripts/install-deps.sh all
stage "configure (asan preset)" cmake --preset asan
stage "build (asan preset: ASan + UBSan + LSan)" cmake --build --preset asan
stage "test suite under ASan + UBSan + LSan" ctest --preset asan -j "$(nproc)"
# The Session's tests under ThreadSanitizer: the detection worker (session/async_detector.h),
# four Sessions on four threads, and the recognition client's request worker
# (session/recognition/: SessionRecognition against a stand-in service); the GL driver's and
# FFmpeg's own threads suppressed by tests/tsan.supp.
stage "configure (tsan preset)" cmake --preset tsan
stage "build (tsan preset: the session and recognition tests)" cmake --build --preset tsan
stage "session and recognition tests under ThreadSanitizer" ctest --preset tsan -j "$(nproc)"
stage "fuzzing the file loaders, 30 s each" scripts/fuzz.sh --seconds 30
[ -n "${NFT_CI:-}" ] || stage_summary
