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

The cosine ignores where the words are. WordIndex.spatial_scores() re-ranks the highest cosines by
the query keypoints that share a word with a target's keypoints *and* fit one homography (the
"fast spatial matching" of Philbin, Chum, Isard, Sivic and Zisserman 2007, "Object retrieval with
large vocabularies and fast spatial matching", CVPR), so a deep list of cosines costs no descriptor
matching: only the few targets that fit are verified with the descriptors (verification.py).
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Tuple

import cv2
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


def _read_npz(path: str, what: str, keys: Sequence[str], optional: Sequence[str] = ()) -> Dict[str, np.ndarray]:
    """The arrays `keys` (each required) and those of `optional` present of an .npz.
    Raises FileNotFoundError or ValueError naming the file and what it is not."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file (the {what})")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in [*keys, *optional] if k in z.files}
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
        return self.vector_of_words(self.quantize(descriptors))

    def vector_of_words(self, words: np.ndarray) -> "sparse.csr_matrix":
        """vector() of descriptors already quantized: M int words in [0, K) → 1×K CSR."""
        words, counts = np.unique(np.asarray(words, np.int64), return_counts=True)
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


DEFAULT_RERANK_DEPTH = 32  # the highest cosines of a shard re-ranked by spatial_scores() (Recognizer)
DEFAULT_MIN_SPATIAL = 0  # fewest spatially consistent word matches for a target to be verified (Recognizer)
MAX_PER_WORD = 4  # a word seen more often than this in one target or one query is a repeated texture


def layout_of(words: np.ndarray, keypoints: np.ndarray, cell_px: float = 2.0,
              max_per_word: int = MAX_PER_WORD) -> Tuple[np.ndarray, np.ndarray]:
    """A target's keypoints as WordIndex.spatial_scores() reads them: words M int (Vocabulary.
    quantize() of its descriptors) and keypoints M×4 or M×5 float (x, y, scale in target pixels,
    angle in degrees: nft.TrainedTarget.keypoints), row i for keypoint i → (words N int32,
    keypoints N×4 float32 x, y, scale, angle), sorted by word: one keypoint per word and
    `cell_px` cell (the views the trainer simulates describe one point several times, often as
    one word), without the words the target has more than `max_per_word` times after that.

    Raises ValueError for arrays of other shapes or of different lengths."""
    words = np.asarray(words)
    keypoints = np.asarray(keypoints, np.float32)
    if words.ndim != 1 or keypoints.ndim != 2 or keypoints.shape[1] < 4 or len(words) != len(keypoints):
        raise ValueError(f"layout_of: expected M words and M×4 keypoints (x, y, scale, angle), got shapes "
                         f"{words.shape} and {keypoints.shape}")
    keypoints = keypoints[:, :4]
    cells = np.floor(keypoints[:, :2] / cell_px).astype(np.int64)
    key = np.stack([words.astype(np.int64), cells[:, 0], cells[:, 1]], axis=1)
    _, first = np.unique(key, axis=0, return_index=True)  # sorted by word, then cell
    words, keypoints = words[first].astype(np.int32), keypoints[first]
    _, inverse, counts = np.unique(words, return_inverse=True, return_counts=True)
    keep = counts[inverse] <= max_per_word
    return np.ascontiguousarray(words[keep]), np.ascontiguousarray(keypoints[keep])


def _similarity_cells(t: np.ndarray, q: np.ndarray, size: np.ndarray, group: np.ndarray,
                      angle_bin: float = 30.0) -> np.ndarray:
    """The pairs of each target's fullest cell of a Hough transform over similarities (Lowe 2004,
    "Distinctive image features from scale-invariant keypoints", IJCV, section 7.3), for the pairs
    of several targets at once: each pair of a target keypoint t[i] and a query keypoint q[i]
    (x, y, scale, angle; P×4 float32) predicts a rotation, a scale and where its target's centre
    lands; cells of `angle_bin` degrees, one octave, and a quarter of the target's size (size[i],
    P float64 pixels: the target of pair i) at that scale, each pair voting for the two nearest
    cells of angle, x and y. group: P int in [0, 1024), the target of each pair; a target's cells
    are its own. Returns P bool: the pairs in their target's fullest cell (of equally full cells,
    the one of lowest key)."""
    pairs = len(t)
    if pairs == 0:
        return np.zeros(0, bool)
    scale = q[:, 2] / np.maximum(t[:, 2], 1e-6)
    turn = np.radians(q[:, 3] - t[:, 3])
    offset = size.astype(np.float32)[:, None] / 2 - t[:, :2]  # to the target's centre
    cx = q[:, 0] + scale * (np.cos(turn) * offset[:, 0] - np.sin(turn) * offset[:, 1])
    cy = q[:, 1] + scale * (np.sin(turn) * offset[:, 0] + np.cos(turn) * offset[:, 1])
    octave = np.floor(np.log2(scale) + 0.5).astype(np.int64)
    cell = np.maximum(2.0 ** octave * size / 4, 8.0)
    a, x, y = np.degrees(turn) % 360 / angle_bin, cx / cell, cy / cell
    bins = int(round(360 / angle_bin))
    half = np.array([0.0, 0.5])[:, None]  # the two nearest cells in each dimension: offsets by half a cell
    ka = np.floor(a[None] + half).astype(np.int64) % bins  # 2×P
    mask = (1 << 21) - 1  # 21 bits a position cell (a wrap only at absurd distances)
    kx = (np.floor(x[None] + half).astype(np.int64) + (1 << 20)) & mask
    ky = (np.floor(y[None] + half).astype(np.int64) + (1 << 20)) & mask
    # 10 bits of target, 4 of angle and 6 of octave, 21 + 21 of position: 62 bits.
    kao = ((np.asarray(group, np.int64) << 10) + ka * 64 + (np.clip(octave, -32, 31) + 32)) << 42  # 2×P
    keys = (kao[:, None, None] + (kx << 21)[None, :, None] + ky[None, None, :]).reshape(-1)  # 8·P, pair i at i mod P
    cells, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    owner = cells >> 52  # each cell's target; the cells sorted by target, then key
    order = np.lexsort((-counts, owner))  # stable: of equal counts, the lowest key first
    firsts = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]  # each target's fullest cell
    fullest = np.full(int(owner.max()) + 1, -1, np.int64)
    fullest[owner[firsts]] = firsts
    votes = inverse == fullest[np.tile(np.asarray(group, np.int64), 8)]
    chosen = np.zeros(pairs, bool)
    chosen[np.flatnonzero(votes) % pairs] = True
    return chosen


def word_entry(vocabulary: Vocabulary, target) -> Tuple["sparse.csr_matrix", Tuple[np.ndarray, np.ndarray]]:
    """What WordIndex.add_targets() takes for a trained target (nft.TrainedTarget: N×D descriptors,
    N×5 keypoints: x, y, scale in target pixels, angle in degrees, response): its word vector and its
    layout (layout_of())."""
    words = vocabulary.quantize(target.descriptors)
    return vocabulary.vector_of_words(words), layout_of(words, target.keypoints)


class WordIndex:
    """One shard's targets as tf-idf word vectors (Vocabulary.vector()): rows of a CSR matrix,
    row i for target_ids()[i]. score() reads the query's words' columns of its CSC copy (the
    inverted file: each word's postings), so its cost is those postings, not every weight."""

    def __init__(self, size: int) -> None:
        self._size = int(size)
        self._ids: List[int] = []
        self._matrix = sparse.csr_matrix((0, self._size), dtype=np.float32)
        self._postings = None  # the CSC copy score() reads, made again after a change
        self._layouts: Dict[int, Tuple[np.ndarray, np.ndarray]] = {}  # id → layout_of(): for spatial_scores()

    def __len__(self) -> int:
        return len(self._ids)

    def target_ids(self) -> List[int]:
        """The targets' ids, in row order."""
        return list(self._ids)

    def add_targets(self, target_ids: Sequence[int], vectors: Sequence["sparse.csr_matrix"],
                    layouts: Optional[Sequence[Tuple[np.ndarray, np.ndarray]]] = None) -> None:
        """Adds targets with their 1×K word vectors and, for spatial_scores(), their layouts
        (layout_of(): words N int32, keypoints N×4 float32 x, y, scale, angle; None: the targets have
        none, and spatial_scores() answers -1 for them). Raises ValueError for an id already here,
        repeated, a vector of another length or a layout per target missing; nothing is added then."""
        ids = [int(t) for t in target_ids]
        taken = set(self._ids) & set(ids)
        if taken or len(set(ids)) != len(ids):
            raise ValueError(f"target ids already in the word index or repeated: {sorted(taken) or ids}")
        if any(v.shape != (1, self._size) for v in vectors) or len(vectors) != len(ids):
            raise ValueError(f"add_targets: expected one 1×{self._size} vector per target id")
        if layouts is not None:
            if len(layouts) != len(ids):
                raise ValueError(f"add_targets: {len(layouts)} layouts for {len(ids)} target ids")
            for target_id, (words, keypoints) in zip(ids, layouts):
                if np.asarray(words).ndim != 1 or np.asarray(keypoints).shape != (len(words), 4) \
                        or (len(words) and not 0 <= int(np.min(words)) <= int(np.max(words)) < self._size):
                    raise ValueError(f"add_targets: target {target_id}'s layout: expected N words in [0, "
                                     f"{self._size}) and N×4 keypoints, got shapes {np.shape(words)}, "
                                     f"{np.shape(keypoints)}")
        if ids:
            self._matrix = sparse.vstack([self._matrix, *vectors], format="csr", dtype=np.float32)
            self._ids += ids
            self._postings = None
            for target_id, (words, keypoints) in zip(ids, layouts or []):
                self._layouts[target_id] = self._compact(words, keypoints)

    def remove_target(self, target_id: int) -> None:
        """Removes a target's row. Raises KeyError naming an id not in the index."""
        if int(target_id) not in self._ids:
            raise KeyError(f"target_id: {target_id} is not in the word index")
        keep = np.array([t != int(target_id) for t in self._ids])
        self._matrix = self._matrix[keep]
        self._postings = None
        self._ids = [t for t in self._ids if t != int(target_id)]
        self._layouts.pop(int(target_id), None)

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

    def spatial_scores(self, target_ids: Sequence[int], query_words: np.ndarray, query_keypoints: np.ndarray,
                       ransac_px: float = 6.0, min_pairs: int = 8, max_per_word: int = MAX_PER_WORD) -> List[int]:
        """Philbin et al. 2007's spatial re-ranking: for each target, its keypoints and the query's
        that have the same word are paired (words more than `max_per_word` times in the query
        left out), and the score is the number of query keypoints that one homography, target
        pixels → query pixels, puts within `ransac_px` of their pair: the spatially consistent
        matches, without matching a descriptor.

        The homography: with the keypoints' scales and angles, fitted (cv2.USAC_DEFAULT) to the
        pairs of the fullest cell of a Hough transform over the similarities each pair predicts
        (_similarity_cells(), Lowe 2004), then again to every pair it explains — a view's
        correct pairs can be 2 % of them (a blurred or small view: 9 of 434), too few for
        RANSAC's random samples of four, never too few to gather in one cell; without them
        (M×2 query keypoints, or an angle < 0), by USAC over every pair.

        query_words: M int (Vocabulary.quantize()); query_keypoints: M×2 or M×4+ float (x, y
        query pixels, scale pixels, angle degrees), row i for query_words[i]. Returns one score
        per target id: 0 for fewer than `min_pairs` pairs or no homography, -1 for a target
        without layout or not in the index. All the targets' pairs are gathered and voted in one
        pass (_similarity_cells()); only the homographies are fitted one target at a time.
        Raises ValueError for other shapes, or query words outside [0, K)."""
        qw = np.asarray(query_words)
        qk = np.asarray(query_keypoints, np.float32)
        if qw.ndim != 1 or qk.ndim != 2 or qk.shape[1] < 2 or len(qw) != len(qk):
            raise ValueError(f"spatial_scores: expected M query words and M×2 or M×4 keypoints, got shapes "
                             f"{qw.shape}, {qk.shape}")
        if len(target_ids) > 1024:  # _similarity_cells() keeps 10 bits of target: each 1,024 on their own
            return [score for i in range(0, len(target_ids), 1024)
                    for score in self.spatial_scores(target_ids[i:i + 1024], query_words, query_keypoints, ransac_px,
                                                     min_pairs, max_per_word)]
        oriented = qk.shape[1] >= 4 and bool((qk[:, 3] >= 0).all()) and bool((qk[:, 2] > 0).all())
        order = np.argsort(qw, kind="stable")
        qw, qk = qw[order], np.ascontiguousarray(qk[order, :4 if oriented else 2])
        _, inverse, counts = np.unique(qw, return_inverse=True, return_counts=True)
        keep = counts[inverse] <= max_per_word
        qw, qk = qw[keep], qk[keep]
        scores = [-1] * len(target_ids)  # -1: no layout
        rows = [i for i, t in enumerate(target_ids) if int(t) in self._layouts]
        if not rows:
            return scores
        layouts = [self._layouts[int(target_ids[i])] for i in rows]
        # Every candidate's pairs at once: its keypoints and the query's of the same word, in the
        # candidates' order, each candidate's in its layout's order.
        tw = np.concatenate([w for w, _ in layouts])
        tk = np.concatenate([k for _, k in layouts]).astype(np.float32)
        lengths = np.array([len(w) for w, _ in layouts])
        owner = np.repeat(np.arange(len(rows)), lengths)  # the candidate of each layout row
        # Each word's run of query rows, read from tables over the words (a search per layout row
        # cost more: 32,000 rows a shard).
        words, first, count = np.unique(qw, return_index=True, return_counts=True)
        if len(words) and (words[0] < 0 or words[-1] >= self._size):
            raise ValueError(f"spatial_scores: query words must be in [0, {self._size}), got {words[0]}..{words[-1]}")
        lo_of, n_of = np.zeros(self._size, np.int32), np.zeros(self._size, np.int32)
        lo_of[words], n_of[words] = first, count
        lo, n = lo_of[tw], n_of[tw]
        shared = np.flatnonzero(n)
        runs = n[shared]
        total = int(runs.sum())
        t_rows = np.repeat(shared, runs)
        q_rows = np.repeat(lo[shared] - (np.cumsum(runs) - runs), runs) + np.arange(total)  # each run's rows
        group = owner[t_rows]
        counts = np.bincount(group, minlength=len(rows))
        ends = np.cumsum(counts)
        if oriented:
            starts = np.minimum(np.cumsum(lengths) - lengths, max(len(tk) - 1, 0))
            extent = np.maximum.reduceat(tk[:, :2].max(axis=1), starts) if len(tk) else np.zeros(len(rows))
            sizes = np.where(lengths > 0, extent, 0.0).astype(np.float64)  # each target's largest x or y
            in_cell = _similarity_cells(tk[t_rows], qk[q_rows], sizes[group], group)
        for c, i in enumerate(rows):
            a, b = ends[c] - counts[c], ends[c]
            if counts[c] < max(min_pairs, 4):
                scores[i] = 0
                continue
            src, dst = tk[t_rows[a:b], :2], qk[q_rows[a:b], :2]
            cell = np.flatnonzero(in_cell[a:b]) if oriented else None
            explained = self._consistent(src, dst, cell, ransac_px)
            scores[i] = 0 if explained is None else int(np.unique(q_rows[a:b][explained]).size)
        return scores

    def _consistent(self, src: np.ndarray, dst: np.ndarray, cell: Optional[np.ndarray],
                    ransac_px: float) -> Optional[np.ndarray]:
        """spatial_scores()' homography for one target's pairs (src target pixels, dst query
        pixels, P×2): fitted to the pairs of its Hough cell (`cell`, rows of src), then again to
        every pair it explains; with `cell` None, to every pair. Returns the P bool pairs it
        explains within `ransac_px`, or None for no fit or a mirrored one."""
        if cell is not None:
            if len(cell) < 4:
                return None
            H, _ = cv2.findHomography(src[cell], dst[cell], cv2.USAC_DEFAULT, 1.5 * ransac_px, maxIters=200,
                                      confidence=0.99)
            explained = None if H is None else self._explained(H, src, dst, ransac_px)
            if explained is not None and explained.sum() >= 4:  # again on every pair it explains
                H2, _ = cv2.findHomography(src[explained], dst[explained], cv2.USAC_DEFAULT, ransac_px,
                                           maxIters=200, confidence=0.99)
                if H2 is not None:
                    H, explained = H2, self._explained(H2, src, dst, ransac_px)
        else:
            H, mask = cv2.findHomography(src, dst, cv2.USAC_DEFAULT, ransac_px, maxIters=1000, confidence=0.99)
            explained = None if H is None else mask.ravel() > 0
        if H is None or np.linalg.det(H[:2, :2]) <= 0:  # no fit, or a mirrored one
            return None
        return explained

    @property
    def _word_type(self):
        return np.uint16 if self._size <= 1 << 16 else np.int32

    def _compact(self, words: np.ndarray, keypoints: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """A layout as kept in memory and in words.npz: words as uint16 (up to 65,536 words) and
        keypoints as float16 (x and y to a quarter pixel up to 1,024 px, finer than the 6 px
        the scores take): 10 bytes a keypoint instead of 20, 150 MiB for 10,000 targets."""
        return np.asarray(words).astype(self._word_type), np.asarray(keypoints).astype(np.float16)

    @staticmethod
    def _explained(H: np.ndarray, src: np.ndarray, dst: np.ndarray, px: float) -> np.ndarray:
        """Which pairs H maps within `px` pixels: P bool."""
        projected = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
        return np.linalg.norm(projected - dst, axis=1) < px

    def save(self, path: str) -> None:
        """Writes the index (.npz: the CSR arrays, the ids and the layouts, concatenated in row
        order with each target's count) through a temporary file renamed into place. Raises
        OSError naming the file."""
        m = self._matrix
        layouts = [self._layouts.get(t, self._compact(np.empty(0), np.empty((0, 4)))) for t in self._ids]
        _write_npz(path, format=np.array(FORMAT), size=np.int64(self._size), ids=np.array(self._ids, np.int64),
                   data=m.data, indices=m.indices, indptr=m.indptr,
                   layout_counts=np.array([len(w) for w, _ in layouts], np.int64),
                   layout_words=np.concatenate([w for w, _ in layouts] or [np.empty(0, self._word_type)]),
                   layout_keypoints=np.concatenate([k for _, k in layouts] or [np.empty((0, 4), np.float16)]))

    @staticmethod
    def load(path: str) -> "WordIndex":
        """Reads an index written by save(). Raises FileNotFoundError or ValueError naming the file."""
        z = _read_npz(path, "word index", ("format", "size", "ids", "data", "indices", "indptr"),
                      optional=("layout_counts", "layout_words", "layout_keypoints"))
        if str(z["format"]) != FORMAT:
            raise ValueError(f"{path}: a word index of format {z['format']}, this service reads {FORMAT}")
        self = WordIndex(int(z["size"]))
        try:
            self._matrix = sparse.csr_matrix((z["data"], z["indices"], z["indptr"]),
                                             shape=(len(z["ids"]), self._size), dtype=np.float32)
        except ValueError as e:
            raise ValueError(f"{path}: a malformed word index: {e}") from e
        self._ids = [int(t) for t in z["ids"]]
        # The layouts (spatial_scores()); an index written before them has none, and is re-ranked by cosine.
        if "layout_counts" in z:
            counts, words, keypoints = z["layout_counts"], z.get("layout_words"), z.get("layout_keypoints")
            if words is None or keypoints is None or counts.ndim != 1 or len(counts) != len(self._ids) \
                    or int(counts.sum()) != len(words) or keypoints.shape != (len(words), 4):
                raise ValueError(f"{path}: a malformed word index: layout_counts, layout_words and layout_keypoints "
                                 "disagree")
            ends = np.cumsum(counts)
            for t, a, b in zip(self._ids, ends - counts, ends):
                if b > a:
                    self._layouts[t] = self._compact(words[a:b], keypoints[a:b])
        return self
