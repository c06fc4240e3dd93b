#!/usr/bin/env python3
"""Tracks a planar target through a video with nft and plots the camera's trajectory.

    track_video.py [--target IMAGE] [--video VIDEO] [--width-m W] [--frames N] [--output PNG]

Defaults: the cmu_book clip of the project's data folder ($NFT_DATA_DIR, else ../shared/data
from the current folder): its cover scan cv_cover.jpg tracked through book.mp4. Each frame goes
to nft.Session.process() as cv2 reads it (H×W×3 uint8 BGR, passed without a copy); the camera's
centre in the target's frame, C = −Rᵀ·t (metres; x along the target's top edge, y down its left
edge, z into it, so a camera in front of the target has z < 0), is plotted with matplotlib: the
path seen from the front of the target and the distance to it over time. Prints how many frames
the target was found in and the percentiles of process()'s time per frame (p50, p90, p99, max).

Needs only Debian packages: python3-numpy, python3-opencv, python3-matplotlib, and the nft module
(PYTHONPATH=<prefix>/lib/python3.X/dist-packages after `cmake --install`).
"""

import argparse
import os
import pathlib
import sys

import cv2
import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import nft  # noqa: E402


def main() -> int:
    data = pathlib.Path(os.environ.get("NFT_DATA_DIR") or "../shared/data")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default=str(data / "video/cmu_book/cv_cover.jpg"), help="target image")
    parser.add_argument("--video", default=str(data / "video/cmu_book/book.mp4"), help="video file")
    parser.add_argument("--width-m", type=float, default=0.2, help="printed target width, metres")
    parser.add_argument("--frames", type=int, default=0, help="frames to process (0: all)")
    parser.add_argument("--output", default="trajectory.png", help="the plot (PNG)")
    args = parser.parse_args()

    video = cv2.VideoCapture(args.video)
    if not video.isOpened():
        print(f"track_video: cannot open the video '{args.video}'", file=sys.stderr)
        return 1
    try:
        # The defaults and a headless OpenGL ES 2.0 context of its own; a video file is read as fast
        # as it decodes, so each search runs in the frame it searches (a live camera keeps the
        # default, auto: the search on a worker thread, reported a few frames later).
        session = nft.Session({"tracking": {"async_detection": "off"}})
        session.add_target(args.target, "target", args.width_m)  # trained here (about a second)
    except (nft.Error, FileNotFoundError) as e:
        print(f"track_video: {e}", file=sys.stderr)
        return 1
    info = session.targets[0]
    print(f"target {info.name}: {info.quality.stars}/5 stars, {info.quality.keypoints} keypoints, "
          f"{info.tracking_patches} tracking patches")

    frames, centres, total_ms = [], [], []
    index = 0
    while args.frames <= 0 or index < args.frames:
        ok, frame = video.read()
        if not ok:
            break
        result = session.process(frame, timestamp_ns=int(video.get(cv2.CAP_PROP_POS_MSEC) * 1e6))
        total_ms.append(result.timings["total"])
        t = result.targets[0]
        if t.found:
            frames.append(result.frame)
            centres.append(-t.R.T @ t.tvec)  # camera centre in target coordinates, metres
        index += 1
    if index == 0:
        print(f"track_video: no frame could be read from '{args.video}'", file=sys.stderr)
        return 1
    # A user judges a tracker by its worst frames: the percentiles of process()'s time, not its mean.
    p50, p90, p99 = np.percentile(total_ms, [50, 90, 99], method="inverted_cdf")
    print(f"found in {len(frames)} of {index} frames; process() ms per frame: p50 {p50:.2f}, p90 {p90:.2f}, "
          f"p99 {p99:.2f}, max {max(total_ms):.2f} "
          f"({session.gpu_renderer})")
    if not frames:
        print("track_video: the target was never found: nothing to plot", file=sys.stderr)
        return 1

    c = np.array(centres)
    fig, (top, dist) = plt.subplots(1, 2, figsize=(11, 4.5))
    top.plot(c[:, 0], c[:, 1], "-", lw=1, color="tab:blue")
    top.scatter(c[:, 0], c[:, 1], c=frames, s=6, cmap="viridis")
    w = info.width_m
    h = w * info.image_size[1] / info.image_size[0]
    top.plot([0, w, w, 0, 0], [0, 0, h, h, 0], "k-", lw=2, label="target")
    top.set_aspect("equal")
    top.invert_yaxis()  # y down, as on the target
    top.set_xlabel("x (m)")
    top.set_ylabel("y (m)")
    top.set_title("camera centre seen from the front of the target")
    top.legend(loc="upper right")
    dist.plot(frames, np.linalg.norm(c - [w / 2, h / 2, 0], axis=1), ".", ms=3)
    dist.set_xlabel("frame")
    dist.set_ylabel("distance to the target's centre (m)")
    dist.set_title(f"{pathlib.Path(args.video).name}: found in {len(frames)}/{index} frames")
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
