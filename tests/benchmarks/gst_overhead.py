#!/usr/bin/env python3
"""nfttrack's overhead over the Session alone, per frame (issue 34's goal: at most 5 %).

For each frame size (640x480 and 1280x720: the shared clip cmu_book, scaled by videoscale), runs

  gst-launch-1.0 -m filesrc ! decodebin ! videoconvert ! videoscale ! video/x-raw,format=I420,WxH
                 ! nfttrack target=cv_cover.jpg ! fakesink sync=false

and reads from each buffer's nft-result message the Session's time (process-ms,
FrameTimings::total) and the element's (element-ms: mapping, the Session, drawing, the meta and
the message's structure). Same run, same frames, same thread: the ratio of the medians,
element-ms / process-ms, is the element's overhead. GStreamer's latency tracer
(GST_TRACERS="latency(flags=element)") times the same buffers from nfttrack's sink pad to its src
pad, the base class's work included, and its own logging too (an upper bound). Also, in the same run, `nft_replay --no-render`
on the same frames (GStreamer's GRAY8 of them, as PNG: the I420 luma nfttrack tracks), its
per-frame Session time (its --poses CSV's ms): the Session as the programs run it.

--element nftgloverlay measures the GL element instead (glupload ! glcolorconvert ! nftgloverlay,
headless on llvmpipe): its time holds reading the frame back and drawing it, its job.
--variants runs the element with each of several property settings, alternated within every
repeat (same frames, same machine state), e.g. --variants gpu-luma=false gpu-luma=true: the two
ways nftgloverlay reads the frame. Compare their element-ms (the Session's process-ms of an RGBA
frame holds its grey conversion, that of a GRAY8 one none). --no-replay leaves nft_replay out.

The first frames (the detection and the Session's making) are left out (--skip); each size runs
--repeats times and the medians of the runs are reported. Prints a table and, with --json, writes
the numbers. GST_PLUGIN_PATH must name the plugin's folder (build/release/gst) unless installed.

  GST_PLUGIN_PATH=build/release/gst tests/benchmarks/gst_overhead.py --replay build/release/apps/nft_replay
"""

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile


def run_pipeline(video, target, width, height, frames, trace_file, element, properties=()):
    env = dict(os.environ, GST_TRACERS="latency(flags=element)", GST_DEBUG="GST_TRACER:7",
               GST_DEBUG_FILE=str(trace_file), GST_DEBUG_NO_COLOR="1")
    if element == "nftgloverlay":  # RGBA textures of GStreamer's GL context, headless on llvmpipe
        for k, v in (("GST_GL_API", "gles2"), ("GST_GL_PLATFORM", "egl"), ("GST_GL_WINDOW", "egl-device")):
            env.setdefault(k, v)
        upload = ["glupload", "!", "glcolorconvert", "!", "video/x-raw(memory:GLMemory),format=RGBA", "!"]
    else:
        upload = []
    command = ["gst-launch-1.0", "-m", "filesrc", f"location={video}", "!", "decodebin", "!", "videoconvert", "!",
               "videoscale", "!", f"video/x-raw,format=I420,width={width},height={height}", "!", *upload,
               element, f"target={target}", *properties, "!", "fakesink", "sync=false", f"num-buffers={frames}"]
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200)
    if out.returncode != 0:
        sys.exit(f"gst_overhead: {' '.join(command)} failed:\n{out.stdout[-2000:]}{out.stderr}")
    times = re.findall(r"nft-result, frame=\(guint64\)\d+, .*?process-ms=\(double\)([0-9.e+-]+), "
                       r"element-ms=\(double\)([0-9.e+-]+)", out.stdout)
    session_ms = [float(p) for p, _ in times]
    element_ms = [float(e) for _, e in times]
    pad_ms = [int(t) / 1e6 for t in re.findall(r"element-latency, .*element=\(string\)" + element +
                                              r"0, .*time=\(guint64\)(\d+)", trace_file.read_text())]
    if len(session_ms) != len(pad_ms) or not session_ms:
        sys.exit(f"gst_overhead: {len(session_ms)} nft-result messages but {len(pad_ms)} {element} latency records")
    return element_ms, session_ms, pad_ms


def run_replay(replay, video, target, width, height, frames, work):
    folder = work / f"frames-{width}x{height}"
    folder.mkdir(exist_ok=True)
    if not any(folder.iterdir()):
        subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={video}", "!", "decodebin", "!", "videoconvert", "!",
                        "videoscale", "!", f"video/x-raw,format=I420,width={width},height={height}", "!", "videoconvert",
                        "!", "video/x-raw,format=GRAY8", "!", "pngenc", "compression-level=1", "!", "multifilesink",
                        f"location={folder / '%05d.png'}"], check=True)
    poses = work / "replay.csv"
    subprocess.run([replay, "--target", str(target), "--video", str(folder), "--poses", str(poses), "--no-render",
                    "--progress", "0", "--frames", str(frames)], check=True, capture_output=True)
    with open(poses) as f:
        next(f)
        return [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("NFT_DATA_DIR", str(pathlib.Path(__file__).resolve().parents[3] / "shared" / "data")))
    parser.add_argument("--replay", help="nft_replay (build/release/apps/nft_replay)")
    parser.add_argument("--frames", type=int, default=641, help="frames per run (cmu_book has 641)")
    parser.add_argument("--skip", type=int, default=5, help="first frames left out of the statistics")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default="640x480,1280x720")
    parser.add_argument("--json", help="write the numbers here")
    parser.add_argument("--element", choices=("nfttrack", "nftgloverlay"), default="nfttrack",
                        help="nftgloverlay: its time holds reading the frame back and drawing it")
    parser.add_argument("--variants", nargs="+", default=[""], metavar="PROPS",
                        help="property settings of the element, each 'name=value[ name=value...]', run in turn "
                             "within every repeat (default: one run with none)")
    parser.add_argument("--no-replay", action="store_true", help="leave nft_replay's Session out")
    args = parser.parse_args()
    if args.replay is None and not args.no_replay:
        parser.error("--replay is required (or --no-replay)")
    video = pathlib.Path(args.data) / "video" / "cmu_book" / "book.mp4"
    target = pathlib.Path(args.data) / "video" / "cmu_book" / "cv_cover.jpg"
    for f in (video, target):
        if not f.exists():
            sys.exit(f"gst_overhead: missing data: {f} (--data or NFT_DATA_DIR)")
    results = []
    with tempfile.TemporaryDirectory(prefix="nft-gst-overhead.") as tmp:
        work = pathlib.Path(tmp)
        for size in args.sizes.split(","):
            width, height = (int(v) for v in size.split("x"))
            runs = {v: ([], [], [], []) for v in args.variants}  # element, session, pad, replay
            for r in range(args.repeats):
                for variant in args.variants:  # alternated: each repeat runs every variant once
                    element, session, pad, replay = runs[variant]
                    e, s, p = run_pipeline(video, target, width, height, args.frames,
                                           work / f"trace-{size}-{r}.log", args.element, variant.split())
                    element.append(statistics.median(e[args.skip:]))
                    session.append(statistics.median(s[args.skip:]))
                    pad.append(statistics.median(p[args.skip:]))
                    if not args.no_replay:
                        replay.append(statistics.median(run_replay(args.replay, video, target, width, height,
                                                                   args.frames, work)[args.skip:]))
                    print(f"  {size} {variant or args.element} run {r + 1}: element {element[-1]:.3f} ms, "
                          f"its Session {session[-1]:.3f} ms, pad to pad {pad[-1]:.3f} ms"
                          + (f", nft_replay's Session {replay[-1]:.3f} ms" if replay else ""), file=sys.stderr)
            for variant, (element, session, pad, replay) in runs.items():
                row = {"size": size, "variant": variant, "frames": args.frames - args.skip, "repeats": args.repeats,
                       "element_ms": statistics.median(element), "session_ms": statistics.median(session),
                       "pad_to_pad_ms": statistics.median(pad),
                       "replay_session_ms": statistics.median(replay) if replay else float("nan")}
                row["element_over_session"] = row["element_ms"] / row["session_ms"]
                row["pad_to_pad_over_session"] = row["pad_to_pad_ms"] / row["session_ms"]
                row["element_over_replay"] = row["element_ms"] / row["replay_session_ms"]
                results.append(row)
    print(f"median ms per frame: the Session in {args.element}, {args.element} (element-ms), pad to pad (latency tracer), "
          "nft_replay's Session on the same frames")
    print("size       variant            Session  element  ratio  pad-to-pad  ratio  nft_replay  element/nft_replay")
    for r in results:
        print(f"{r['size']:<10} {r['variant'] or '-':<18} {r['session_ms']:7.3f}  {r['element_ms']:7.3f}  {r['element_over_session']:5.3f}  "
              f"{r['pad_to_pad_ms']:10.3f}  {r['pad_to_pad_over_session']:5.3f}  {r['replay_session_ms']:10.3f}  "
              f"{r['element_over_replay']:18.3f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
