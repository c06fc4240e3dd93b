#!/usr/bin/python3
"""The recognition service's scale benchmark (issue 48, item 4): a synthetic catalogue of N targets
(scripts/make-distractors.py: crops of Debian's wallpapers and photographs; two crops of one
photograph may share up to half their area, as a catalogue's pages share logos), built in shards,
served by `service/nft-recognition serve` on local Dask workers, and asked over HTTP as a client
asks: keypoints + descriptors (FAST + CPU SURF, as the Session computes them) of

  - views rendered from catalogue targets: the target covering 1/4 to 1/2 of a 640×480 frame,
    tilted up to 45° about a random axis in its plane, turned up to ±30°, over a frame of a real
    clip (../shared/data/video, books that are not in the catalogue), with one of the presets'
    degradations (none, Gaussian blur σ 1.2, noise σ 6, JPEG quality 60);
  - frames of those clips alone, which show none of the catalogue's targets.

Reports recall@1 (the rendered target answered), wrong answers (and among them, crops of the same
photograph that overlap the rendered one: the content shown, under another id), false positives (a target answered
on a frame that shows none), p50 / p99 latency per query (HTTP round trip, keypoints + descriptors
in), the service's stages, the memory of each worker (peak RSS) and of the indexes, and the build
time of each shard task. Writes RESULTS.json and RESULTS.md in --work.

  scripts/bench-catalogue.py --targets 1000 [--shards 4] [--jobs 2] [--workers 2] [--queries 200]
                             [--negatives 100] [--factory Flat] [--mirror] [--work /tmp/nft-catalogue-bench]

--factory words: the shortlist by visual words (service/nft_recognition/words.py); --mirror: the
crops of mirrored photographs too (make-distractors.py --mirror), for 10,000 targets and more.

Needs the nft module on PYTHONPATH (build/release/python) and scripts/install-deps.sh service.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "service"))
LAUNCHER = os.path.join(ROOT, "service", "nft-recognition")
FRAME = (640, 480)
DEGRADATIONS = ("none", "blur", "noise", "jpeg")


def log(message):
    print(f"bench-catalogue: {message}", file=sys.stderr, flush=True)


def clip_frames(data, count, rng):
    """`count` grey 640×480 frames spread over the real clips of data/video (none shows a target)."""
    clips = [os.path.join(data, "video", c, f) for c, f in
             (("korean_book", "video.mp4"), ("tmt_bookI", "video.mp4"), ("cmu_book", "book.mp4"))]
    clips = [c for c in clips if os.path.exists(c)]
    if not clips:
        sys.exit(f"bench-catalogue: no clip in {data}/video (check out shared/ or pass --data)")
    frames = []
    for i, clip in enumerate(clips):
        cap = cv2.VideoCapture(clip)
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        want = count // len(clips) + (i < count % len(clips))
        for index in sorted(rng.choice(total, size=min(want, total), replace=False)):
            cap.set(cv2.CAP_PROP_POS_FRAMES, int(index))
            ok, frame = cap.read()
            if ok:
                frames.append(cv2.resize(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), FRAME))
    return frames


def render_view(target, background, rng):
    """The target warped into the frame (1/4-1/2 of its area, tilt <= 45°, turn <= 30°) over
    `background`, with a random degradation → (image, degradation, quad)."""
    h, w = target.shape
    tilt, axis, turn = np.radians(rng.uniform(0, 45)), rng.uniform(0, 2 * np.pi), np.radians(rng.uniform(-30, 30))
    f = 600.0
    # The target's plane, centred, in units of its width; rotated and pushed back along z.
    corners = np.array([[-0.5, -0.5 * h / w, 0], [0.5, -0.5 * h / w, 0], [0.5, 0.5 * h / w, 0], [-0.5, 0.5 * h / w, 0]])
    k = np.array([np.cos(axis), np.sin(axis), 0.0])
    R = cv2.Rodrigues(k * tilt)[0] @ cv2.Rodrigues(np.array([0, 0, turn]))[0]
    fraction = rng.uniform(0.25, 0.5)
    for _ in range(20):
        p = corners @ R.T
        quad = None
        # Nearest first: the largest view of this area; past 4 widths only for tall targets (a 480×157
        # crop is taller than the frame at 4).
        for z in np.concatenate([np.linspace(0.6, 4.0, 200), np.linspace(4.2, 12.0, 40)]):
            q = f * p[:, :2] / (p[:, 2:] + z)
            # In front of the camera, and no larger than the fraction (a corner behind it makes a
            # crossed quad whose area can look small).
            if (p[:, 2] + z > 0.05).all() and cv2.contourArea(q.astype(np.float32)) <= fraction * FRAME[0] * FRAME[1]:
                quad = q
                break
        if quad is None:  # larger than the fraction even at the farthest: that view, shrunk below
            quad = q
        span = quad.max(axis=0) - quad.min(axis=0)
        if (span < np.array(FRAME) - 4).all():
            break
        fraction *= 0.9
    offset = np.array(FRAME) / 2 - (quad.max(axis=0) + quad.min(axis=0)) / 2
    slack = (np.array(FRAME) - span) / 2 - 2
    quad = quad + offset + rng.uniform(-slack, slack)
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad.astype(np.float32))
    fg = cv2.warpPerspective(target, H, FRAME, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full(target.shape, 255, np.uint8), H, FRAME, flags=cv2.INTER_NEAREST)
    image = np.where(mask > 0, fg, background)
    kind = DEGRADATIONS[rng.integers(len(DEGRADATIONS))]
    if kind == "blur":
        image = cv2.GaussianBlur(image, (0, 0), 1.2)
    elif kind == "noise":
        image = np.clip(image + rng.normal(0, 6, image.shape), 0, 255).astype(np.uint8)
    elif kind == "jpeg":
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 60])[1], cv2.IMREAD_GRAYSCALE)
    return image, kind, quad


def features(image):
    from nft_recognition.features import describe
    from nft_recognition.payload import pack

    keypoints, descriptors = describe(image)
    return json.dumps({"keypoints": pack(keypoints), "descriptors": pack(descriptors)}).encode()


def build(args, crops, catalogue):
    if os.path.exists(os.path.join(catalogue, "catalogue.json")):
        log(f"reusing the catalogue in {catalogue}")
        return None
    start = time.monotonic()
    run = subprocess.run([sys.executable, LAUNCHER, "build", os.path.join(crops, "targets.txt"), "--out", catalogue,
                          "--shards", str(args.shards), "--jobs", str(args.jobs), "--factory", args.factory])
    if run.returncode != 0:
        sys.exit("bench-catalogue: the build failed (its output is above)")
    return time.monotonic() - start


def worker_rss_mb(pid):
    """Peak RSS (VmHWM) of each Dask worker process (the spawned children of the service), MiB."""
    out = []
    for child in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split():
        try:
            if "spawn_main" not in open(f"/proc/{child}/cmdline").read():
                continue
            with open(f"/proc/{child}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            out.append(int(fields["VmHWM"].split()[0]) / 1024)
        except (OSError, KeyError, ValueError):
            pass
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--targets", type=int, default=1000)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--negatives", type=int, default=100)
    p.add_argument("--factory", default="Flat")
    p.add_argument("--mirror", action="store_true", help="make-distractors.py --mirror: twice the sources")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", default=os.environ.get("NFT_DATA_DIR", os.path.join(ROOT, "..", "shared", "data")))
    p.add_argument("--work", default="/tmp/nft-catalogue-bench")
    args = p.parse_args()
    import httpx

    rng = np.random.default_rng(args.seed)
    mirror = "-mirror" if args.mirror else ""
    crops = os.path.join(args.work, f"crops-{args.targets}{mirror}")
    factory = args.factory.replace(",", "_")
    catalogue = os.path.join(args.work, f"catalogue-{args.targets}{mirror}-{args.shards}-{factory}")
    if not os.path.exists(os.path.join(crops, "targets.txt")):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-distractors.py"), crops, "--count",
                        str(args.targets), "--data", args.data, "--seed", str(args.seed)]
                       + (["--mirror"] if mirror else []), check=True)
    build_s = build(args, crops, catalogue)
    from nft_recognition.catalogue import Catalogue
    from nft_recognition.client import RecognitionClient, RecognitionError

    cat = Catalogue(catalogue)
    reports = [cat.shard_report(s) for s in range(cat.shards)]
    trained = {t["id"]: t for r in reports for t in r["targets"]}
    photo_of = {}  # a crop's photograph and rectangle (SOURCES.tsv): overlapping crops show the same place
    with open(os.path.join(crops, "SOURCES.tsv")) as f:
        for line in list(f)[1:]:
            name, photo, x, y, w, h = line.rstrip("\n").split("\t")
            photo_of[name] = (photo, int(x), int(y), int(w), int(h))
    names = {i + 1: e.name for i, e in enumerate(cat.entries)}

    def overlapping(a, b):
        pa, pb = photo_of.get(names.get(a)), photo_of.get(names.get(b))
        if not pa or not pb or pa[0] != pb[0]:
            return False
        return max(pa[1], pb[1]) < min(pa[1] + pa[3], pb[1] + pb[3]) and max(pa[2], pb[2]) < min(pa[2] + pa[4], pb[2] + pb[4])

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, LAUNCHER, "serve", catalogue, "--port", str(port), "--workers",
                               str(args.workers), "--no-auth"], start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            RecognitionClient(url).wait_ready(600, server)
        except RecognitionError as e:
            sys.exit(f"bench-catalogue: {e}")
        client = httpx.Client(base_url=url, timeout=120)
        shards = client.get("/shards").json()
        backgrounds = clip_frames(args.data, args.queries + args.negatives, rng)
        ids = rng.choice(sorted(trained), size=args.queries, replace=len(trained) < args.queries)
        rows = []
        for n, (target_id, background) in enumerate(zip(ids, backgrounds[:args.queries]), 1):
            target = cv2.imread(cat.entries[target_id - 1].image, cv2.IMREAD_GRAYSCALE)
            image, kind, quad = render_view(target, background, rng)
            body = features(image)
            t = time.perf_counter()
            a = client.post("/recognize", content=body, headers={"Content-Type": "application/json"}).json()
            ms = (time.perf_counter() - t) * 1e3
            answer = a["target"]["id"] if a.get("found") else None
            rows.append({"kind": "view", "target": int(target_id), "degradation": kind, "answer": answer, "ms": ms,
                         "stages": a["time_ms"], "shortlisted": int(target_id) in [t for t, _ in a["shortlist"]]})
            if n % 25 == 0:
                log(f"{n}/{args.queries} views")
        for frame in backgrounds[args.queries:]:
            body = features(frame)
            t = time.perf_counter()
            a = client.post("/recognize", content=body, headers={"Content-Type": "application/json"}).json()
            rows.append({"kind": "none", "answer": a["target"]["id"] if a.get("found") else None,
                         "ms": (time.perf_counter() - t) * 1e3, "stages": a["time_ms"]})
        rss = worker_rss_mb(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)  # the server stops its Dask workers itself
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    views = [r for r in rows if r["kind"] == "view"]
    nones = [r for r in rows if r["kind"] == "none"]
    ms = np.array([r["ms"] for r in rows[5:]])
    # The shortlist's files: each shard's FAISS index, or its word vectors and the vocabulary.
    index_files = [os.path.join(cat.shard_folder(s), "words.npz" if cat.uses_words else "index.faiss")
                   for s in range(cat.shards)] + ([cat.vocabulary_path] if cat.uses_words else [])
    index_mb = sum(os.path.getsize(f) for f in index_files) / 2**20
    result = {
        "targets": len(trained), "asked": len(cat.entries), "shards": cat.shards, "workers": args.workers,
        "factory": args.factory, "mirror": bool(args.mirror),
        "descriptors": sum(s["descriptors"] for s in shards),
        "recall_at_1": float(np.mean([r["answer"] == r["target"] for r in views])),
        "wrong": float(np.mean([r["answer"] not in (None, r["target"]) for r in views])),
        "wrong_overlapping_crop": float(np.mean([r["answer"] not in (None, r["target"]) and overlapping(r["answer"], r["target"])
                                                 for r in views])),
        "in_shortlist": float(np.mean([r["shortlisted"] for r in views])),
        "recall_by_degradation": {k: float(np.mean([r["answer"] == r["target"] for r in views if r["degradation"] == k]))
                                  for k in DEGRADATIONS if any(r["degradation"] == k for r in views)},
        "false_positives": float(np.mean([r["answer"] is not None for r in nones])) if nones else None,
        "p50_ms": float(np.percentile(ms, 50)), "p99_ms": float(np.percentile(ms, 99)),
        "stage_p50_ms": {k: float(np.median([r["stages"][k] for r in rows])) for k in ("shortlist", "verify", "total")},
        "worker_peak_rss_mb": rss, "index_mb": index_mb,
        "build_s": build_s, "shard_task_s": [r["seconds"] for r in reports],
        "queries": len(views), "negatives": len(nones),
    }
    os.makedirs(args.work, exist_ok=True)
    tag = f"{args.targets}{mirror}-{args.shards}-{factory}"
    with open(os.path.join(args.work, f"RESULTS-{tag}.json"), "w") as f:
        json.dump(result, f, indent=1)
    line = (f"| {result['targets']} | {cat.shards} × {args.factory} | {result['recall_at_1']:.1%} | {result['wrong']:.1%} | "
            f"{result['false_positives']:.1%} | {result['p50_ms']:.0f} / {result['p99_ms']:.0f} | "
            f"{result['stage_p50_ms']['shortlist']:.0f} / {result['stage_p50_ms']['verify']:.0f} | "
            f"{' / '.join(f'{x:.0f}' for x in rss)} | {index_mb:.0f} | "
            f"{sum(result['shard_task_s']):.0f} ({max(result['shard_task_s']):.0f} per task) |")
    print("| targets | shards × index | recall@1 | wrong | false positives | p50 / p99 ms | shortlist / verify ms |"
          " worker peak RSS MiB | index MiB | training s (longest task) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(line)
    print(json.dumps(result["recall_by_degradation"]))


if __name__ == "__main__":
    main()
