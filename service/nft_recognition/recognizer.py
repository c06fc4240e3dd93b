"""Recognition over a catalogue served by a Dask cluster (distributed): the shards live on the
cluster's workers (each worker's shards one actor, shard.ShardGroup), a query fans out to all of
them, and the shortlisted targets are verified on the workers that hold them. Dask's scheduler
runs the tasks and actors; nothing here queues, routes or schedules work of its own.

    query keypoints + descriptors ──► every shard: nearest() ──► merge_nearest() ──► votes_of()
        ──► the shortlisted targets' shards: verify() ──► the verified target of most inliers · √coverage

or, for a catalogue of the factory "words" (words.py), the query's words and word vector (made
here, with the catalogue's vocabulary) ──► every shard: shortlist_words(), its highest cosines
re-ranked by their spatially consistent word matches ──► the most consistent ──► verify() ...

A JPEG or PNG frame is described first by a task on any worker (features.describe_image).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from .catalogue import Catalogue
from .catalogue_index import DEFAULT_NPROBE, Vote, merge_nearest, votes_of
from .features import describe_image
from .shard import DEFAULT_MODEL_CACHE, MATCHERS, ShardGroup
from .words import DEFAULT_MIN_SPATIAL, DEFAULT_RERANK_DEPTH, Vocabulary


class _ShardHandle:
    """One shard of a worker's ShardGroup actor, called as the shard itself: handle.info() is
    group.call(shard, "info") (a Dask ActorFuture; .result() waits for it)."""

    def __init__(self, group, shard: int) -> None:
        self._group, self._shard = group, shard

    def __getattr__(self, method: str):
        return lambda *args: self._group.call(self._shard, method, *args)


@dataclasses.dataclass
class Recognition:
    """What recognize() found: target (its entry: id, name, width, height, width_m, keypoints) or None;
    homography 3×3 target working-image pixels → query pixels and quad 4×2 query pixels (None
    when nothing is found); score = inliers / matches of the verified target; the shortlist
    (target id, votes) and the time of each stage in ms."""

    target: Optional[dict]
    homography: Optional[list]
    quad: Optional[list]
    inliers: int
    score: float
    shortlist: List[Tuple[int, int]]
    shard: Optional[dict]
    time_ms: Dict[str, float]


class Recognizer:
    """Recognizer(client, catalogue): loads every shard of `catalogue` (a complete Catalogue) on
    the client's cluster, shard s on worker s mod W (Dask's `workers=` placement), each worker's
    shards one actor (ShardGroup: a query reaches each worker once), and answers queries;
    `shards[s]` calls shard s's methods (Shard) on its worker.

    ratio:          Lowe's ratio test of verification.
    shortlist_ratio: the votes' ratio test across targets (votes_of()); 1 = every descriptor votes
                    for its nearest target. A catalogue whose targets share content (two crops of
                    one page, a logo on many) loses the shared descriptors' votes to a stricter
                    one: on the 1,000-crop benchmark 0.8 kept the rendered target in the top 3
                    for 78 % of views, 1.0 for 93 % (scripts/bench-catalogue.py).
    max_candidates: shortlisted targets verified per query; None: 3 (for a "words" catalogue, the
                    3 of most spatially consistent word matches among each shard's `rerank_depth`
                    highest cosines).
    min_votes:      fewest votes for a target to be shortlisted.
    shortlist_descriptors: the query descriptors (the first: the strongest keypoints) that vote;
                    verification uses them all. The index's cost grows with them.
    nprobe:         inverted lists an IVF shard searches per descriptor.
    model_cache:    models each shard keeps in memory, the last verified (Shard).
    rerank_depth:   a "words" catalogue: the targets of highest cosine each shard re-ranks by their
                    spatially consistent word matches (Shard.shortlist_words()).
    min_spatial:    a "words" catalogue: fewest of those matches for a target to be verified.
    matcher:        the verification's descriptor matcher on each worker: "auto" (the GPU's,
                    unless it is a software rasteriser), "cpu" or "gpu" (Shard).
    Raises ValueError naming the shards a catalogue has not finished training, or RuntimeError
    when the cluster has no workers."""

    def __init__(self, client, catalogue: Catalogue, ratio: float = 0.8, max_candidates: Optional[int] = None,
                 min_votes: int = 3, shortlist_descriptors: int = 1500, nprobe: int = DEFAULT_NPROBE,
                 shortlist_ratio: float = 1.0, model_cache: int = DEFAULT_MODEL_CACHE,
                 rerank_depth: int = DEFAULT_RERANK_DEPTH, min_spatial: int = DEFAULT_MIN_SPATIAL,
                 matcher: str = "auto") -> None:
        missing = catalogue.missing_shards()
        if missing:
            raise ValueError(f"{catalogue.folder}: shards {missing} have not finished training "
                             "(nft-recognition build DIR --resume, or wait for the Slurm array)")
        workers = sorted(client.scheduler_info()["workers"])
        if not workers:
            raise RuntimeError("the Dask cluster has no workers")
        self.client, self.catalogue = client, catalogue
        if max_candidates is None:
            max_candidates = 3
        self.ratio, self.max_candidates, self.min_votes = ratio, max_candidates, min_votes
        self.rerank_depth, self.min_spatial = rerank_depth, min_spatial
        self.shortlist_descriptors, self.shortlist_ratio = shortlist_descriptors, shortlist_ratio
        self.vocabulary = Vocabulary.load(catalogue.vocabulary_path) if catalogue.uses_words else None
        vocabulary = catalogue.vocabulary_path if catalogue.uses_words else None
        if matcher not in MATCHERS:  # here, not on a worker: the message reaches the caller as it is
            raise ValueError(f"matcher: expected one of {', '.join(MATCHERS)}, got {matcher!r}")
        # Shard s on worker s mod W; each worker's shards one actor (ShardGroup), so a query reaches
        # each worker once.
        placed: Dict[str, List[int]] = {}
        for s in range(catalogue.shards):
            placed.setdefault(workers[s % len(workers)], []).append(s)
        futures = [client.submit(ShardGroup, [(s, catalogue.shard_folder(s)) for s in shards], nprobe, vocabulary,
                                 model_cache, matcher, actor=True, workers=[worker], allow_other_workers=False,
                                 pure=False)
                   for worker, shards in placed.items()]
        self.groups = [f.result() for f in futures]
        self._futures = futures  # the actors live as long as their futures
        self._group_of = {s: g for g, shards in enumerate(placed.values()) for s in shards}
        self.shards = [_ShardHandle(self.groups[self._group_of[s]], s) for s in range(catalogue.shards)]
        self._lock = threading.Lock()
        self._owner: Dict[int, int] = {}
        self._names: Dict[str, int] = {}
        infos = self.info()
        self._where = [i["where"] for i in infos]
        self.dim = int(infos[0]["dim"])  # descriptor length D of every shard
        if any(int(i["dim"]) != self.dim for i in infos):
            raise ValueError(f"{catalogue.folder}: shards of different descriptor lengths {[i['dim'] for i in infos]}")
        for s, actor in enumerate(self.shards):
            for t in actor.entries().result():
                self._owner[int(t["id"])] = s
                self._names[t["name"]] = int(t["id"])
        # Ids are never reused: a live addition takes one above every id a shard has held (an
        # app may keep a removed target's model under its id) and every entry of the catalogue.
        self._next_id = max([len(catalogue.entries), *(a.highest_id().result() for a in self.shards)]) + 1

    def info(self) -> List[dict]:
        """Each shard's folder, where it is served (host:pid of the worker), targets and descriptors."""
        return [f.result() for f in [a.info() for a in self.shards]]

    def target_count(self) -> int:
        """Targets in the catalogue now."""
        return len(self._owner)

    def recognize_image(self, data: bytes) -> Recognition:
        """recognize() on an encoded frame, described by a task on a worker (features.describe_image).
        Raises ValueError for bytes that are not an image."""
        start = time.perf_counter()
        keypoints, descriptors = self.client.submit(describe_image, data, pure=False).result()
        r = self.recognize(keypoints, descriptors)
        r.time_ms = dict(describe=(time.perf_counter() - start) * 1e3 - r.time_ms["total"], **r.time_ms)
        r.time_ms["total"] = (time.perf_counter() - start) * 1e3
        return r

    def recognize(self, keypoints: np.ndarray, descriptors: np.ndarray) -> Recognition:
        """Which target a query shows: keypoints M×2..5 float32 (x, y first, query pixels),
        descriptors M×D float32 unit rows (SURF-64 of SURF-ES or nft.CpuSurf), row i for
        keypoints[i]. Returns a Recognition (target None when none is verified)."""
        start = time.perf_counter()
        voters = descriptors[:self.shortlist_descriptors]
        if self.vocabulary is not None:
            votes = self._word_shortlist(voters, keypoints[:len(voters)])
        else:
            answers = {s: n for f in [g.nearest(voters) for g in self.groups] for s, n in f.result().items()}
            parts = [answers[s] for s in sorted(answers)]
            votes = votes_of(merge_nearest(parts), self.max_candidates, self.shortlist_ratio, self.min_votes)
        shortlisted = time.perf_counter()
        by_shard: Dict[int, List[Vote]] = {}
        for v in votes:
            s = self._owner.get(v.target_id)
            if s is not None:  # a target removed since the index answered is skipped
                by_shard.setdefault(s, []).append(v)
        # One call per worker with all its shards' candidates: the query travels to each worker once.
        by_group: Dict[int, Dict[int, List[int]]] = {}
        for s, vs in by_shard.items():
            by_group.setdefault(self._group_of[s], {})[s] = [v.target_id for v in vs]
        checks = [self.groups[g].verify(candidates, keypoints, descriptors, self.ratio)
                  for g, candidates in by_group.items()]
        results = {s: r for f in checks for s, r in f.result().items()}
        best, best_key = None, None
        rank = {v.target_id: i for i, v in enumerate(votes)}
        for s, vs in by_shard.items():
            for v, result in zip(vs, results[s]):
                # Most inliers over most of the target: a target that shares the view's content only
                # in part (an overlapping crop of one page) has fewer inliers, over less of itself.
                # On the 10,000-target benchmark, 74 → 78 % and 72 → 79 % recall@1 against inliers alone.
                key = (result["inliers"] * np.sqrt(result["coverage"]), -rank[v.target_id])  # a tie: the higher-ranked
                if result["verified"] and (best is None or key > best_key):
                    best, best_key = (v, s, result), key
        end = time.perf_counter()
        time_ms = {"shortlist": (shortlisted - start) * 1e3, "verify": (end - shortlisted) * 1e3,
                   "total": (end - start) * 1e3}
        shortlist = [(v.target_id, v.votes) for v in votes]
        if best is None:
            return Recognition(None, None, None, 0, 0.0, shortlist, None, time_ms)
        v, s, result = best
        return Recognition(result["target"], result["homography"], result["quad"], result["inliers"],
                           result["inliers"] / max(result["matches"], 1), shortlist,
                           {"shard": s, "where": self._where[s]}, time_ms)

    def _word_shortlist(self, descriptors: np.ndarray, keypoints: np.ndarray) -> List[Vote]:
        """Each shard's `rerank_depth` targets of highest cosine with the query's word vector,
        re-ranked by their spatially consistent word matches (Shard.shortlist_words()); the
        `max_candidates` with most of them and at least `min_spatial` (ties: the higher cosine),
        each a Vote whose `votes` is that count. A shard written without layouts answers -1 for
        its targets, which are then ranked by cosine after those that have one."""
        words = self.vocabulary.quantize(descriptors)
        query = self.vocabulary.vector_of_words(words)
        keypoints = np.ascontiguousarray(np.asarray(keypoints, np.float32)[:, :4])  # x, y[, scale, angle]
        parts = [g.shortlist_words(query, words, keypoints, self.rerank_depth) for g in self.groups]
        scored = [x for f in parts for x in f.result()]
        scored = [x for x in scored if x[2] < 0 or x[2] >= self.min_spatial]
        scored.sort(key=lambda x: (-x[2], -x[1], x[0]))
        return [Vote(t, spatial) for t, _, spatial in scored[:self.max_candidates]]

    def model(self, target_id: int) -> Optional[Tuple[dict, bytes]]:
        """A target's entry and its model file (.nftm) as bytes, read by the worker that holds it;
        None when unknown."""
        s = self._owner.get(int(target_id))
        return None if s is None else self.shards[s].model(int(target_id)).result()

    def target(self, target_id: int) -> Optional[dict]:
        """A target's entry (id, name, width, height, width_m, keypoints), or None."""
        s = self._owner.get(int(target_id))
        return None if s is None else self.shards[s].target(int(target_id)).result()

    def add_target(self, name: str, image: np.ndarray, width_m: float = 0.0) -> dict:
        """Adds a target to the live catalogue, on the shard with the fewest targets: trained on
        that shard's worker, answered by the next query, written to the shard's files. Returns its
        entry. Raises ValueError for a name already taken; nft.InputError for a plain image."""
        with self._lock:
            if name in self._names:
                raise ValueError(f"name: '{name}' is already target {self._names[name]}")
            target_id = self._next_id
            counts = [0] * len(self.shards)
            for s in self._owner.values():
                counts[s] += 1
            s = int(np.argmin(counts))
            entry = self.shards[s].add_target(target_id, name, image, width_m).result()
            self._next_id += 1
            self._owner[target_id] = s
            self._names[name] = target_id
        return entry

    def remove_target(self, target_id: int) -> bool:
        """Removes a target from the live catalogue and its shard's files; False when unknown."""
        with self._lock:
            s = self._owner.pop(int(target_id), None)
            if s is None:
                return False
            del self._names[self.shards[s].remove_target(int(target_id)).result()["name"]]
        return True
