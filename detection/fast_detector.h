#pragma once
// FastDetector: the detection lane's keypoint detector — scale-aware FAST-9 on an image pyramid
// with an even spread over the image (seeds/000 section 6.1 asks for "one of the already
// existing scale-aware modifications of the very efficient FAST detector" with a response
// strength; Wagner, Reitmayr, Mulloni, Drummond, Schmalstieg, "Real-Time Detection and Tracking
// for Augmented Reality on Mobile Phones", IEEE TVCG 16(3) 2010, run FAST on an image pyramid —
// seeds/000 reference [44]).
//
// What it does, in order:
// 1. Pyramid: level 0 is the image itself; level L (1 <= L < levels) has the size
//    round(W / f^L) × round(H / f^L) and is resized from level L−1 (cv::INTER_LINEAR for
//    f <= 2, where the bilinear taps still touch every source pixel; cv::INTER_AREA for f > 2).
//    Levels whose smaller side would be under 7 px (FAST's 7 × 7 support) are not built.
// 2. FAST-9 (cv::FAST, TYPE_9_16, per-level 3 × 3 non-maximum suppression) on every level with
//    the same intensity threshold. The corner score is cv::FAST's score (the largest threshold
//    at which the pixel is still a corner), stored in Keypoint::response. There is no
//    suppression across levels: the same corner found on two adjacent levels yields two
//    keypoints at two SURF scales, and measurement says that helps matching (see below).
// 3. Spread: the image is cut into cellSize × cellSize cells (full-resolution pixels; a keypoint
//    belongs to the cell holding its position). Let k, the equal share, be the smallest count
//    for which keeping at most k corners per cell still leaves maxKeypoints corners. Every cell
//    with a corner keeps its strongest one; no cell keeps more than 2k; the remaining places go
//    to the strongest corners overall. So a textured cell is never left empty (when there are
//    at most maxKeypoints textured cells), and no cell takes more than twice its share.
// 4. The best maxKeypoints are returned strongest first; ties keep the detection order (lower
//    level first, then cv::FAST's raster order: smaller y, then smaller x), so the output is
//    deterministic.
//
// Coordinates: OpenCV's pixel-centre convention (keypoint.h). cv::resize maps a level-L pixel
// centre (u, v) to level-0 coordinates ((u + 0.5)·W/w_L − 0.5, (v + 0.5)·H/h_L − 0.5), where
// w_L × h_L is the level's size (the per-step ratios of a chain telescope to W/w_L), and that
// is the keypoint's position; W/w_L is f^L up to the rounding of the level size.
//
// SURF scale: a level-L keypoint gets s = s0·f^L (s0 = baseScale), so its descriptor window
// (20s, surf_descriptor.h) covers the same part of the scene at every level: 20·s0 level
// pixels, i.e. the same multiple of FAST's radius-3 circle. s0 = 3.0 (the default) means a
// 60 × 60 px window around a level-0 corner and 170 × 170 px at level 3 (f = √2).
//
// Defaults, chosen by measurement (scratch program outside the repository, this code, one core):
// 1000 keypoints per image, oriented SURF-64 (SurfCpu, intensity-centroid angle), nearest
// neighbour with Lowe's ratio 0.8; a match is correct when the ground-truth homography maps it
// within 2.5 px. Pairs: oxford/boat img1→img2 (zoom 0.89, rotation 14°) and img1→img3 (zoom
// 0.74, rotation 39°) — the deciding pairs —, oxford/graf img1→img2/img3 (viewpoint), and "book":
// video/cmu_book's cover scan against cv_desk.png and frames 50, 150, …, 550 of book.mp4 (the
// target is a part of a cluttered frame; ground truth from SIFT + RANSAC; 3 px; sum of the 7).
// rep = repeatability at 2 px (img1 keypoints landing within 2 px of an imgN keypoint over the
// smaller overlap count). ms = median detect() on a 640×480 book.mp4 frame (noisy, shared
// machine; see tests/benchmarks/fast_detector_benchmark.cpp for the benchmark).
//
//   variant (rest = defaults)   boat 1→2 (rep)  boat 1→3 (rep)  graf 1→2  graf 1→3  book    ms
//   defaults √2, 4 lv, s0 3.0,
//     threshold 30, cell 48        322 (0.69)      298 (0.82)      271       118      1222   1.41
//   levels 1 (single scale)        317 (0.61)       95 (0.69)      294        81      1172   0.73
//   levels 3                       328 (0.68)      291 (0.82)      282       117      1275   1.19
//   levels 5                       319 (0.68)      294 (0.83)      255       119      1182   1.47
//   levels 6                       314 (0.68)      295 (0.83)      244       112      1146   1.54
//   factor 2, levels 2             297 (0.62)       99 (0.74)      270        80      1079   0.98
//   factor 2, levels 3             283 (0.61)       94 (0.73)      217        62      1016   0.81
//   factor 2, levels 4             281 (0.59)       94 (0.72)      201        60       986   0.84
//   s0 1.0                         174             160             174        60       604
//   s0 1.2                         215             193             219        85       812
//   s0 1.6                         276             235             273       103      1026
//   s0 2.0                         292             266             273       120      1175
//   s0 2.5                         309             290             270       109      1213
//   s0 4.0                         318             287             239       104      1023
//   threshold 20                   310 (0.67)      293 (0.80)      264       120      1220   1.91
//   threshold 40                   323 (0.69)      299 (0.82)      276       114      1163   1.07
//   threshold 50                   323 (0.69)      313 (0.83)      286       119      1022   0.85
//   cellSize 0 (no spread)         356 (0.76)      371 (0.90)      329       112       978   1.32
//   cellSize 32                    289 (0.64)      271 (0.78)      253       103      1199   1.37
//   cellSize 64                    322 (0.69)      315 (0.86)      304       113      1206   1.35
//   cellSize 96                    352 (0.72)      328 (0.87)      292       109      1186   1.36
//
// Why these: factor √2 beats 2 everywhere, by 3× on boat 1→3, whose zoom (0.74) falls between
// two factor-2 levels (a SURF window off by up to 41% instead of 19%). 4 levels tie with 3 on
// boat and win on larger zooms (boat img1→img4/img5: 118/59 correct matches with 4 levels,
// 100/45 with 3, 120/66 with 5, 6/4 single-scale), for 4% fewer on "book", whose views are at
// the cover's scale; 5 levels add little there and lose on graf and "book". s0: correct
// matches grow up to s0 ≈ 3 (the 20s window, 60 px at level 0, sees more structure around a
// corner) and fall beyond (4.0 loses on graf's viewpoint change and on "book", where a larger
// window reaches past the target). Threshold 30: as good as 20 on "book" and faster, as good as 40
// on boat and graf, and it keeps more corners on low-contrast video (tmt_bookI frames: 600-900
// candidates at 30, 330-580 at 40, for N = 1000). The spread costs matches on the full-frame
// planar pairs (cellSize 0 is best there) but gains 25% on "book", where the target is only
// a part of the view; 48 px is the best cell side there (14 × 10 cells at 640 × 480).
// Also measured and rejected, in earlier scratch runs (5 levels, s0 2.0, threshold 20, an
// equal-share spread on 32 px cells; relative numbers): suppressing a corner found again on the
// adjacent level (boat 1→2/1→3: 157/120 correct matches vs 180/154 without; the second scale
// is a second chance to match), Harris instead of the FAST score (167/104 vs 180/154; graf
// 133/56 vs 178/92), cv::INTER_AREA instead of INTER_LINEAR for the √2 steps (about 4% more
// matches, but 1.0-1.5 ms per 640 × 480 resize instead of 0.1-0.2 ms). With the defaults, a
// per-cell cap of k or 3k instead of 2k: boat 266/221 and 330/315, "book" 1071 and 1105, vs
// 322/298 and 1222.

#include <opencv2/core.hpp>
#include <vector>

#include "detection/keypoint.h"

namespace nft::detection {

/// Settings of FastDetector. The defaults were chosen by the measurement tabled above
/// (correct SURF matches on oxford/boat img1→img2/img3, checked on graf and cmu_book).
struct FastDetectorOptions {
  /// N: the number of keypoints kept (the strongest, after the spread). 1000 fits the GPU
  /// descriptor (SurfEs; seeds/000 section 5 times it with 1020 per image). Allowed: >= 1.
  int maxKeypoints = 1000;
  /// f: the ratio between the sizes of consecutive pyramid levels. Allowed: (1, 4].
  /// √2: 322/298 correct matches on boat 1→2/1→3, vs 297/99 for f = 2 over the same scale
  /// range (2 levels) and 281/94 with 4 levels (table above).
  double scaleFactor = 1.4142135623730951;
  /// Pyramid levels including level 0 (full resolution); the coarsest is 1/f^(levels−1) of the
  /// image. Allowed: [1, 32]; levels smaller than 7 px are not built. 4 (scales 1 to 2.8):
  /// boat 1→2/1→3 322/298 (3 levels: 328/291, 5: 319/294, 1: 317/95); boat 1→4/1→5 118/59
  /// (3 levels: 100/45).
  int levels = 4;
  /// FAST intensity threshold (8-bit grey levels): a pixel is a corner when 9 contiguous
  /// pixels of its radius-3 circle are all brighter than centre + threshold or all darker than
  /// centre − threshold. Allowed: [1, 255]. 30: "book" 1222 correct matches (20: 1220,
  /// 40: 1163, 50: 1022), boat as 40; 1.4 ms per 640 × 480 frame (20: 1.9 ms).
  int threshold = 30;
  /// Side of the spread grid's cells in full-resolution pixels (step 3 above); 0 turns the
  /// spread off (the strongest maxKeypoints overall). Allowed: >= 0. 48: "book" 1222 correct
  /// matches (0: 978, 32: 1199, 64: 1206, 96: 1186).
  int cellSize = 48;
  /// s0: SURF scale s of a level-0 keypoint; level L gets s0·f^L. Allowed: finite, > 0.
  /// 3.0: boat 1→2/1→3 322/298 correct matches (1.0: 174/160, 1.2: 215/193, 1.6: 276/235,
  /// 2.0: 292/266, 2.5: 309/290, 4.0: 318/287), "book" 1222 (2.0: 1175, 4.0: 1023).
  float baseScale = 3.0f;
};

/// Scale-aware FAST-9 keypoint detector with an even spread (see the top of this file).
/// Thread-safe: detect() is const and shares no mutable state between calls.
class FastDetector {
 public:
  /// @throws std::invalid_argument naming the first bad option, its value and its allowed range
  ///   (see FastDetectorOptions).
  explicit FastDetector(const FastDetectorOptions& options = {});

  /// Detects keypoints.
  ///
  /// @param image CV_8UC1 grey or CV_8UC3 BGR (converted with cv::cvtColor COLOR_BGR2GRAY),
  ///   W × H pixels, W, H >= 1; any step (ROIs are fine).
  /// @return at most options().maxKeypoints keypoints (exactly that many when the image has at
  ///   least that many FAST corners over all levels), strongest first: x, y in full-resolution
  ///   pixels (OpenCV pixel centres, 0 <= x <= W − 1, 0 <= y <= H − 1), scale = s0·f^octave,
  ///   angle = kNoAngle (SURF orientation is the descriptor's job), response = FAST score (in
  ///   grey levels, >= threshold), octave = pyramid level.
  /// @throws std::invalid_argument for an empty (including 0 × 0) image, or a type other than
  ///   CV_8UC1 / CV_8UC3 (the message names the type).
  std::vector<Keypoint> detect(const cv::Mat& image) const;

  /// Detects keypoints where `mask` is non-zero only: corners whose pixel (the rounded position)
  /// is 0 in the mask are dropped before the spread and the cap (steps 3-4), so the
  /// maxKeypoints places all go to the allowed part of the image — the search for targets not
  /// yet tracked, with the tracked ones' quads masked (tracker/multi_target_detector.h), spends
  /// the whole budget on what is left instead of losing the masked part's share. An empty mask
  /// is the whole image (as detect(image)).
  /// @param mask CV_8UC1 of the image's size, or empty.
  /// @return and @throws as detect(image); also std::invalid_argument for a mask of another
  ///   size or type.
  std::vector<Keypoint> detect(const cv::Mat& image, const cv::Mat& mask) const;

  /// The options given to the constructor.
  const FastDetectorOptions& options() const;

 private:
  FastDetectorOptions options_;
};

}  // namespace nft::detection
