#!/usr/bin/env python3
"""The cost of nft.Session.process() from Python against the same call from C++ (issue 24 goal:
at most 5 % more per frame), on tmt_bookI's frames, in the same process and run.

    bench_process.py [--frames N] [--repetitions R] [--bgr]

Each repetition runs two passes over the same frames (decoded once, grey unless --bgr), each on a
fresh Session with the target added: the Python pass calls session.process(frame) in a Python
loop, timing each call with time.perf_counter() (the result's conversion included); the C++ pass
hands the list to Session._cpp_process_loop(), which calls nft::Session::process() in a C++ loop
and times each call with std::chrono::steady_clock. The passes alternate in order (the first of a
repetition runs on colder caches); a warm-up pass of each comes first (llvmpipe compiles its
shader variants). Prints the median per-frame time of each pass kind and their ratio, and a JSON
line. Needs the data folder ($NFT_DATA_DIR, else ../shared/data beside the repository).
"""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

import cv2
import numpy as np

import nft


def main() -> int:
    root = pathlib.Path(__file__).resolve().parents[2]
    data = pathlib.Path(os.environ.get("NFT_DATA_DIR") or root / ".." / "shared" / "data")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=0, help="frames of tmt_bookI (0: all 531)")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--bgr", action="store_true", help="pass BGR frames as cv2 reads them")
    args = parser.parse_args()

    folder = data / "video" / "tmt_bookI"
    video = cv2.VideoCapture(str(folder / "video.mp4"))
    frames = []
    while args.frames <= 0 or len(frames) < args.frames:
        ok, frame = video.read()
        if not ok:
            break
        frames.append(frame if args.bgr else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    if not frames:
        print(f"bench_process: cannot read frames from {folder / 'video.mp4'}", file=sys.stderr)
        return 1
    target = str(folder / "target.png")
    # Both passes detect in process(), frame by frame: the module's overhead, not the worker's timing.
    SYNCHRONOUS = {"tracking": {"async_detection": "off"}}

    def python_pass() -> float:
        session = nft.Session(SYNCHRONOUS)
        session.add_target(target, "book", 0.2)
        seconds, t = 0.0, 0
        for frame in frames:
            t += 33_333_333
            start = time.perf_counter()
            session.process(frame, t)
            seconds += time.perf_counter() - start
        return seconds / len(frames)

    def cpp_pass() -> float:
        session = nft.Session(SYNCHRONOUS)
        session.add_target(target, "book", 0.2)
        return float(np.sum(session._cpp_process_loop(frames))) / len(frames)

    python_pass(), cpp_pass()  # warm-up
    py_ms, cpp_ms = [], []
    for r in range(args.repetitions):
        if r % 2 == 0:
            py_ms.append(1000 * python_pass())
            cpp_ms.append(1000 * cpp_pass())
        else:
            cpp_ms.append(1000 * cpp_pass())
            py_ms.append(1000 * python_pass())
    py, cpp = statistics.median(py_ms), statistics.median(cpp_ms)
    ratios = [p / c for p, c in zip(py_ms, cpp_ms)]
    print(f"tmt_bookI, {len(frames)} {'BGR' if args.bgr else 'grey'} frames, {args.repetitions} repetitions "
          f"({nft.Session().gpu_renderer}):")
    print(f"  C++ loop    median {cpp:.3f} ms per frame  (passes: {', '.join(f'{v:.3f}' for v in cpp_ms)})")
    print(f"  Python loop median {py:.3f} ms per frame  (passes: {', '.join(f'{v:.3f}' for v in py_ms)})")
    print(f"  Python / C++ = {py / cpp:.4f} (overhead {100 * (py / cpp - 1):+.2f} %; per repetition: "
          f"{', '.join(f'{v:.3f}' for v in ratios)})")
    print(json.dumps({"frames": len(frames), "cpp_ms": cpp, "python_ms": py, "ratio": py / cpp,
                      "overhead_pct": 100 * (py / cpp - 1), "ratios": ratios}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
