#!/usr/bin/env python3
"""A long nfttrack pipeline (issue 34's goal: 10,000 frames, no leak, no dropped buffer).

Decodes the shared clip cmu_book once into GRAY8 PNG frames, then plays them in a loop
(multifilesrc loop=true ! pngdec ! nfttrack ! fakesink sync=false) for --frames buffers in this
process, and reports: the nft-result messages (one per buffer nfttrack tracked), the buffers
fakesink received (none dropped: both equal --frames), the frames the target was found in, and
this process's resident memory (VmRSS) after the first --warmup frames and at the end: the drift
between them. --element nftgloverlay runs the GL element instead (glupload ! glcolorconvert !
nftgloverlay; headless on llvmpipe: GST_GL_API=gles2 GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device,
set here when unset), which stops the pipeline on a GL error of its calls. GST_PLUGIN_PATH must name
the plugin's folder unless it is installed.

  GST_PLUGIN_PATH=build/release/gst tests/benchmarks/gst_soak.py --frames 10000 [--element nftgloverlay]
      [--properties gpu-luma=true]
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("NFT_DATA_DIR", str(pathlib.Path(__file__).resolve().parents[3] / "shared" / "data")))
    parser.add_argument("--frames", type=int, default=10000)
    parser.add_argument("--warmup", type=int, default=1000, help="frames before the first memory sample")
    parser.add_argument("--element", choices=("nfttrack", "nftgloverlay"), default="nfttrack")
    parser.add_argument("--properties", default="", metavar="'name=value ...'",
                        help="more properties of the element, e.g. gpu-luma=true (nftgloverlay)")
    args = parser.parse_args()
    video = pathlib.Path(args.data) / "video" / "cmu_book" / "book.mp4"
    target = pathlib.Path(args.data) / "video" / "cmu_book" / "cv_cover.jpg"
    for f in (video, target):
        if not f.exists():
            sys.exit(f"gst_soak: missing data: {f} (--data or NFT_DATA_DIR)")
    if args.element == "nftgloverlay":
        for k, v in (("GST_GL_API", "gles2"), ("GST_GL_PLATFORM", "egl"), ("GST_GL_WINDOW", "egl-device")):
            os.environ.setdefault(k, v)
        tracker = ('videoconvert ! glupload ! glcolorconvert ! capsfilter caps="video/x-raw(memory:GLMemory),format=RGBA" ! '
                   f'nftgloverlay target="{target}" {args.properties}')
    else:
        tracker = f'nfttrack target="{target}" {args.properties}'
    Gst.init(None)
    with tempfile.TemporaryDirectory(prefix="nft-gst-soak.") as tmp:
        subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={video}", "!", "decodebin", "!", "videoconvert", "!",
                        "video/x-raw,format=GRAY8", "!", "pngenc", "compression-level=1", "!", "multifilesink",
                        f"location={tmp}/%05d.png"], check=True)
        pipeline = Gst.parse_launch(
            f'multifilesrc location="{tmp}/%05d.png" loop=true num-buffers={args.frames} '
            f'caps="image/png,framerate=30/1" ! pngdec ! {tracker} ! '
            f'fakesink name=sink sync=false signal-handoffs=true')
        received = [0]
        pipeline.get_by_name("sink").connect("handoff", lambda *a: received.__setitem__(0, received[0] + 1))
        bus = pipeline.get_bus()
        pipeline.set_state(Gst.State.PLAYING)
        messages = found = 0
        rss_warm = None
        error = None
        while True:
            m = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.ELEMENT | Gst.MessageType.ERROR |
                                       Gst.MessageType.EOS)
            if m.type == Gst.MessageType.ELEMENT and m.get_structure().get_name() == "nft-result":
                messages += 1
                found += m.get_structure().get_int("found")[1]
                if messages == args.warmup:
                    rss_warm = rss_kib()
                if messages % 1000 == 0:
                    print(f"gst_soak: {messages} frames, VmRSS {rss_kib()} KiB", file=sys.stderr)
                continue
            if m.type == Gst.MessageType.ERROR:
                error = m.parse_error()[0].message
            break
        rss_end = rss_kib()
        pipeline.set_state(Gst.State.NULL)
    if error:
        sys.exit(f"gst_soak: error: {error}")
    drift = 100.0 * (rss_end - rss_warm) / rss_warm if rss_warm else float("nan")
    print(f"gst_soak: {args.element} {args.properties}: {messages} nft-result messages, {received[0]} buffers at fakesink (of {args.frames}); target "
          f"found in {found}; VmRSS {rss_warm} KiB after {args.warmup} frames, {rss_end} KiB at the end: drift "
          f"{drift:+.2f} %")
    return 0 if messages == received[0] == args.frames else 1


if __name__ == "__main__":
    sys.exit(main())
