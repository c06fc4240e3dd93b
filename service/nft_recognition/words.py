"""The catalogue's shortlist by visual words: one sparse tf-idf vector per target, so a query costs
the postings of its own words whatever the number of targets — Sivic and Zisserman 2003 ("Video
Google", ICCV) and the vocabulary tree of Nistér and Stewénius 2006 ("Scalable Recognition with a
Vocabulary Tree", CVPR), as the on-device target database's recognition (detection/vocabulary.h)
uses them.

Why not the per-descriptor index (catalogue_index.py) at scale: its search and its memory grow
with every descriptor of every target (1.7 million at 1,000 targets, about 1.6 · 10^8 at 100,000),
where a word vector is a few hundred non-zeros per target and the query scores only the targets
that share its words.

    Vocabulary   K words: a two-level k-means (FAISS's k-means: `coarse` centres, each split into
                 `fine` words), trained once per catalogue on a sample of its targets' descriptors
                 before the shards are trained, with each word's idf over that sample. A
                 descriptor's word: its nearest coarse centre, then that centre's nearest word —
                 the same at training and at query time.
    WordIndex    one shard's targets as rows of a scipy.sparse CSR matrix: tf-idf weights, unit
                 L2 rows; a query's score for a target is the cosine of the two vectors.

A word's weight is sqrt(count) · idf rather than count · idf: the square root damps the bursts of
one repeated texture (Jégou, Douze and Schmid, "On the burstiness of visual elements", CVPR 2009).
On the 1,000-target benchmark's views (scripts/bench-catalogue.py), the rendered target was among
the 8 highest cosines for 87 % of views with 16,384 words and count · idf, 90 % with the square
root, 93 % with 65,536 words and 95 % with both (first: 61, 69, 70, 78 %): the defaults.
"""

from __future__ import annotations

import os
from typing import Dict, List, Sequence, Tuple

import numpy as np

try:
    import faiss
    import scipy.sparse as sparse
except ImportError as e:  # pragma: no cover - the message is what a user without them sees
    raise ImportError("nft_recognition's word shortlist needs FAISS and SciPy: install Debian's python3-faiss and "
                      "python3-scipy (scripts/install-deps.sh service)") from e

FORMAT = "nft-vocabulary-1"


def _write_npz(path: str, **arrays) -> None:
    """np.savez to a temporary file renamed into place (a failure leaves no half-written file).
    Raises OSError naming the file."""
    tmp = f"{path}.tmp{os.getpid()}.npz"
    try:
        np.savez(tmp, **arrays)
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise OSError(f"{path}: cannot write: {e}") from e


def _read_npz(path: str, what: str, keys: Sequence[str]) -> Dict[str, np.ndarray]:
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file (the {what})")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in keys if k in z.files}
    except (OSError, EOFError, ValueError) as e:  # np.load's answers to a file that is not an .npz of arrays
        raise ValueError(f"{path}: not a {what}: {e}") from e
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise ValueError(f"{path}: not a {what} (no {', '.join(missing)})")
    return arrays


class Vocabulary:
    """K = coarse × fine visual words over D-dimensional descriptors (SURF-64 or SURF-36).

    coarse: C×D float32 coarse centres; fine: C×F×D float32 words, word c·F + j is fine[c, j];
    idf: K float32, log(T / df) over the T training targets (a word no training target has gets
    log(T), as rare as the rarest)."""

    def __init__(self, coarse: np.ndarray, fine: np.ndarray, idf: np.ndarray) -> None:
        coarse = np.ascontiguousarray(coarse, np.float32)
        fine = np.ascontiguousarray(fine, np.float32)
        idf = np.ascontiguousarray(idf, np.float32)
        if coarse.ndim != 2 or fine.ndim != 3 or fine.shape[0] != coarse.shape[0] or fine.shape[2] != coarse.shape[1] \
                or idf.shape != (fine.shape[0] * fine.shape[1],):
            raise ValueError(f"a vocabulary needs coarse C×D, fine C×F×D and idf C·F; got {coarse.shape}, "
                             f"{fine.shape}, {idf.shape}")
        self.coarse, self.fine, self.idf = coarse, fine, idf
        self._coarse_index = faiss.IndexFlatL2(coarse.shape[1])
        self._coarse_index.add(coarse)
        self._fine_norms = (fine * fine).sum(axis=2)  # C×F: ||word||², for quantize()

    @property
    def size(self) -> int:
        """K, the number of words."""
        return int(self.idf.shape[0])

    @property
    def dim(self) -> int:
        """D, the descriptor length."""
        return int(self.coarse.shape[1])

    @staticmethod
    def train(targets: Sequence[np.ndarray], coarse: int = 256, fine: int = 256, iterations: int = 20,
              seed: int = 1) -> "Vocabulary":
        """Trains the words on the descriptors of a sample of targets (each N×D float32, as
        nft.train_target() gives them): FAISS k-means into `coarse` centres, then each centre's
        descriptors into `fine` words (fewer descriptors than that: the descriptors themselves,
        repeated), and the idf of every word over these targets.

        Raises ValueError for no targets, descriptors of different lengths, or fewer descriptors
        in all than coarse centres."""
        if not targets:
            raise ValueError("train: no targets to learn the words from")
        dims = {np.asarray(t).shape[1] for t in targets if np.asarray(t).ndim == 2}
        if len(dims) != 1 or any(np.asarray(t).ndim != 2 for t in targets):
            raise ValueError(f"train: expected N×D descriptor arrays of one length D, got lengths {sorted(dims)}")
        sample = np.ascontiguousarray(np.vstack(targets), np.float32)
        d = sample.shape[1]
        if len(sample) < coarse:
            raise ValueError(f"train: {len(sample)} descriptors for {coarse} coarse centres; give more targets")
        km = faiss.Kmeans(d, coarse, niter=iterations, seed=seed, min_points_per_centroid=1,
                          max_points_per_centroid=1000)
        km.train(sample)
        _, cell = km.index.search(sample, 1)
        cell = cell[:, 0]
        words = np.empty((coarse, fine, d), np.float32)
        for c in range(coarse):
            members = sample[cell == c]
            if len(members) == 0:
                members = km.centroids[c:c + 1]
            if len(members) <= fine:  # too few to split: the descriptors are the words
                words[c] = members[np.arange(fine) % len(members)]
                continue
            sub = faiss.Kmeans(d, fine, niter=iterations, seed=seed + c, min_points_per_centroid=1,
                               max_points_per_centroid=1000)
            sub.train(np.ascontiguousarray(members))
            words[c] = sub.centroids
        vocabulary = Vocabulary(km.centroids, words, np.zeros(coarse * fine, np.float32))
        df = np.zeros(vocabulary.size, np.float64)
        for t in targets:
            df[np.unique(vocabulary.quantize(t))] += 1
        vocabulary.idf = np.log(len(targets) / np.maximum(df, 1)).astype(np.float32)
        return vocabulary

    def quantize(self, descriptors: np.ndarray) -> np.ndarray:
        """The word of each descriptor (M×D float32): M int32 in [0, K).

        Raises ValueError for another shape."""
        x = np.asarray(descriptors)
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise ValueError(f"descriptors: expected an M×{self.dim} float32 array, got shape {x.shape}")
        x = np.ascontiguousarray(x, np.float32)
        if len(x) == 0:
            return np.empty(0, np.int32)
        _, cell = self._coarse_index.search(x, 1)
        cell = cell[:, 0]
        out = np.empty(len(x), np.int32)
        # Each coarse cell's descriptors against its words in one product: ||w - x||² ranks as
        # ||w||² - 2 w·x (a loop over the cells present, not a gather of every descriptor's words).
        order = np.argsort(cell, kind="stable")
        cells, starts = np.unique(cell[order], return_index=True)
        fine = self.fine.shape[1]
        for c, a, b in zip(cells, starts, [*starts[1:], len(order)]):
            rows = order[a:b]
            distance = self._fine_norms[c][None, :] - 2 * (x[rows] @ self.fine[c].T)
            out[rows] = c * fine + distance.argmin(axis=1)
        return out

    def vector(self, descriptors: np.ndarray) -> "sparse.csr_matrix":
        """The tf-idf vector of a set of descriptors (M×D float32): 1×K CSR, word w weighted
        sqrt(count(w)) · idf(w) (see the top of this file), unit L2 norm (all zeros for no
        descriptors)."""
        words, counts = np.unique(self.quantize(descriptors), return_counts=True)
        weights = np.sqrt(counts) * self.idf[words]
        norm = float(np.linalg.norm(weights))
        if norm > 0:
            weights = weights / norm
        return sparse.csr_matrix((weights.astype(np.float32), words, [0, len(words)]), shape=(1, self.size))

    def save(self, path: str) -> None:
        """Writes the vocabulary (an .npz of coarse, fine, idf) through a temporary file renamed
        into place. Raises OSError naming the file."""
        _write_npz(path, format=np.array(FORMAT), coarse=self.coarse, fine=self.fine, idf=self.idf)

    @staticmethod
    def load(path: str) -> "Vocabulary":
        """Reads a vocabulary written by save(). Raises FileNotFoundError for a missing file,
        ValueError naming the file for one that is not a vocabulary."""
        z = _read_npz(path, "vocabulary", ("format", "coarse", "fine", "idf"))
        if str(z["format"]) != FORMAT:
            raise ValueError(f"{path}: a vocabulary of format {z['format']}, this service reads {FORMAT}")
        try:
            return Vocabulary(z["coarse"], z["fine"], z["idf"])
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from e


class WordIndex:
    """One shard's targets as tf-idf word vectors (Vocabulary.vector()): rows of a CSR matrix,
    row i for target_ids()[i]. score() reads the query's words' columns of its CSC copy (the
    inverted file: each word's postings), so its cost is those postings, not every weight."""

    def __init__(self, size: int) -> None:
        self._size = int(size)
        self._ids: List[int] = []
        self._matrix = sparse.csr_matrix((0, self._size), dtype=np.float32)
        self._postings = None  # the CSC copy score() reads, made again after a change

    def __len__(self) -> int:
        return len(self._ids)

    def target_ids(self) -> List[int]:
        """The targets' ids, in row order."""
        return list(self._ids)

    def add_targets(self, target_ids: Sequence[int], vectors: Sequence["sparse.csr_matrix"]) -> None:
        """Adds targets with their 1×K word vectors. Raises ValueError for an id already here,
        repeated, or a vector of another length; nothing is added then."""
        ids = [int(t) for t in target_ids]
        taken = set(self._ids) & set(ids)
        if taken or len(set(ids)) != len(ids):
            raise ValueError(f"target ids already in the word index or repeated: {sorted(taken) or ids}")
        if any(v.shape != (1, self._size) for v in vectors) or len(vectors) != len(ids):
            raise ValueError(f"add_targets: expected one 1×{self._size} vector per target id")
        if ids:
            self._matrix = sparse.vstack([self._matrix, *vectors], format="csr", dtype=np.float32)
            self._ids += ids
            self._postings = None

    def remove_target(self, target_id: int) -> None:
        """Removes a target's row. Raises KeyError naming an id not in the index."""
        if int(target_id) not in self._ids:
            raise KeyError(f"target_id: {target_id} is not in the word index")
        keep = np.array([t != int(target_id) for t in self._ids])
        self._matrix = self._matrix[keep]
        self._postings = None
        self._ids = [t for t in self._ids if t != int(target_id)]

    def score(self, query: "sparse.csr_matrix", top: int) -> List[Tuple[int, float]]:
        """The `top` targets nearest a query's 1×K word vector: (target id, cosine in [0, 1]),
        highest first (ties by id); targets sharing no word with it are left out."""
        if not self._ids or query.nnz == 0:
            return []
        if self._postings is None:
            self._postings = self._matrix.tocsc()
        scores = self._postings[:, query.indices] @ query.data  # the query's words' postings only
        rows = np.flatnonzero(scores > 0)
        if len(rows) > top > 0:  # those at or above the top-th highest, without sorting every target
            cut = -np.partition(-scores[rows], top - 1)[top - 1]
            rows = rows[scores[rows] >= cut]
        ids = np.array([self._ids[i] for i in rows], np.int64)
        order = np.lexsort((ids, -scores[rows]))[:max(top, 0)]
        return [(int(ids[i]), float(scores[rows[i]])) for i in order]

    def save(self, path: str) -> None:
        """Writes the index (.npz: the CSR arrays and the ids) through a temporary file renamed
        into place. Raises OSError naming the file."""
        m = self._matrix
        _write_npz(path, format=np.array(FORMAT), size=np.int64(self._size), ids=np.array(self._ids, np.int64),
                   data=m.data, indices=m.indices, indptr=m.indptr)

    @staticmethod
    def load(path: str) -> "WordIndex":
        """Reads an index written by save(). Raises FileNotFoundError or ValueError naming the file."""
        z = _read_npz(path, "word index", ("format", "size", "ids", "data", "indices", "indptr"))
        if str(z["format"]) != FORMAT:
            raise ValueError(f"{path}: a word index of format {z['format']}, this service reads {FORMAT}")
        self = WordIndex(int(z["size"]))
        try:
            self._matrix = sparse.csr_matrix((z["data"], z["indices"], z["indptr"]),
                                             shape=(len(z["ids"]), self._size), dtype=np.float32)
        except ValueError as e:
            raise ValueError(f"{path}: a malformed word index: {e}") from e
        self._ids = [int(t) for t in z["ids"]]
        return self
