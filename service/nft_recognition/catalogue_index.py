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
from typing import Dict, List, Optional

import numpy as np

try:
    import faiss
except ImportError as e:  # pragma: no cover - the message is what a user without it sees
    raise ImportError("nft_recognition needs FAISS's Python bindings: install Debian's python3-faiss "
                      "(scripts/install-deps.sh service)") from e

ROWS_PER_TARGET = 1 << 16  # a target's descriptor rows: ids target_id · 2^16 + row


@dataclasses.dataclass(frozen=True)
class Vote:
    """One shortlisted target: its id and how many query descriptors voted for it."""

    target_id: int
    votes: int


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

    def shortlist(self, descriptors: np.ndarray, max_targets: int = 5, ratio: float = 0.8, min_votes: int = 6,
                  neighbours: int = 8) -> List[Vote]:
        """The targets a query's descriptors (M×D float32) vote for, most votes first.

        Each descriptor looks up its `neighbours` nearest catalogue descriptors; it votes for the
        nearest's target when d1 < ratio · d_other, d_other the distance (L2) to the nearest
        descriptor of another target (the farthest neighbour looked up when none of them is of
        another target). Targets with fewer than `min_votes` votes are left out; at most
        `max_targets` are returned. An empty index or query gives [].

        Raises ValueError for a wrong shape or ratio outside (0, 1]."""
        if not 0 < ratio <= 1:
            raise ValueError(f"ratio: expected a value in (0, 1], got {ratio}")
        q = self._checked(descriptors, "descriptors")
        if len(q) == 0 or self._index.ntotal == 0:
            return []
        k = int(min(max(neighbours, 2), self._index.ntotal))
        squared, ids = self._index.search(q, k)  # squared L2, nearest first; id -1 past the end
        dist = np.sqrt(np.maximum(squared, 0))
        targets = np.where(ids >= 0, ids // ROWS_PER_TARGET, -1)
        counts: Dict[int, int] = {}
        for row in range(len(q)):
            first = int(targets[row, 0])
            if first < 0:
                continue
            other = np.nonzero((targets[row] != first) & (targets[row] >= 0))[0]
            d_other = dist[row, other[0]] if len(other) else dist[row, k - 1]
            if dist[row, 0] < ratio * d_other:
                counts[first] = counts.get(first, 0) + 1
        votes = sorted((Vote(t, n) for t, n in counts.items() if n >= min_votes), key=lambda v: (-v.votes, v.target_id))
        return votes[:max_targets]

    def _checked(self, a: Optional[np.ndarray], name: str) -> np.ndarray:
        a = np.asarray(a)
        if a.ndim != 2 or a.shape[1] != self._dim:
            raise ValueError(f"{name}: expected an N×{self._dim} float32 array, got shape {a.shape}")
        return np.ascontiguousarray(a, dtype=np.float32)
