"""The catalogue's global descriptor index: which targets a query's descriptors vote for.

Every target's SURF descriptors (N×D float32, unit rows, as nft.train_target() gives them) go into
one FAISS index (Johnson, Douze, Jégou 2019, "Billion-scale similarity search with GPUs", IEEE
Trans. Big Data; Debian's python3-faiss), each under the id target_id · 2^16 + row. A query's
descriptor votes for the target of its nearest catalogue descriptor when that one is clearly
nearer than the nearest descriptor of any *other* target (Lowe's ratio test, Lowe 2004, IJCV 60(2)
section 7.1, taken across targets so that a target's own look-alike keypoints do not cancel its
vote). The targets with the most votes are the shortlist that verification.verify_target() checks.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Dict, List, Optional, Sequence

import numpy as np

try:
    import faiss
except ImportError as e:  # pragma: no cover - the message is what a user without it sees
    raise ImportError("nft_recognition needs FAISS's Python bindings: install Debian's python3-faiss "
                      "(scripts/install-deps.sh service)") from e

ROWS_PER_TARGET = 1 << 16  # a target's descriptor rows: ids target_id · 2^16 + row
DEFAULT_NPROBE = 8  # inverted lists searched per descriptor by an IVF index (set_nprobe())


@dataclasses.dataclass(frozen=True)
class Vote:
    """One shortlisted target: its id and how many query descriptors voted for it."""

    target_id: int
    votes: int


@dataclasses.dataclass(frozen=True)
class Nearest:
    """CatalogueIndex.nearest()'s answer for M query descriptors.

    target:  M int64, the target of each query descriptor's nearest catalogue descriptor (-1: none).
    d1:      M float32, L2 distance to it (inf: none).
    d_other: M float32, L2 distance to the nearest descriptor of another target (inf: none).
    """

    target: np.ndarray
    d1: np.ndarray
    d_other: np.ndarray


def merge_nearest(parts: Sequence[Nearest]) -> Nearest:
    """Combines the nearest() answers of a catalogue's shards (disjoint sets of targets) for the
    same query descriptors into what one index over every shard would answer: the nearest target
    is the nearest over the shards, and the nearest other target is the nearer of that shard's own
    other target and the other shards' nearest ones.

    Raises ValueError for no parts or parts of different lengths."""
    if not parts:
        raise ValueError("merge_nearest: no shard answers to merge")
    m = len(parts[0].target)
    if any(len(p.target) != m for p in parts):
        raise ValueError(f"merge_nearest: shard answers of different lengths {[len(p.target) for p in parts]}")
    if len(parts) == 1:
        return parts[0]
    d1 = np.stack([p.d1 for p in parts])  # S×M
    best = d1.argmin(axis=0)
    rows = np.arange(m)
    target = np.stack([p.target for p in parts])[best, rows]
    own_other = np.stack([p.d_other for p in parts])[best, rows]
    others = d1.copy()
    others[best, rows] = np.inf
    d_other = np.minimum(own_other, others.min(axis=0))
    return Nearest(target, d1[best, rows], d_other.astype(np.float32))


def votes_of(nearest: Nearest, max_targets: int = 5, ratio: float = 0.8, min_votes: int = 6) -> List[Vote]:
    """The shortlist of a (merged) nearest() answer: each query descriptor votes for its nearest
    target when d1 < ratio · d_other; targets with at least `min_votes` votes, most first (ties by
    id), at most `max_targets`.

    Raises ValueError for a ratio outside (0, 1]."""
    if not 0 < ratio <= 1:
        raise ValueError(f"ratio: expected a value in (0, 1], got {ratio}")
    ok = (nearest.target >= 0) & (nearest.d1 < ratio * nearest.d_other)
    ids, counts = np.unique(nearest.target[ok], return_counts=True)
    votes = sorted((Vote(int(t), int(n)) for t, n in zip(ids, counts) if n >= min_votes),
                   key=lambda v: (-v.votes, v.target_id))
    return votes[:max_targets]


class CatalogueIndex:
    """A FAISS index over the descriptors of every target of a catalogue (one shard of it).

    CatalogueIndex(dim=64, factory="Flat")
      dim:     descriptor length D: 64 (SURF-64) or 36 (SURF-36).
      factory: a faiss.index_factory string for the vectors, e.g. "Flat" (exact, D·4 bytes per
               descriptor), "IVF1024,SQ8" (8-bit scalar quantiser: D bytes per descriptor) or
               "IVF1024,PQ16" (product quantiser: 16 bytes, but minutes to train on 2 cores with
               Debian's reference BLAS); a quantised one is train()ed first on a sample of
               descriptors. Ids map to targets through an IndexIDMap2.

    Raises ValueError for a dim other than 36 or 64, or a factory FAISS refuses.
    """

    def __init__(self, dim: int = 64, factory: str = "Flat") -> None:
        if dim not in (36, 64):
            raise ValueError(f"dim: expected 64 (SURF-64) or 36 (SURF-36), got {dim}")
        try:
            base = faiss.index_factory(dim, factory)
        except RuntimeError as e:
            raise ValueError(f"factory: FAISS refuses '{factory}': {e}") from e
        self._dim = dim
        self._index = faiss.IndexIDMap2(base)
        self._base = base  # kept alive with the map that wraps it
        self.set_nprobe(DEFAULT_NPROBE)
        self._rows: Dict[int, int] = {}

    @property
    def dim(self) -> int:
        """Descriptor length D."""
        return self._dim

    @property
    def is_trained(self) -> bool:
        """False for a quantised factory until train() has run."""
        return bool(self._index.is_trained)

    def __len__(self) -> int:
        """Number of targets in the index."""
        return len(self._rows)

    @property
    def descriptor_count(self) -> int:
        """Number of descriptors in the index, over every target."""
        return int(self._index.ntotal)

    def target_ids(self) -> List[int]:
        """The ids of the targets in the index, in the order they were added."""
        return list(self._rows)

    def train(self, sample: np.ndarray) -> None:
        """Trains a quantised factory's coarse quantiser and codes on `sample` (S×D float32).

        Raises ValueError naming the shape when `sample` is not S×D."""
        self._index.train(self._checked(sample, "sample"))

    def add_target(self, target_id: int, descriptors: np.ndarray) -> None:
        """Adds a target's descriptors (N×D float32, row i for the target's keypoints[i],
        N < 65,536) under `target_id` (0 ≤ id < 2^47); the index answers with it at once.

        Raises ValueError for a taken or out-of-range id, a wrong shape, too many rows, or an
        untrained quantised index; nothing is added then."""
        if not 0 <= target_id < (1 << 47):
            raise ValueError(f"target_id: expected 0 <= id < 2^47, got {target_id}")
        if target_id in self._rows:
            raise ValueError(f"target_id: {target_id} is already in the index (remove_target() it first)")
        d = self._checked(descriptors, "descriptors")
        if len(d) >= ROWS_PER_TARGET:
            raise ValueError(f"descriptors: at most {ROWS_PER_TARGET - 1} rows per target, got {len(d)}")
        if not self._index.is_trained:
            raise ValueError("the index is quantised and not trained yet: train() it on a sample first")
        ids = np.int64(target_id) * ROWS_PER_TARGET + np.arange(len(d), dtype=np.int64)
        self._index.add_with_ids(d, ids)
        self._rows[target_id] = len(d)

    def remove_target(self, target_id: int) -> None:
        """Removes a target's descriptors. Raises KeyError naming an id not in the index."""
        if target_id not in self._rows:
            raise KeyError(f"target_id: {target_id} is not in the index")
        first = target_id * ROWS_PER_TARGET
        self._index.remove_ids(faiss.IDSelectorRange(first, first + ROWS_PER_TARGET))
        del self._rows[target_id]

    def nearest(self, descriptors: np.ndarray, neighbours: int = 8) -> "Nearest":
        """Each query descriptor's nearest catalogue target and the distances the ratio test needs.

        descriptors: M×D float32 query descriptors. Each looks up its `neighbours` nearest
        catalogue descriptors; row i of the result holds the target of the nearest (-1 when the
        index is empty), d1 its L2 distance, and d_other the distance to the nearest descriptor of
        another target (the farthest neighbour looked up when none of them is: a lower bound of
        it). Shards of one catalogue each answer this, and merge_nearest() combines their answers
        into what one index over all of them would give.

        Raises ValueError for a wrong shape."""
        q = self._checked(descriptors, "descriptors")
        m = len(q)
        if m == 0 or self._index.ntotal == 0:
            return Nearest(np.full(m, -1, np.int64), np.full(m, np.inf, np.float32), np.full(m, np.inf, np.float32))
        k = int(min(max(neighbours, 2), self._index.ntotal))
        squared, ids = self._index.search(q, k)  # squared L2, nearest first; id -1 past the end
        dist = np.sqrt(np.maximum(squared, 0)).astype(np.float32)
        dist[ids < 0] = np.inf
        targets = np.where(ids >= 0, ids // ROWS_PER_TARGET, -1)
        first = targets[:, 0]
        other = (targets != first[:, None]) & (targets >= 0)
        # The first neighbour of another target; the last one looked up when there is none.
        column = np.where(other.any(axis=1), other.argmax(axis=1), k - 1)
        d_other = dist[np.arange(m), column]
        return Nearest(first.astype(np.int64), dist[:, 0].copy(), d_other)

    def shortlist(self, descriptors: np.ndarray, max_targets: int = 5, ratio: float = 0.8, min_votes: int = 6,
                  neighbours: int = 8) -> List[Vote]:
        """The targets a query's descriptors (M×D float32) vote for, most votes first.

        A descriptor votes for its nearest descriptor's target when d1 < ratio · d_other
        (nearest()). Targets with fewer than `min_votes` votes are left out; at most `max_targets`
        are returned. An empty index or query gives [].

        Raises ValueError for a wrong shape or ratio outside (0, 1]."""
        return votes_of(self.nearest(descriptors, neighbours), max_targets, ratio, min_votes)

    def save(self, path: str) -> None:
        """Writes the index (FAISS's own file format, faiss.write_index) to `path` through a
        temporary file renamed into place, so a failure never leaves a half-written index.
        The target ids and row counts are in the FAISS ids; load() recovers them.

        Raises OSError naming the file when it cannot be written."""
        tmp = f"{path}.tmp{os.getpid()}"
        try:
            faiss.write_index(self._index, tmp)
            os.replace(tmp, path)
        except (RuntimeError, OSError) as e:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise OSError(f"{path}: cannot write the index: {e}") from e

    @classmethod
    def load(cls, path: str) -> "CatalogueIndex":
        """Reads an index written by save().

        Raises FileNotFoundError for a missing file; ValueError naming the file for one that is
        not a FAISS index with target ids, or of a dimension other than 36 or 64."""
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: no such index file")
        try:
            index = faiss.read_index(path)
        except RuntimeError as e:
            raise ValueError(f"{path}: not a FAISS index: {e}") from e
        if not isinstance(index, faiss.IndexIDMap2):  # read_index gives the most derived class
            raise ValueError(f"{path}: a FAISS index without target ids (expected one written by CatalogueIndex.save())")
        if index.d not in (36, 64):
            raise ValueError(f"{path}: descriptors of length {index.d} (expected 64 or 36)")
        self = cls.__new__(cls)
        self._dim = int(index.d)
        self._index = index
        self._base = faiss.downcast_index(index.index)
        targets = faiss.vector_to_array(index.id_map).astype(np.int64) // ROWS_PER_TARGET
        ids, first, counts = np.unique(targets, return_index=True, return_counts=True)
        order = np.argsort(first)  # the order they were added in
        self._rows = {int(t): int(n) for t, n in zip(ids[order], counts[order])}
        self.set_nprobe(DEFAULT_NPROBE)
        return self

    def set_nprobe(self, nprobe: int) -> None:
        """The inverted lists an IVF index searches per query descriptor (more: nearer to exact,
        slower; FAISS's nprobe); no effect on an exact index. Raises ValueError for nprobe < 1."""
        if nprobe < 1:
            raise ValueError(f"nprobe: expected >= 1, got {nprobe}")
        try:
            ivf = faiss.extract_index_ivf(self._base)
        except RuntimeError:
            return  # not an IVF index
        ivf.nprobe = int(min(nprobe, ivf.nlist))

    def _checked(self, a: Optional[np.ndarray], name: str) -> np.ndarray:
        a = np.asarray(a)
        if a.ndim != 2 or a.shape[1] != self._dim:
            raise ValueError(f"{name}: expected an N×{self._dim} float32 array, got shape {a.shape}")
        return np.ascontiguousarray(a, dtype=np.float32)
