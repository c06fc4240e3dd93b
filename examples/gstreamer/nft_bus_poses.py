#!/usr/bin/env python3
"""nft_bus_poses: run a GStreamer pipeline with nfttrack and write its poses from the bus.

Reads every element message named "nft-result" that nfttrack posts (one per buffer: frame,
found, and each target's name, state, corners, pose and inliers) and writes them as nft_replay
writes its --poses CSV (frame,state,ulx,...,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms; the first
target of each frame), so that the same scripts read both. Needs Debian's python3-gi and
gir1.2-gstreamer-1.0, and the plugin libgstnft.so (installed, or its folder in GST_PLUGIN_PATH).

  nft_bus_poses.py --video book.mp4 --target cv_cover.jpg --poses poses.csv
  nft_bus_poses.py --pipeline "v4l2src ! videoconvert ! nfttrack target=cover.nftm ! fakesink" --poses -
"""

import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402  (after require_version)

CORNERS = ("ulx", "uly", "urx", "ury", "lrx", "lry", "llx", "lly")
HEADER = "frame,state," + ",".join(CORNERS) + ",rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms"


def csv_row(s: Gst.Structure) -> str:
    """One nft_replay CSV row from an nft-result structure (the first target entry)."""
    frame = s.get_uint64("frame")[1]
    ms = s.get_double("process-ms")[1]
    if s.get_int("targets")[1] < 1:  # several targets, none reported in this frame
        return f"{frame},detecting,{',' * 16}{ms:.3f}"
    state = s.get_string("target0-state")
    if not s.get_boolean("target0-found")[1]:
        return f"{frame},{state},{',' * 16}{ms:.3f}"
    values = [s.get_double(f"target0-{k}")[1] for k in CORNERS + ("rx", "ry", "rz", "tx", "ty", "tz")]
    return (f"{frame},{state}," + ",".join(f"{v:.3f}" for v in values[:8]) + "," +
            ",".join(f"{v:.6f}" for v in values[8:]) +
            f",{s.get_int('target0-inliers')[1]},{s.get_double('target0-reproj-px')[1]:.3f},{ms:.3f}")


def quoted(value: str) -> str:
    """A property value for a pipeline description: in double quotes, \\ and \" escaped."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run(description: str, out) -> int:
    """Plays the pipeline to its end, writing a row per nft-result message; 0, or 1 on an error."""
    pipeline = Gst.parse_launch(description)
    bus = pipeline.get_bus()
    out.write(HEADER + "\n")
    pipeline.set_state(Gst.State.PLAYING)
    status = 0
    while True:
        message = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                         Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
        if message.type == Gst.MessageType.ELEMENT:
            s = message.get_structure()
            if s is not None and s.get_name() == "nft-result":
                out.write(csv_row(s) + "\n")
            continue
        if message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            print(f"nft_bus_poses: {message.src.get_name()}: {error.message}", file=sys.stderr)
            status = 1
        break
    pipeline.set_state(Gst.State.NULL)  # stops the streaming threads: every message is out
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--video", help="a video file (filesrc ! decodebin ! videoconvert ! nfttrack ! fakesink)")
    parser.add_argument("--target", help="nfttrack's target: an image or a .nftm model")
    parser.add_argument("--pipeline", help="a whole gst-launch-1.0 description with an nfttrack instead")
    parser.add_argument("--poses", default="-", help="the CSV to write ('-': standard output)")
    args = parser.parse_args()
    if args.pipeline and (args.video or args.target):
        parser.error("--pipeline replaces --video and --target")
    if not args.pipeline and not (args.video and args.target):
        parser.error("give --video and --target, or --pipeline")
    Gst.init(None)
    description = args.pipeline or (
        f"filesrc location={quoted(args.video)} ! decodebin ! videoconvert ! "
        f"nfttrack target={quoted(args.target)} ! fakesink")
    if Gst.ElementFactory.find("nfttrack") is None:
        print("nft_bus_poses: GStreamer has no element nfttrack: install the plugin libgstnft.so or put its folder "
              "in GST_PLUGIN_PATH", file=sys.stderr)
        return 1
    try:
        pipeline_out = sys.stdout if args.poses == "-" else open(args.poses, "w")
    except OSError as e:
        print(f"nft_bus_poses: --poses '{args.poses}': {e.strerror}", file=sys.stderr)
        return 1
    with pipeline_out:
        try:
            return run(description, pipeline_out)
        except GLib.Error as e:  # a description gst-launch-1.0 would refuse too
            print(f"nft_bus_poses: pipeline '{description}': {e.message}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
