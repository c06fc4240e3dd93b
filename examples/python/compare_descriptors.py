#!/usr/bin/env python3
"""SURF-ES against OpenCV's ORB and SIFT on an Oxford image pair: recall vs 1 − precision.

    compare_descriptors.py [--sequence graf] [--pair 2] [--keypoints 1000] [--output PNG]

The protocol of Mikolajczyk and Schmid (PAMI 2005) as Hofmann 2012 ("SURF-ES", section 5.2)
uses it: each method detects its own keypoints in img1 and imgN of a sequence of the data folder
($NFT_DATA_DIR, else ../shared/data from the current folder: oxford/<sequence>/img1..6.png and
H1to<N>p) and describes them; every img1 keypoint is matched to its nearest imgN neighbour, and
the match is kept when d1 < r · d2 (the nearest-neighbour distance ratio of Lowe 2004, varied
over r to draw each curve — comparable across L2 and Hamming descriptors).
  recall        = correct matches / correspondences
  1 − precision = false matches / all matches
A match is correct when the ground-truth homography maps its img1 keypoint within --epsilon
pixels of its imgN keypoint; correspondences are the img1 keypoints with some imgN keypoint that
close. Methods:
  SURF-ES   nft.FastDetector (scale-aware FAST) + nft.SurfEs (GPU, OpenGL ES 2.0) + nft.GpuMatcher
  CPU SURF  the same keypoints + nft.CpuSurf (the CPU lane: the same descriptor, exact boxes)
  ORB       cv2.ORB_create (FAST + Harris, oriented BRIEF, Hamming)
  SIFT      cv2.SIFT_create (DoG, 128-bin, L2)
Prints, per method, the matches, recall and 1 − precision at r = 0.8, and writes the plot.

Needs only Debian packages: python3-numpy, python3-opencv, python3-matplotlib, and the nft module.
"""

import argparse
import os
import pathlib
import sys

import cv2
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import nft  # noqa: E402

RATIOS = np.linspace(0.3, 1.0, 36)


def nearest_two(query, train, norm):
    """For each query row: index of the nearest train row, d1 and d2 (OpenCV's brute force)."""
    knn = cv2.BFMatcher(norm).knnMatch(query, train, k=2)
    idx = np.array([m[0].trainIdx for m in knn])
    d1 = np.array([m[0].distance for m in knn], np.float64)
    d2 = np.array([m[1].distance if len(m) > 1 else np.inf for m in knn], np.float64)
    return idx, d1, d2


def curve(p1, p2, idx, d1, d2, H, eps):
    """recall and 1 − precision for every ratio of RATIOS, and the values at r = 0.8."""
    mapped = cv2.perspectiveTransform(p1.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
    dist_all = np.linalg.norm(mapped[:, None, :] - p2[None, :, :], axis=2)
    correspondences = int(np.sum(dist_all.min(axis=1) < eps))
    correct = dist_all[np.arange(len(p1)), idx] < eps
    recall, one_minus_precision = [], []
    for r in list(RATIOS) + [0.8]:
        kept = d1 < r * d2
        n = int(kept.sum())
        good = int(np.sum(kept & correct))
        recall.append(good / max(correspondences, 1))
        one_minus_precision.append((n - good) / n if n else 0.0)
    at08 = (recall.pop(), one_minus_precision.pop(), int(np.sum((d1 < 0.8 * d2) & correct)),
            int(np.sum(d1 < 0.8 * d2)))
    return np.array(recall), np.array(one_minus_precision), correspondences, at08


def main() -> int:
    data = pathlib.Path(os.environ.get("NFT_DATA_DIR") or "../shared/data")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(data), help="data folder (holding oxford/)")
    parser.add_argument("--sequence", default="graf", help="graf, boat, wall, bikes, ...")
    parser.add_argument("--pair", type=int, default=2, choices=range(2, 7), help="img1 against imgN")
    parser.add_argument("--keypoints", type=int, default=1000, help="keypoints per image and method")
    parser.add_argument("--epsilon", type=float, default=2.5, help="correctness radius, pixels")
    parser.add_argument("--output", default="compare_descriptors.png", help="the plot (PNG)")
    args = parser.parse_args()

    folder = pathlib.Path(args.data) / "oxford" / args.sequence
    try:
        img1 = cv2.imread(str(folder / "img1.png"), cv2.IMREAD_GRAYSCALE)
        img2 = cv2.imread(str(folder / f"img{args.pair}.png"), cv2.IMREAD_GRAYSCALE)
        H = np.loadtxt(folder / f"H1to{args.pair}p")
    except OSError as e:
        print(f"compare_descriptors: {e} (set NFT_DATA_DIR or --data)", file=sys.stderr)
        return 1
    if img1 is None or img2 is None:
        print(f"compare_descriptors: cannot read img1/img{args.pair} in {folder}", file=sys.stderr)
        return 1

    results = {}
    # SURF-ES: the project's detection lane — scale-aware FAST, SURF-ES and matching on the GPU.
    fast = nft.FastDetector(max_keypoints=args.keypoints)
    k1, k2 = fast.detect(img1), fast.detect(img2)
    surf_es = nft.SurfEs()
    d1_es, k1_es = surf_es.describe(img1, k1, return_keypoints=True)
    d2_es = surf_es.describe(img2, k2)
    matcher = nft.GpuMatcher()
    matcher.set_target(d2_es)
    idx, dist1, dist2 = matcher.nearest(d1_es)
    results["SURF-ES (GPU)"] = curve(k1[:, :2], k2[:, :2], idx, dist1.astype(np.float64), dist2.astype(np.float64),
                                     H, args.epsilon)
    cpu = nft.CpuSurf()
    d1_cpu, d2_cpu = cpu.describe(img1, k1), cpu.describe(img2, k2)
    results["CPU SURF"] = curve(k1[:, :2], k2[:, :2], *nearest_two(d1_cpu, d2_cpu, cv2.NORM_L2), H, args.epsilon)
    # OpenCV's alternatives, as users would otherwise pick them.
    for name, detector, norm in (("ORB", cv2.ORB_create(nfeatures=args.keypoints), cv2.NORM_HAMMING),
                                 ("SIFT", cv2.SIFT_create(nfeatures=args.keypoints), cv2.NORM_L2)):
        kp1, de1 = detector.detectAndCompute(img1, None)
        kp2, de2 = detector.detectAndCompute(img2, None)
        p1 = np.array([k.pt for k in kp1], np.float64)
        p2 = np.array([k.pt for k in kp2], np.float64)
        results[name] = curve(p1, p2, *nearest_two(de1, de2, norm), H, args.epsilon)

    print(f"{args.sequence} img1 -> img{args.pair}, {args.keypoints} keypoints, epsilon {args.epsilon} px, "
          f"ratio 0.8 ({surf_es.context.renderer}):")
    print(f"  {'method':<14} {'correspondences':>15} {'matches':>8} {'correct':>8} {'recall':>7} {'1-precision':>12}")
    for name, (_, _, corr, (rec, omp, good, n)) in results.items():
        print(f"  {name:<14} {corr:>15} {n:>8} {good:>8} {rec:>7.3f} {omp:>12.3f}")

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, (recall, omp, _, _) in results.items():
        ax.plot(omp, recall, "-", label=name)
    ax.set_xlabel("1 − precision")
    ax.set_ylabel("recall")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(f"oxford/{args.sequence} img1 → img{args.pair} (ratio test 0.3 … 1.0)")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
