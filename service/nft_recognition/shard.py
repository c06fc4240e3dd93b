"""One shard of a catalogue in a worker's memory: its shortlist index, its targets' models, and
the verification of its own targets — a Dask actor (distributed.Actor) the scheduler places on a
worker, so the data of a shard never moves between workers; a query's descriptors do.

The actor's methods run on the worker's single actor thread (distributed's "actor" executor), so
the GL context of its nft.GpuMatcher, made on the first verification, stays current on the thread
that uses it, and a shard's changes (add_target, remove_target) never race its queries.
"""

from __future__ import annotations

import collections
import os
import socket
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .catalogue import read_json, trained_entry, write_json
from .catalogue_index import DEFAULT_NPROBE, CatalogueIndex, Nearest
from .verification import verify_target
from .words import Vocabulary, WordIndex, word_entry

PUBLIC_FIELDS = ("id", "name", "width", "height", "width_m", "keypoints")


def public_entry(entry: dict) -> dict:
    """What clients see of a target's entry: id, name, working-image width and height (pixels),
    width_m (metres) and keypoints; not where its files are."""
    return {k: entry[k] for k in PUBLIC_FIELDS}


DEFAULT_MODEL_CACHE = 1000  # models a shard keeps in memory (about 0.6 MiB each), the last verified
MATCHERS = ("auto", "cpu", "gpu")  # the verification's descriptor matcher (Shard._make_matcher())


class Shard:
    """Shard(folder, nprobe=DEFAULT_NPROBE, vocabulary=None, model_cache=DEFAULT_MODEL_CACHE, matcher="auto"):
    loads a shard written by build.train_shard() (targets.json, and index.faiss or, with the path
    of its catalogue's vocabulary.npz, words.npz) and answers for its targets; nprobe: the inverted
    lists an IVF index searches per descriptor (CatalogueIndex.set_nprobe()). The targets' models
    (models/*.nftm) are read when a query first needs them and the last `model_cache` used are
    kept: a shard's memory is its index and that cache, not every model (0.6 MiB each: 60 GB for
    100,000 targets), and it starts without reading them all. matcher: the verification's
    descriptor matcher, "gpu" (nft.GpuMatcher), "cpu" (nft.CpuMatcher: the same matches) or
    "auto": the GPU's unless it is a software rasteriser such as llvmpipe.

    Raises FileNotFoundError or ValueError naming the file that is missing or malformed, or
    naming another matcher."""

    def __init__(self, folder: str, nprobe: int = DEFAULT_NPROBE, vocabulary: Optional[str] = None,
                 model_cache: int = DEFAULT_MODEL_CACHE, matcher: str = "auto") -> None:
        import nft  # the project's module (the worker's, not the front's)

        if matcher not in MATCHERS:
            raise ValueError(f"matcher: expected one of {', '.join(MATCHERS)}, got {matcher!r}")
        self._matcher_kind = matcher

        self._nft = nft
        self.folder = os.path.abspath(folder)
        self._report = read_json(os.path.join(self.folder, "targets.json"), "shard report")
        self.index: Optional[CatalogueIndex] = None
        self.words: Optional[WordIndex] = None
        self.vocabulary: Optional[Vocabulary] = None
        if vocabulary:
            self.vocabulary = Vocabulary.load(vocabulary)
            self.words = WordIndex.load(os.path.join(self.folder, "words.npz"))
            indexed = self.words.target_ids()
        else:
            self.index = CatalogueIndex.load(os.path.join(self.folder, "index.faiss"))
            self.index.set_nprobe(nprobe)
            indexed = self.index.target_ids()
        self._targets: Dict[int, dict] = {}
        self._models: "collections.OrderedDict[int, object]" = collections.OrderedDict()  # least recently used first
        self._model_cache = max(int(model_cache), 1)
        for t in self._report.get("targets", []):
            self._targets[int(t["id"])] = t
            if not os.path.exists(os.path.join(self.folder, t["model"])):
                raise FileNotFoundError(f"{os.path.join(self.folder, t['model'])}: no such file (the model of target "
                                        f"{t['id']} in targets.json)")
        missing = set(self._targets) ^ set(indexed)
        if missing:
            raise ValueError(f"{self.folder}: targets.json and {'words.npz' if self.words else 'index.faiss'} "
                             f"disagree on targets {sorted(missing)[:10]}")
        self._matcher = None
        self.where = f"{socket.gethostname()}:{os.getpid()}"

    def info(self) -> dict:
        """The shard's folder, where it is served (host:pid), targets, descriptor length and count,
        and the models in memory now."""
        dim = self.vocabulary.dim if self.vocabulary else self.index.dim
        return {"folder": self.folder, "where": self.where, "targets": len(self._targets), "dim": dim,
                "descriptors": self._descriptor_count(), "models_in_memory": len(self._models)}

    def _descriptor_count(self) -> int:
        if self.index is not None:
            return self.index.descriptor_count
        return sum(int(t["keypoints"]) for t in self._targets.values())

    def entries(self) -> List[dict]:
        """Every target entry of this shard (id, name, model file, size)."""
        return list(self._targets.values())

    def highest_id(self) -> int:
        """The highest target id this shard has held: its targets' and those removed from it
        (kept in targets.json as "removed"), 0 for none; so a live addition never takes an id an
        app may have cached another target's model under."""
        return max([0, *self._targets, *(int(i) for i in self._report.get("removed", []))])

    def model(self, target_id: int) -> Optional[Tuple[dict, bytes]]:
        """A target's public entry and its model file (.nftm) as bytes: what an app downloads;
        None for a target not in this shard."""
        t = self._targets.get(int(target_id))
        if t is None:
            return None
        with open(os.path.join(self.folder, t["model"]), "rb") as f:
            return public_entry(t), f.read()

    def target(self, target_id: int) -> Optional[dict]:
        """The public entry of a target of this shard (public_entry()), or None."""
        t = self._targets.get(int(target_id))
        return public_entry(t) if t else None

    def nearest(self, descriptors: np.ndarray, neighbours: int = 8) -> Nearest:
        """CatalogueIndex.nearest() over this shard's targets (M×D float32 query descriptors).
        Raises ValueError for a shard shortlisted by words."""
        if self.index is None:
            raise ValueError(f"{self.folder}: shortlisted by words (score_words()), not by descriptors")
        return self.index.nearest(descriptors, neighbours)

    def score_words(self, query, top: int) -> List[Tuple[int, float]]:
        """WordIndex.score() over this shard's targets: the `top` (target id, cosine) for a query's
        1×K word vector (Vocabulary.vector()). Raises ValueError for a shard with a descriptor index."""
        if self.words is None:
            raise ValueError(f"{self.folder}: shortlisted by its descriptor index (nearest()), not by words")
        return self.words.score(query, top)

    def shortlist_words(self, query, query_words: np.ndarray, query_keypoints: np.ndarray,
                        depth: int) -> List[Tuple[int, float, int]]:
        """score_words()'s `depth` highest cosines, each with its spatially consistent word
        matches (WordIndex.spatial_scores(): query_words M int, query_keypoints M×2 or M×4 float,
        x, y, scale in query pixels, angle in degrees) → (target id, cosine, spatial score), in
        the cosines' order. Raises ValueError for a shard with a descriptor index."""
        top = self.score_words(query, depth)
        spatial = self.words.spatial_scores([t for t, _ in top], query_words, query_keypoints)
        return [(t, c, s) for (t, c), s in zip(top, spatial)]

    def verify(self, target_ids: List[int], keypoints: np.ndarray, descriptors: np.ndarray, ratio: float = 0.8,
               min_inliers: int = 15) -> List[dict]:
        """Verifies targets of this shard in one query (M×2..5 float32 keypoints, query pixels;
        M×D float32 descriptors) with verification.verify_target(), one after the other: the
        query travels to the shard once for all its candidates. Returns, per id, verified,
        inliers, matches, coverage (Verification.coverage), the target's public entry,
        homography (3×3, target working-image pixels → query pixels), quad (4×2) and the time in ms; a target not in this shard (removed since
        the query was shortlisted) is not verified and its entry is None."""
        if self._matcher is None:
            self._matcher = self._make_matcher()
        results = []
        for target_id in target_ids:
            start = time.perf_counter()
            model = self._model(int(target_id))
            if model is None:
                results.append({"verified": False, "inliers": 0, "matches": 0, "coverage": 0.0, "target": None,
                                "homography": None, "quad": None, "ms": 0.0})
                continue
            h, w = model.image.shape[:2]
            v = verify_target(self._matcher, model.keypoints, model.descriptors, (w, h), keypoints, descriptors,
                              ratio=ratio, min_inliers=min_inliers)
            results.append({"verified": v.verified, "inliers": v.inliers, "matches": v.matches, "coverage": v.coverage,
                            "target": public_entry(self._targets[int(target_id)]),
                            "homography": None if v.homography is None else v.homography.tolist(),
                            "quad": None if v.quad is None else v.quad.tolist(),
                            "ms": (time.perf_counter() - start) * 1e3})
        return results

    def _make_matcher(self):
        """The verification's matcher, made on the thread that verifies (a GL context is the
        thread's): nft.GpuMatcher on a GPU; nft.CpuMatcher for "cpu", and for "auto" where the
        GPU is a software rasteriser (llvmpipe), whose shaders take 9–15 ms for a query's 1,500
        descriptors against a target's 1,700 where the CPU matcher takes 6 ms on one core, with
        the same matches."""
        kind = self._matcher_kind
        if kind == "auto":
            kind = "cpu" if self._nft.GpuContext.default().software_renderer else "gpu"
        return self._nft.CpuMatcher() if kind == "cpu" else self._nft.GpuMatcher()

    def _model(self, target_id: int):
        """Target `target_id`'s nft.TrainedTarget, from the cache or read from its file; None
        for a target not in this shard."""
        model = self._models.get(target_id)
        if model is not None:
            self._models.move_to_end(target_id)
            return model
        entry = self._targets.get(target_id)
        if entry is None:
            return None
        model = self._nft.load_target(os.path.join(self.folder, entry["model"]))
        self._keep(target_id, model)
        return model

    def _keep(self, target_id: int, model) -> None:
        self._models[target_id] = model
        self._models.move_to_end(target_id)
        while len(self._models) > self._model_cache:
            self._models.popitem(last=False)

    def add_target(self, target_id: int, name: str, image: np.ndarray, width_m: float = 0.0) -> dict:
        """Trains `image` (H×W uint8 grey) as target `target_id` named `name`, adds it to the index
        at once and writes its model, index.faiss and targets.json (each renamed into place), so a
        restarted service has it too. Returns its public entry.

        Raises ValueError for an id or name already in this shard, or an image the trainer
        refuses (too plain: nft.InputError's message); nothing is changed then."""
        if int(target_id) in self._targets:
            raise ValueError(f"target id {target_id} is already in {self.folder}")
        if any(t["name"] == name for t in self._targets.values()):
            raise ValueError(f"the name '{name}' is already in {self.folder}")
        try:
            t = self._nft.train_target(image, width_m=width_m)
        except self._nft.InputError as e:  # the caller's image: a ValueError like its other mistakes
            raise ValueError(str(e)) from None
        entry = trained_entry(target_id, name, t)
        t.save(os.path.join(self.folder, entry["model"]))
        if self.words is not None:
            vector, layout = word_entry(self.vocabulary, t)
            self.words.add_targets([int(target_id)], [vector], [layout])
        else:
            self.index.add_target(int(target_id), t.descriptors)
        self._targets[int(target_id)] = entry
        self._keep(int(target_id), t)
        self._persist()
        return public_entry(entry)

    def remove_target(self, target_id: int) -> dict:
        """Removes a target from the index and the shard's files; returns its public entry.
        Raises KeyError when it is not here."""
        if int(target_id) not in self._targets:
            raise KeyError(f"target {target_id} is not in {self.folder}")
        if self.words is not None:
            self.words.remove_target(int(target_id))
        else:
            self.index.remove_target(int(target_id))
        entry = self._targets.pop(int(target_id))
        self._models.pop(int(target_id), None)
        self._report = dict(self._report, removed=sorted({*self._report.get("removed", []), int(target_id)}))
        self._persist()
        model = os.path.join(self.folder, entry["model"])
        if os.path.exists(model):
            os.remove(model)
        return public_entry(entry)

    def _persist(self) -> None:
        if self.words is not None:
            self.words.save(os.path.join(self.folder, "words.npz"))
        else:
            self.index.save(os.path.join(self.folder, "index.faiss"))
        report = dict(self._report, targets=list(self._targets.values()), descriptors=self._descriptor_count())
        write_json(os.path.join(self.folder, "targets.json"), report)
        self._report = report


class ShardGroup:
    """ShardGroup(shards, nprobe, vocabulary, model_cache, matcher): the shards one worker holds
    (shards: (shard index, folder) pairs, each loaded as Shard(folder, nprobe, vocabulary,
    model_cache, matcher)), served as one Dask actor, so that a query reaches each worker once for
    all its shards: a call to an actor cost about 5 ms of Dask's round trip on the 2-core
    benchmark machine, against 9 ms of a shard's re-ranking at 10,000 targets. The shards' own
    methods are reached through call(). Raises as Shard()."""

    def __init__(self, shards: Sequence[Tuple[int, str]], nprobe: int = DEFAULT_NPROBE,
                 vocabulary: Optional[str] = None, model_cache: int = DEFAULT_MODEL_CACHE, matcher: str = "auto") -> None:
        self.shards = {int(s): Shard(folder, nprobe, vocabulary, model_cache, matcher) for s, folder in shards}

    def call(self, shard: int, method: str, *args):
        """Shard `shard`'s `method`(*args): what Recognizer's per-shard handles call. Raises
        KeyError for a shard this group does not hold, AttributeError for another method."""
        return getattr(self.shards[int(shard)], method)(*args)

    def nearest(self, descriptors: np.ndarray, neighbours: int = 8) -> Dict[int, Nearest]:
        """Each shard's Shard.nearest(): shard index → its answer."""
        return {s: shard.nearest(descriptors, neighbours) for s, shard in self.shards.items()}

    def shortlist_words(self, query, query_words: np.ndarray, query_keypoints: np.ndarray,
                        depth: int) -> List[Tuple[int, float, int]]:
        """Every shard's Shard.shortlist_words() (each its `depth` highest cosines), in one list."""
        return [x for shard in self.shards.values()
                for x in shard.shortlist_words(query, query_words, query_keypoints, depth)]

    def verify(self, candidates: Dict[int, List[int]], keypoints: np.ndarray, descriptors: np.ndarray,
               ratio: float = 0.8) -> Dict[int, List[dict]]:
        """Shard.verify() of each shard's candidates (shard index → target ids) in one call:
        shard index → its results, in its ids' order."""
        return {int(s): self.shards[int(s)].verify(ids, keypoints, descriptors, ratio) for s, ids in candidates.items()}
