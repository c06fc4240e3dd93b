"""nft-recognition: build a catalogue and serve recognition over it (service/nft-recognition).

    nft-recognition build LIST --out DIR [--shards N] [--jobs J | --slurm ...]
    nft-recognition train-shard DIR SHARD        one shard (what each array task runs)
    nft-recognition status DIR
    nft-recognition serve DIR [--port 8080] [--workers 2 | --scheduler tcp://HOST:8786]
                              [--cors-origin https://app.example ...]

docs/catalogue_recognition.md has the whole story: the layout, the HTTP API, several machines.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
import time

from .catalogue import Catalogue, read_list
from .catalogue_index import DEFAULT_NPROBE
from .shard import MATCHERS
from .words import DEFAULT_MIN_SPATIAL, DEFAULT_RERANK_DEPTH

SERVICE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCALHOST = ("127.0.0.1", "localhost", "::1")
# An origin as a browser sends it: lower-case http(s), a host name, IPv4 or [IPv6] address, a port.
ORIGIN = re.compile(r"(https?)://([a-z0-9]([a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(:(\d{1,5}))?")


def valid_origin(text: str) -> bool:
    """Is `text` a CORS origin --cors-origin accepts: exactly "*", or scheme://host[:port] with the
    scheme http or https, a lower-case host, a port 1-65535 and no path (not even a trailing /)?"""
    if text == "*":
        return True
    m = ORIGIN.fullmatch(text)
    return m is not None and (m.group(5) is None or 1 <= int(m.group(5)) <= 65535)


def _build(args) -> int:
    from .build import build_local, submit_slurm, train_vocabulary

    if args.resume:
        catalogue = Catalogue(args.out)
    else:
        entries = read_list(args.list)
        catalogue = Catalogue.create(args.out, entries, args.shards, args.factory)
    print(f"nft-recognition: {len(catalogue.entries)} targets in {catalogue.shards} shards, {catalogue.folder}",
          file=sys.stderr)
    if catalogue.uses_words and not os.path.exists(catalogue.vocabulary_path):
        start, last = time.monotonic(), [0.0]

        def progress(done, total, name):
            if time.monotonic() - last[0] > 2 or done == total:
                last[0] = time.monotonic()
                print(f"vocabulary: {done}/{total} sampled targets trained ({name})", file=sys.stderr, flush=True)

        vocabulary = train_vocabulary(catalogue, args.vocabulary_sample, progress=progress)
        print(f"nft-recognition: {vocabulary.size} words, {time.monotonic() - start:.1f} s", file=sys.stderr)
    if args.slurm:
        job = submit_slurm(catalogue, args.partition, args.time, args.cpus_per_task)
        print(job or "", flush=True)  # the job id alone on stdout, for scripts (empty: nothing left to train)
        if job:
            print(f"nft-recognition: submitted array job {job}; `nft-recognition status {catalogue.folder}` "
                  "tells when it is complete", file=sys.stderr)
        return 0
    failed = build_local(catalogue, args.jobs)
    if failed:
        print(f"nft-recognition: shards {failed} failed (their output is above); --resume retrains them",
              file=sys.stderr)
        return 1
    return _status(argparse.Namespace(dir=catalogue.folder))


def _train_shard(args) -> int:
    from .build import train_shard

    catalogue = Catalogue(args.dir)
    last = [0.0]

    def progress(done, total, name):
        if time.monotonic() - last[0] > 2 or done == total:  # a progress line, not one per target
            last[0] = time.monotonic()
            print(f"shard {args.shard}: {done}/{total} trained ({name})", file=sys.stderr, flush=True)

    report = train_shard(catalogue, args.shard, progress)
    for s in report["skipped"]:
        print(f"shard {args.shard}: skipped {s['name']}: {s['error']}", file=sys.stderr)
    print(f"shard {args.shard}: {len(report['targets'])} targets, {report['descriptors']} descriptors, "
          f"{report['seconds']:.1f} s", file=sys.stderr)
    return 0


def _status(args) -> int:
    catalogue = Catalogue(args.dir)
    missing = catalogue.missing_shards()
    targets = skipped = 0
    for s in range(catalogue.shards):
        r = catalogue.shard_report(s)
        if r:
            targets += len(r["targets"])
            skipped += len(r["skipped"])
    state = "complete" if not missing else f"incomplete: shards {missing} not trained yet"
    print(f"{catalogue.folder}: {targets} targets trained, {skipped} skipped, "
          f"{catalogue.shards - len(missing)}/{catalogue.shards} shards, {state}")
    return 0 if not missing else 3


def _token(args) -> str | None:
    if args.no_auth:
        if args.host not in LOCALHOST:
            raise SystemExit(f"nft-recognition: --no-auth is for localhost only (--host {args.host}): "
                             "give a token with --token-file or NFT_RECOGNITION_TOKEN")
        return None
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as f:
            token = f.read().strip()
        if len(token) < 16:
            raise SystemExit(f"nft-recognition: {args.token_file}: the token is {len(token)} characters, at least 16")
        return token
    token = os.environ.get("NFT_RECOGNITION_TOKEN")
    if token:
        return token
    token = secrets.token_urlsafe(24)
    print(f"nft-recognition: no token given; this run's token: {token}", file=sys.stderr)
    return token


def _serve(args) -> int:
    import uvicorn
    import dask
    from distributed import Client, LocalCluster
    from threadpoolctl import threadpool_limits

    from .http_api import create_app
    from .recognizer import Recognizer

    token = _token(args)
    catalogue = Catalogue(args.dir)
    # Workers (spawned processes, or dask-worker elsewhere) import this package and nft as we do.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [SERVICE_DIR, os.environ.get("PYTHONPATH", "")] if p)
    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        dask.config.set({"distributed.nanny.pre-spawn-environ": worker_environment()})
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40)
        client = Client(cluster)
    # The front's BLAS products are small (a query's descriptors against one coarse centre's words
    # at a time, Vocabulary.quantize()): a second OpenBLAS thread, waking beside the workers, cost
    # more than it gave — a query's quantisation took 20 ms at p50 instead of 6.
    threadpool_limits(1, user_api="blas")
    try:
        start = time.monotonic()
        recognizer = Recognizer(client, catalogue, max_candidates=args.candidates, nprobe=args.nprobe,
                                model_cache=args.model_cache, shortlist_descriptors=args.shortlist_descriptors,
                                rerank_depth=args.rerank_depth, min_spatial=args.min_spatial, matcher=args.matcher)
        workers = len(client.scheduler_info()["workers"])
        print(f"nft-recognition: {recognizer.target_count()} targets in {catalogue.shards} shards on {workers} "
              f"workers, loaded in {time.monotonic() - start:.1f} s; serving http://{args.host}:{args.port}",
              file=sys.stderr, flush=True)
        app = create_app(recognizer, token, int(args.max_upload_mb * (1 << 20)), cors_origins=args.cors_origin)
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


# glibc's allocator in the service's workers: Dask's nannies spawn workers with
# MALLOC_TRIM_THRESHOLD_=65536 (memory given back sooner), and a threshold set at all turns off
# glibc's dynamic mmap threshold, so every allocation over 128 KiB — a model read, a query's
# descriptors, the matcher's table — is a fresh mmap and its page faults: in a worker a candidate's
# verification took 12.6 ms and a model's read 6.8 ms, against 6.0 and 1.2 ms with these (1,000-
# target catalogue, nft.CpuMatcher). Workers started elsewhere (dask-worker) get them from its
# environment (docs/catalogue_recognition.md).
WORKER_MALLOC = {"MALLOC_TRIM_THRESHOLD_": 64 << 20, "MALLOC_MMAP_THRESHOLD_": 32 << 20}


def worker_environment() -> dict:
    """Dask's distributed.nanny.pre-spawn-environ (the variables a nanny sets before it spawns
    a worker: one thread for OpenMP and BLAS) with WORKER_MALLOC's."""
    import dask

    return {**dask.config.get("distributed.nanny.pre-spawn-environ", {}), **WORKER_MALLOC}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nft-recognition", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="train a catalogue from a target list, in shards")
    b.add_argument("list", nargs="?", help="target list: 'name image [width_m]' per line (nft_train --list's format)")
    b.add_argument("--out", required=True, help="the catalogue folder to make")
    b.add_argument("--shards", type=int, default=1, help="shards (array tasks; default 1)")
    b.add_argument("--factory", default="Flat",
                   help="the shortlist's index per shard: a FAISS factory over every descriptor, Flat (exact, "
                   "default) or IVFn,SQ8; or words (visual words: for catalogues of 10,000 targets and more)")
    b.add_argument("--vocabulary-sample", type=int, default=300,
                   help="with --factory words: entries whose descriptors train the words (default 300)")
    b.add_argument("--jobs", type=int, default=1, help="shard tasks at a time on this machine (default 1)")
    b.add_argument("--resume", action="store_true", help="train the shards of --out not finished yet")
    b.add_argument("--slurm", action="store_true", help="submit the shards as a Slurm job array (sbatch) and return")
    b.add_argument("--partition", help="Slurm partition (default: the cluster's)")
    b.add_argument("--time", default="01:00:00", help="Slurm time limit per task (default 01:00:00)")
    b.add_argument("--cpus-per-task", type=int, default=1, help="Slurm CPUs per task (default 1)")
    b.set_defaults(run=_build)

    t = sub.add_parser("train-shard", help="train one shard of a catalogue (an array task)")
    t.add_argument("dir", help="the catalogue folder")
    t.add_argument("shard", type=int, help="the shard, from 0")
    t.set_defaults(run=_train_shard)

    s = sub.add_parser("status", help="is a catalogue complete? (exit 0 yes, 3 no)")
    s.add_argument("dir", help="the catalogue folder")
    s.set_defaults(run=_status)

    v = sub.add_parser("serve", help="serve recognition over a catalogue (HTTP, Dask workers)")
    v.add_argument("dir", help="the catalogue folder (on every worker's machine at the same path)")
    v.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    v.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    v.add_argument("--workers", type=int, default=2, help="local Dask worker processes (default 2)")
    v.add_argument("--scheduler", help="a running Dask scheduler (tcp://HOST:8786) instead of local workers")
    v.add_argument("--token-file", help="file holding the bearer token (else $NFT_RECOGNITION_TOKEN, else a new one)")
    v.add_argument("--no-auth", action="store_true", help="no token (allowed with a localhost --host only)")
    v.add_argument("--max-upload-mb", type=float, default=8.0, help="largest request body, MiB (default 8)")
    v.add_argument("--model-cache", type=int, default=1000,
                   help="target models each shard keeps in memory, the last verified (default 1000, ~0.6 MiB each)")
    v.add_argument("--candidates", type=int, default=None,
                   help="shortlisted targets verified per query (default 3)")
    v.add_argument("--rerank-depth", type=int, default=DEFAULT_RERANK_DEPTH,
                   help="a words catalogue: targets of highest cosine each shard re-ranks by their spatially "
                        f"consistent word matches (default {DEFAULT_RERANK_DEPTH})")
    v.add_argument("--min-spatial", type=int, default=DEFAULT_MIN_SPATIAL,
                   help="a words catalogue: fewest spatially consistent word matches for a target to be verified "
                        f"(default {DEFAULT_MIN_SPATIAL})")
    v.add_argument("--matcher", choices=MATCHERS, default="auto",
                   help="the verification's descriptor matcher: auto (default: the GPU's, or the CPU's where the GPU is "
                        "a software rasteriser such as llvmpipe), cpu or gpu")
    v.add_argument("--nprobe", type=int, default=DEFAULT_NPROBE,
                   help=f"inverted lists an IVF index searches (default {DEFAULT_NPROBE})")
    v.add_argument("--shortlist-descriptors", type=int, default=1500,
                   help="query descriptors (strongest first) that vote for the shortlist (default 1500)")
    v.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                   help="an origin (scheme://host[:port], or *) whose web pages may call the service with fetch() "
                        "(CORS; repeatable; default none: no CORS headers)")
    v.set_defaults(run=_serve)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.command == "build" and not args.resume and not args.list:
        parser().error("build: a target LIST is needed (or --resume --out DIR)")
    for name in ("shards", "jobs", "workers", "candidates", "nprobe", "shortlist_descriptors", "vocabulary_sample",
                 "model_cache", "rerank_depth"):
        if (getattr(args, name, 1) or 1) < 1:  # None: the default
            parser().error(f"--{name.replace('_', '-')}: expected >= 1, got {getattr(args, name)}")
    for origin in getattr(args, "cors_origin", []):  # before serve starts anything
        if not valid_origin(origin):
            parser().error(f"--cors-origin: expected scheme://host[:port] (http or https, lower case, no path or "
                           f"trailing /) or *, got {origin!r}")
    try:
        return args.run(args)
    except (FileNotFoundError, ValueError, RuntimeError, OSError) as e:
        print(f"nft-recognition: {e}", file=sys.stderr)
        return 2
