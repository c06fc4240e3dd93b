#!/usr/bin/python3
"""Makes distractor targets for the many-targets tests and benchmarks: crops of real photographs
from Debian packages and ../shared/data, written as PNGs with a list file for
`nft_train --database DB --list LIST`, and SOURCES.tsv naming where each crop comes from.

Sources (nothing is copied into the repository; this script makes the crops on any machine):
  /usr/share/backgrounds/gnome            gnome-backgrounds (CC-BY-SA wallpapers, photographs)
  /usr/share/wallpapers/*/contents/images plasma-workspace-wallpapers (the largest of each)
  /usr/share/doc/opencv-doc/examples/data opencv-doc's sample photographs
  ../shared/data/oxford                   the Oxford affine-covariant sequences (first image each)
Crops are random rectangles (seeded: the same arguments give the same crops) of 160-512 px
sides, scaled to at most 480 px, kept only when textured enough to train (mean local standard
deviation >= 12, like the trainer's 'too plain' limit, and >= 200 FAST corners at the default threshold, 30) and not nearly the same as an earlier crop
of the same photograph (intersection over union at most 0.5: a crop at another scale of the same
place is a different picture). With --mirror, each photograph is also used mirrored left to right
(SOURCES.tsv names it PATH#mirrored): SURF is not invariant to mirroring, so a mirrored crop is a
picture of its own, and the sources give about twice the crops (the catalogue benchmark's 10,000).

Usage: scripts/make-distractors.py OUT_DIR [--count 1000] [--seed 1] [--data ../shared/data]
                                   [--exclude FILE...] [--exclude-multi-target] [--max-overlap 0.5]
                                   [--mirror]
Needs Debian's python3-opencv (scripts/install-deps.sh installs it), hence /usr/bin/python3.
"""
import argparse
import os
import random
import sys

try:
    import cv2
except ImportError:
    sys.exit("make-distractors: python3-opencv is missing (apt-get install python3-opencv)")

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")


def photographs(data_dir):
    """Every source photograph, sorted, as (path, label)."""
    found = []
    for folder in ("/usr/share/backgrounds/gnome", "/usr/share/doc/opencv-doc/examples/data"):
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.lower().endswith(IMAGE_EXTENSIONS):
                    found.append(os.path.join(folder, name))
    plasma = "/usr/share/wallpapers"
    if os.path.isdir(plasma):
        for wallpaper in sorted(os.listdir(plasma)):
            folder = os.path.join(plasma, wallpaper, "contents", "images")
            if os.path.isdir(folder):
                sizes = [n for n in os.listdir(folder) if n.lower().endswith(IMAGE_EXTENSIONS)]
                if sizes:  # one picture in several resolutions: the largest file
                    found.append(max((os.path.join(folder, n) for n in sizes), key=os.path.getsize))
    oxford = os.path.join(data_dir, "oxford")
    if os.path.isdir(oxford):
        for sequence in sorted(os.listdir(oxford)):
            path = os.path.join(oxford, sequence, "img1.png")
            if os.path.isfile(path):
                found.append(path)
    return found


# The opencv-doc images synthetic/multi_target_sequence.cpp prints on its table (and its background),
# and the photographs that show a print too: the same graffiti as graf1.png (graf3.png and the
# Oxford graf sequence's first image), box.png's box in a scene (box_in_scene.png: a crop of it is
# the box print, and was recognised as such on the 8-print grid), the same fields as aero3.jpg
# from another flight (aero1.jpg).
MULTI_TARGET_IMAGES = ("graf1.png", "starry_night.jpg", "baboon.jpg", "butterfly.jpg", "box.png", "chicky_512.png",
                       "aero3.jpg", "messi5.jpg", "building.jpg", "graf3.png", "oxford/graf/img1.png",
                       "box_in_scene.png", "aero1.jpg")

FAST = cv2.FastFeatureDetector_create(30)  # the config's detector.threshold


def textured(gray):
    # Enough corners for the trainer to keep the 20+ keypoints a detection needs anywhere on it.
    if len(FAST.detect(gray)) < 200:
        return False
    blur = cv2.blur(gray.astype("float32"), (7, 7))
    sq = cv2.blur(gray.astype("float32") ** 2, (7, 7))
    local_sd = cv2.sqrt(cv2.max(sq - blur * blur, 0))
    return float(local_sd.mean()) >= 12.0


def overlap(a, b):
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    shared = max(0, x1 - x0) * max(0, y1 - y0)
    return shared / float(a[2] * a[3] + b[2] * b[3] - shared)  # intersection over union


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--count", type=int, default=1000, help="crops to make (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--exclude", nargs="*", default=[], metavar="FILE",
                        help="source photographs to leave out, by the end of their path (a file name, or e.g. "
                             "oxford/graf/img1.png)")
    parser.add_argument("--exclude-multi-target", action="store_true",
                        help="leave out the images of the multi-target synthetic sequence (nft_eval multi) and "
                             "the photographs showing its prints, which would otherwise also be crops in the database")
    parser.add_argument("--max-overlap", type=float, default=0.5,
                        help="largest intersection over union of two crops of one photograph (default 0.5; 0: "
                             "disjoint crops, no content in two targets, as the catalogue benchmark wants)")
    parser.add_argument("--mirror", action="store_true",
                        help="also crop each photograph mirrored left to right (PATH#mirrored in SOURCES.tsv)")
    args = parser.parse_args()
    if not 0 <= args.max_overlap <= 1:
        sys.exit(f"make-distractors: --max-overlap {args.max_overlap}: expected a value in [0, 1]")
    if args.count < 1:
        sys.exit("make-distractors: --count must be at least 1")
    excluded = set(args.exclude) | (set(MULTI_TARGET_IMAGES) if args.exclude_multi_target else set())
    sources = [p for p in photographs(args.data)
               if not any(p == e or p.endswith(os.sep + e) for e in excluded)]
    images = []
    for path in sources:
        image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if image is not None and min(image.shape) >= 160:
            images.append((path, image))
            if args.mirror:
                images.append((path + "#mirrored", cv2.flip(image, 1)))
    if not images:
        sys.exit("make-distractors: no source photograph found (install gnome-backgrounds, "
                 "plasma-workspace-wallpapers and opencv-doc)")
    os.makedirs(args.out_dir, exist_ok=True)
    rng = random.Random(args.seed)
    taken = {path: [] for path, _ in images}
    rows, sources_rows = [], []
    attempts = 0
    while len(rows) < args.count:
        attempts += 1
        if attempts > 200 * args.count:
            sys.exit("make-distractors: only %d crops found in %d photographs" % (len(rows), len(images)))
        path, image = images[rng.randrange(len(images))]
        h, w = image.shape
        side_w = rng.randint(160, min(512, w))
        side_h = rng.randint(160, min(512, h))
        x, y = rng.randint(0, w - side_w), rng.randint(0, h - side_h)
        rect = (x, y, side_w, side_h)
        if any(overlap(rect, r) > args.max_overlap for r in taken[path]):
            continue
        crop = image[y:y + side_h, x:x + side_w]
        scale = min(1.0, 480.0 / max(side_w, side_h))
        if scale < 1.0:
            crop = cv2.resize(crop, (int(side_w * scale), int(side_h * scale)), interpolation=cv2.INTER_AREA)
        if not textured(crop):
            continue
        taken[path].append(rect)
        name = "distractor%04d" % len(rows)
        cv2.imwrite(os.path.join(args.out_dir, name + ".png"), crop)
        rows.append("%s %s.png 0.2" % (name, name))
        sources_rows.append("%s\t%s\t%d\t%d\t%d\t%d" % (name, path, x, y, side_w, side_h))
        if len(rows) % 100 == 0:
            print("make-distractors: %d/%d crops" % (len(rows), args.count), file=sys.stderr)
    with open(os.path.join(args.out_dir, "targets.txt"), "w") as f:
        f.write("# name image width_m (scripts/make-distractors.py, seed %d)\n" % args.seed)
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(args.out_dir, "SOURCES.tsv"), "w") as f:
        f.write("name\tphotograph\tx\ty\twidth\theight\n" + "\n".join(sources_rows) + "\n")
    print("make-distractors: %d crops of %d photographs in %s (targets.txt, SOURCES.tsv)"
          % (len(rows), len(images), args.out_dir))


if __name__ == "__main__":
    main()
