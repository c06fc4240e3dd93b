"""Geometric verification of one shortlisted target against a query's keypoints and descriptors.

The project's own matcher (nft.GpuMatcher: brute force on the GPU with OpenGL ES 2.0 and Lowe's
ratio test, Hofmann 2012 section 6.1) pairs the query's descriptors with the target's; OpenCV's
USAC homography (cv2.findHomography with cv2.USAC_DEFAULT: RANSAC, Fischler & Bolles 1981, with
SPRT's early rejection of bad hypotheses and local optimisation, Ivashechkin et al. 2021) keeps the
pairs one plane explains; the target is verified when enough pairs fit and the homography maps the target's outline to a
convex quad, as the tracker's detection lane checks (tracker/, DESIGN.md).
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import cv2
import numpy as np


@dataclasses.dataclass(frozen=True)
class Verification:
    """The outcome of verify_target().

    homography: 3×3 float64 target pixels → query pixels (None when not verified).
    quad:       4×2 float64, the target's corners (0,0), (w,0), (w,h), (0,h) in the query, pixels.
    inliers:    pairs the homography explains within the RANSAC threshold.
    matches:    pairs that passed the ratio test.
    coverage:   the area of the inliers' convex hull over the target's, in [0, 1] (0 when not
                verified): how much of the target the view shows matched. A catalogue's targets
                may share content (two crops of one page); a view of one matches the other too,
                but only where they overlap (Recognizer.recognize() ranks by inliers · √coverage).
    """

    verified: bool
    homography: Optional[np.ndarray]
    quad: Optional[np.ndarray]
    inliers: int
    matches: int
    coverage: float = 0.0


def _points(keypoints: np.ndarray, name: str) -> np.ndarray:
    k = np.asarray(keypoints, dtype=np.float32)
    if k.ndim != 2 or k.shape[1] < 2:
        raise ValueError(f"{name}: expected an N×2 (or N×5, x and y first) array of pixels, got shape {k.shape}")
    return np.ascontiguousarray(k[:, :2])


def verify_target(matcher, target_keypoints: np.ndarray, target_descriptors: np.ndarray, target_size,
                  query_keypoints: np.ndarray, query_descriptors: np.ndarray, ratio: float = 0.8,
                  ransac_px: float = 4.0, min_inliers: int = 15) -> Verification:
    """Verifies one target in a query.

    matcher:            an nft.GpuMatcher (reused between calls; its target is replaced).
    target_keypoints:   N×2 or N×5 float32 (x, y first), target pixels, row i for target_descriptors[i].
    target_descriptors: N×D float32 unit rows (nft.TrainedTarget.descriptors).
    target_size:        (width, height) of the target image, pixels.
    query_keypoints:    M×2 or M×5 float32, query pixels, row i for query_descriptors[i].
    query_descriptors:  M×D float32 unit rows (nft.CpuSurf / nft.SurfEs describe()).
    ratio:              Lowe's ratio test, (0, 1].
    ransac_px:          RANSAC's reprojection threshold, query pixels.
    min_inliers:        fewest inliers for a verified target.

    Raises ValueError naming a wrong shape or a row count that differs between keypoints and
    descriptors."""
    tk, qk = _points(target_keypoints, "target_keypoints"), _points(query_keypoints, "query_keypoints")
    td, qd = np.asarray(target_descriptors, np.float32), np.asarray(query_descriptors, np.float32)
    if len(tk) != len(td):
        raise ValueError(f"target_keypoints has {len(tk)} rows but target_descriptors {len(td)}")
    if len(qk) != len(qd):
        raise ValueError(f"query_keypoints has {len(qk)} rows but query_descriptors {len(qd)}")
    none = Verification(False, None, None, 0, 0)
    if len(td) < 4 or len(qd) < 4:
        return none
    matcher.set_target(td)
    m = matcher.match(qd, ratio=ratio)
    count = len(m)
    if count < max(min_inliers, 4):
        return dataclasses.replace(none, matches=count)
    src, dst = tk[m.target], qk[m.query]
    # USAC, not plain RANSAC: on a candidate the query does not show, few pairs fit and plain RANSAC
    # runs all its iterations (8.5 ms a candidate on the 1,000-target benchmark's views, most of a
    # query's verification); USAC's SPRT stops at 0.25 ms, verifying the same shown targets (39 of 40).
    H, mask = cv2.findHomography(src, dst, cv2.USAC_DEFAULT, ransac_px, maxIters=2000, confidence=0.995)
    if H is None:
        return dataclasses.replace(none, matches=count)
    inliers = int(mask.sum())
    w, h = target_size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(corners, H).reshape(4, 2)
    convex = cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2))
    verified = inliers >= min_inliers and convex and np.linalg.det(H[:2, :2]) > 0
    if not verified:
        return Verification(False, None, None, inliers, count)
    hull = cv2.convexHull(src[mask.ravel() > 0].reshape(-1, 1, 2))
    coverage = min(float(cv2.contourArea(hull)) / max(float(w * h), 1.0), 1.0)
    return Verification(True, H, quad, inliers, count, coverage)
