#!/usr/bin/env python3
"""Draw the results of `nft_eval`: the descriptor evaluation as recall vs 1-precision curves, and
the tracking evaluation as success rate vs alignment-error threshold.

Descriptors (`nft_eval descriptors --out FILE`): one PNG per sequence and image pair (and one for the curve averaged over a sequence's pairs,
pair "mean"), each with one curve per extractor, like figures 13-16 of the SURF-ES thesis
(seeds/000 section 5.2). The ratio-test result of each extractor is drawn as a marker on its
curve's colour.

Input: the CSV that `nft_eval descriptors --out FILE` writes (header
sequence,extractor,pair,kind,threshold,recall,one_minus_precision,matches,correct,
correspondences,keypoints1,keypointsN). Rows of a pair without ground-truth correspondences
(recall undefined, e.g. graf 1-6) are left out.

Tracking (`nft_eval tracking --curve FILE`, header method,threshold_px,success_rate): one PNG,
<out-dir>/<name of the CSV>.png, with one curve per method (ours and the OpenCV baselines) —
the fraction of frames whose alignment error is at most the threshold — and the 5 and 10 px
thresholds marked. The kind of CSV is recognised by its header.

Needs Python 3 and matplotlib only (Debian: python3-matplotlib); no numpy or pandas.

Usage:
    scripts/plot_eval.py results.csv [--out-dir plots] [--pairs all|mean|1-2,1-3]
                         [--extractors surf-es,sift] [--max-x 1.0]
    scripts/plot_eval.py curve.csv [--out-dir plots] [--title "tmt_bookI"]
"""

import argparse
import collections
import csv
import os
import sys

TRACKING_COLUMNS = ("method", "threshold_px", "success_rate")
REQUIRED_COLUMNS = ("sequence", "extractor", "pair", "kind", "threshold", "recall",
                    "one_minus_precision", "matches", "correspondences")


def read_results(path):
    """Reads the CSV into {(sequence, pair): {extractor: {"curve": [(x, y)], "nn": (x, y)}}}.

    Curve points are in threshold order, as written; points without matches (1-precision
    undefined) and groups without correspondences are skipped. Raises SystemExit with a message
    naming the file for a missing file or column.
    """
    try:
        handle = open(path, newline="", encoding="utf-8")
    except OSError as error:
        sys.exit(f"plot_eval: cannot read '{path}': {error.strerror}")
    groups = collections.OrderedDict()
    with handle:
        reader = csv.DictReader(handle)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"plot_eval: '{path}' lacks the column(s) {', '.join(missing)} "
                     "(is it the --out file of nft_eval descriptors?)")
        for row in reader:
            if int(row["correspondences"]) == 0:
                continue  # recall undefined
            key = (row["sequence"], row["pair"])
            entry = groups.setdefault(key, collections.OrderedDict()).setdefault(
                row["extractor"], {"curve": [], "nn": None})
            point = (float(row["one_minus_precision"]), float(row["recall"]))
            if row["kind"] == "nn":
                entry["nn"] = point if int(row["matches"]) > 0 else None
            elif int(row["matches"]) > 0:
                entry["curve"].append(point)
    return groups


def csv_columns(path):
    """The header's column names of a CSV (empty for an empty file); exits naming an unreadable file."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return next(csv.reader(handle), [])
    except OSError as error:
        sys.exit(f"plot_eval: cannot read '{path}': {error.strerror}")


def read_tracking_curves(path):
    """Reads `nft_eval tracking --curve` output into {method: [(threshold_px, success_rate)]}."""
    curves = collections.OrderedDict()
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            curves.setdefault(row["method"], []).append(
                (float(row["threshold_px"]), float(row["success_rate"])))
    for points in curves.values():
        points.sort()
    return curves


def plot_tracking(plt, curves, out_dir, name, title):
    """Draws success rate vs threshold, one curve per method; saves <out_dir>/<name>.png."""
    figure, axes = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    for index, (method, points) in enumerate(curves.items()):
        axes.plot([p[0] for p in points], [p[1] for p in points], color=f"C{index % 10}", linewidth=1.8,
                  label=method)
    for threshold in (5.0, 10.0):
        axes.axvline(threshold, color="0.6", linewidth=0.8, linestyle=":")
    axes.set_xlim(0.0, max((p[-1][0] for p in curves.values() if p), default=20.0))
    axes.set_ylim(0.0, 1.02)
    axes.set_xlabel("alignment error threshold (px)")
    axes.set_ylabel("success rate (fraction of frames)")
    axes.set_title(title or "success rate vs threshold")
    return save_figure(plt, figure, axes, os.path.join(out_dir, f"{name}.png"))


def save_figure(plt, figure, axes, path):
    """Adds the grid and the legend, saves the figure as `path` and closes it; returns the path."""
    axes.grid(True, linewidth=0.3)
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def wanted(name, filters):
    """True when no filter is given or `name` contains one of them."""
    return not filters or any(f in name for f in filters)


def plot_group(plt, sequence, pair, extractors, out_dir, max_x):
    """Draws one figure and saves it as <out_dir>/<sequence>_<pair>.png; returns the path."""
    figure, axes = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    for index, (name, data) in enumerate(extractors.items()):
        colour = f"C{index % 10}"
        if data["curve"]:
            xs = [0.0] + [p[0] for p in data["curve"]]  # the curve starts at no matches
            ys = [0.0] + [p[1] for p in data["curve"]]
            axes.plot(xs, ys, color=colour, linewidth=1.5, label=name)
        if data["nn"] is not None:
            axes.plot([data["nn"][0]], [data["nn"][1]], marker="o", color=colour, linestyle="none")
    axes.axvline(0.2, color="0.6", linewidth=0.8, linestyle=":")
    axes.set_xlim(0.0, max_x)
    axes.set_ylim(0.0, 1.0)
    axes.set_xlabel("1 - precision")
    axes.set_ylabel("recall")
    title = f"{sequence}: mean over pairs" if pair == "mean" else f"{sequence}: img1 -> img{pair.split('-')[-1]}"
    axes.set_title(title + " (dots: ratio test)")
    return save_figure(plt, figure, axes, os.path.join(out_dir, f"{sequence}_{pair}.png"))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Plots of nft_eval results: recall vs 1-precision (descriptors --out) or success rate vs "
                    "threshold (tracking --curve).")
    parser.add_argument("csv", help="CSV written by nft_eval descriptors --out or nft_eval tracking --curve")
    parser.add_argument("--out-dir", default="plots", help="folder for the PNG files (made if missing)")
    parser.add_argument("--pairs", default="all",
                        help="'all', 'mean', or a comma-separated list such as 1-2,1-3,mean")
    parser.add_argument("--extractors", default="",
                        help="comma-separated substrings; only extractors whose name contains one are drawn")
    parser.add_argument("--max-x", type=float, default=1.0, help="right end of the 1-precision axis")
    parser.add_argument("--title", default="", help="tracking: the figure's title (default: a generic one)")
    args = parser.parse_args(argv)
    tracking = all(c in csv_columns(args.csv) for c in TRACKING_COLUMNS)

    try:
        import matplotlib
        matplotlib.use("Agg")  # files only; no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_eval: matplotlib is missing (Debian: apt-get install python3-matplotlib)")

    if tracking:
        curves = read_tracking_curves(args.csv)
        if not curves:
            sys.exit(f"plot_eval: '{args.csv}' has no curve rows")
        os.makedirs(args.out_dir, exist_ok=True)
        name = os.path.splitext(os.path.basename(args.csv))[0]
        print(plot_tracking(plt, curves, args.out_dir, name, args.title))
        return 0

    groups = read_results(args.csv)
    pairs = None if args.pairs == "all" else set(args.pairs.split(","))
    filters = [f for f in args.extractors.split(",") if f]
    os.makedirs(args.out_dir, exist_ok=True)
    written = 0
    for (sequence, pair), extractors in groups.items():
        if pairs is not None and pair not in pairs:
            continue
        chosen = collections.OrderedDict((n, d) for n, d in extractors.items() if wanted(n, filters))
        if not chosen:
            continue
        print(plot_group(plt, sequence, pair, chosen, args.out_dir, args.max_x))
        written += 1
    if written == 0:
        sys.exit(f"plot_eval: nothing to draw from '{args.csv}' with these filters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
