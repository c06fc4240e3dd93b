"""One shard of a catalogue in a worker's memory: its descriptor index, its targets' models, and
the verification of its own targets — a Dask actor (distributed.Actor) the scheduler places on a
worker, so the data of a shard never moves between workers; a query's descriptors do.

The actor's methods run on the worker's single actor thread (distributed's "actor" executor), so
the GL context of its nft.GpuMatcher, made on the first verification, stays current on the thread
that uses it, and a shard's changes (add_target, remove_target) never race its queries.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from .catalogue import read_json, trained_entry, write_json
from .catalogue_index import DEFAULT_NPROBE, CatalogueIndex, Nearest
from .verification import verify_target

PUBLIC_FIELDS = ("id", "name", "width", "height", "width_m", "keypoints")


def public_entry(entry: dict) -> dict:
    """What clients see of a target's entry: id, name, working-image width and height (pixels),
    width_m (metres) and keypoints; not where its files are."""
    return {k: entry[k] for k in PUBLIC_FIELDS}


class Shard:
    """Shard(folder, nprobe=DEFAULT_NPROBE): loads a shard written by build.train_shard() (targets.json,
    index.faiss, models/*.nftm) and answers for its targets; nprobe: the inverted lists an IVF
    index searches per descriptor (CatalogueIndex.set_nprobe()).

    Raises FileNotFoundError or ValueError naming the file that is missing or malformed."""

    def __init__(self, folder: str, nprobe: int = DEFAULT_NPROBE) -> None:
        import nft  # the project's module (the worker's, not the front's)

        self._nft = nft
        self.folder = os.path.abspath(folder)
        self._report = read_json(os.path.join(self.folder, "targets.json"), "shard report")
        self.index = CatalogueIndex.load(os.path.join(self.folder, "index.faiss"))
        self.index.set_nprobe(nprobe)
        self._targets: Dict[int, dict] = {}
        self._models: Dict[int, object] = {}
        for t in self._report.get("targets", []):
            self._targets[int(t["id"])] = t
            self._models[int(t["id"])] = nft.load_target(os.path.join(self.folder, t["model"]))
        missing = set(self._targets) ^ set(self.index.target_ids())
        if missing:
            raise ValueError(f"{self.folder}: targets.json and index.faiss disagree on targets {sorted(missing)[:10]}")
        self._matcher = None
        self.where = f"{socket.gethostname()}:{os.getpid()}"

    def info(self) -> dict:
        """The shard's folder, where it is served (host:pid), targets, descriptor length and count."""
        return {"folder": self.folder, "where": self.where, "targets": len(self._targets), "dim": self.index.dim,
                "descriptors": self.index.descriptor_count}

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
        """CatalogueIndex.nearest() over this shard's targets (M×D float32 query descriptors)."""
        return self.index.nearest(descriptors, neighbours)

    def verify(self, target_id: int, keypoints: np.ndarray, descriptors: np.ndarray, ratio: float = 0.8,
               min_inliers: int = 15) -> dict:
        """Verifies target `target_id` of this shard in a query (M×2..5 float32 keypoints, query
        pixels; M×D float32 descriptors) with verification.verify_target(); returns verified,
        inliers, matches, the target's public entry, homography (3×3, target working-image pixels → query pixels), quad
        (4×2) and the time in ms. Raises KeyError for a target not in this shard."""
        start = time.perf_counter()
        model = self._models.get(int(target_id))
        if model is None:
            raise KeyError(f"target {target_id} is not in {self.folder}")
        if self._matcher is None:
            self._matcher = self._nft.GpuMatcher()
        h, w = model.image.shape[:2]
        v = verify_target(self._matcher, model.keypoints, model.descriptors, (w, h), keypoints, descriptors,
                          ratio=ratio, min_inliers=min_inliers)
        return {"verified": v.verified, "inliers": v.inliers, "matches": v.matches,
                "target": public_entry(self._targets[int(target_id)]),
                "homography": None if v.homography is None else v.homography.tolist(),
                "quad": None if v.quad is None else v.quad.tolist(),
                "ms": (time.perf_counter() - start) * 1e3}

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
        self.index.add_target(int(target_id), t.descriptors)
        self._targets[int(target_id)] = entry
        self._models[int(target_id)] = t
        self._persist()
        return public_entry(entry)

    def remove_target(self, target_id: int) -> dict:
        """Removes a target from the index and the shard's files; returns its public entry.
        Raises KeyError when it is not here."""
        if int(target_id) not in self._targets:
            raise KeyError(f"target {target_id} is not in {self.folder}")
        self.index.remove_target(int(target_id))
        entry = self._targets.pop(int(target_id))
        self._models.pop(int(target_id))
        self._report = dict(self._report, removed=sorted({*self._report.get("removed", []), int(target_id)}))
        self._persist()
        model = os.path.join(self.folder, entry["model"])
        if os.path.exists(model):
            os.remove(model)
        return public_entry(entry)

    def _persist(self) -> None:
        self.index.save(os.path.join(self.folder, "index.faiss"))
        report = dict(self._report, targets=list(self._targets.values()), descriptors=self.index.descriptor_count)
        write_json(os.path.join(self.folder, "targets.json"), report)
        self._report = report
