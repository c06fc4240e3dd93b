// Tests of FastDetector (detection/fast_detector.h): repeatability on real images against
// single-scale FAST, SURF scales that follow the pyramid level, exact level-to-full coordinate
// mapping on synthetic images, the spread rule, and errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/fast_detector.h"
#include "support/test_data.h"

namespace nft::detection {
namespace {

constexpr double kSqrt2 = 1.4142135623730951;
// Enough places for every FAST corner of an image: detect() then returns all candidates.
constexpr int kAll = 1 << 30;

// A 3x3 homography of the oxford data set (whitespace-separated text, row-major).
cv::Matx33d readHomography(const std::string& relative) {
  const std::string path = (nft::testing::dataDir() / relative).string();
  std::ifstream in(path);
  cv::Matx33d h;
  for (int i = 0; i < 9; ++i) {
    if (!(in >> h.val[i])) throw std::runtime_error("cannot read homography " + path);
  }
  return h;
}

cv::Point2d apply(const cv::Matx33d& h, double x, double y) {
  const cv::Vec3d q = h * cv::Vec3d(x, y, 1.0);
  return {q[0] / q[2], q[1] / q[2]};
}

bool inside(const cv::Point2d& p, const cv::Size& size) {
  return p.x >= 0.0 && p.y >= 0.0 && p.x <= size.width - 1.0 && p.y <= size.height - 1.0;
}

// Standard repeatability: an img1 keypoint is repeated when H maps it within `tolerance` px of
// an img2 keypoint; counted over img1 keypoints that map inside img2, divided by the smaller of
// that count and the number of img2 keypoints that H⁻¹ maps inside img1.
double repeatability(const std::vector<Keypoint>& a, const std::vector<Keypoint>& b, const cv::Matx33d& h,
                     const cv::Size& sizeA, const cv::Size& sizeB, double tolerance) {
  const cv::Matx33d inverse = h.inv();
  int inA = 0, inB = 0, repeated = 0;
  for (const Keypoint& k : b) inB += inside(apply(inverse, k.x, k.y), sizeA) ? 1 : 0;
  for (const Keypoint& k : a) {
    const cv::Point2d p = apply(h, k.x, k.y);
    if (!inside(p, sizeB)) continue;
    ++inA;
    for (const Keypoint& q : b) {
      if (std::hypot(q.x - p.x, q.y - p.y) <= tolerance) {
        ++repeated;
        break;
      }
    }
  }
  const int denominator = std::min(inA, inB);
  return denominator > 0 ? static_cast<double>(repeated) / denominator : 0.0;
}

// The invariants every detect() result has, whatever the image.
void expectWellFormed(const std::vector<Keypoint>& kps, const cv::Size& size, const FastDetectorOptions& o) {
  for (size_t i = 0; i < kps.size(); ++i) {
    const Keypoint& k = kps[i];
    ASSERT_GE(k.x, 0.0f) << i;
    ASSERT_LE(k.x, static_cast<float>(size.width - 1)) << i;
    ASSERT_GE(k.y, 0.0f) << i;
    ASSERT_LE(k.y, static_cast<float>(size.height - 1)) << i;
    ASSERT_GE(k.octave, 0) << i;
    ASSERT_LT(k.octave, o.levels) << i;
    ASSERT_NEAR(k.scale, o.baseScale * std::pow(o.scaleFactor, k.octave), 1e-4 * k.scale) << i;
    ASSERT_EQ(k.angle, kNoAngle) << i;
    ASSERT_GE(k.response, static_cast<float>(o.threshold)) << i;
    if (i > 0) {
      ASSERT_GE(kps[i - 1].response, k.response) << "not strongest first at " << i;
    }
  }
}

// ---- 1. Repeatability on oxford/boat img1 → img2 ---------------------------------------------

TEST(FastDetector, RepeatabilityOnBoatBeatsSingleScale) {
  NFT_REQUIRE_DATA("oxford/boat/img1.png");
  const cv::Mat img1 = nft::testing::loadGray("oxford/boat/img1.png");
  const cv::Mat img2 = nft::testing::loadGray("oxford/boat/img2.png");
  const cv::Matx33d h = readHomography("oxford/boat/H1to2p");

  const FastDetectorOptions scaled;  // the defaults
  FastDetectorOptions single = scaled;
  single.levels = 1;
  const FastDetector scaleAware(scaled), singleScale(single);
  const std::vector<Keypoint> a = scaleAware.detect(img1), b = scaleAware.detect(img2);
  const std::vector<Keypoint> sa = singleScale.detect(img1), sb = singleScale.detect(img2);
  ASSERT_EQ(a.size(), 1000u);
  ASSERT_EQ(b.size(), 1000u);
  ASSERT_EQ(sa.size(), a.size());  // the same keypoint budget for both
  ASSERT_EQ(sb.size(), b.size());
  expectWellFormed(a, img1.size(), scaled);
  expectWellFormed(sa, img1.size(), single);

  const double rScaled = repeatability(a, b, h, img1.size(), img2.size(), 2.0);
  const double rSingle = repeatability(sa, sb, h, img1.size(), img2.size(), 2.0);
  RecordProperty("repeatability_scale_aware", std::to_string(rScaled));
  RecordProperty("repeatability_single_scale", std::to_string(rSingle));
  std::cout << "boat img1->img2 repeatability at 2 px: scale-aware " << rScaled << ", single-scale " << rSingle
            << std::endl;
  EXPECT_GE(rScaled, 0.5);
  EXPECT_GT(rScaled, rSingle);
}

// ---- 2. SURF scale follows the pyramid level -------------------------------------------------

// The same scene at half the resolution must be found one octave (two √2 levels) lower with
// half the SURF scale: s_half ≈ s_full / 2. Keypoints are paired by position only (never by
// scale), so a scale that did not come from the level — a constant s0 (ratio 2), or s0·2^L
// (ratio 1/2) — fails. All corners are compared (no selection), so that a corner kept in one
// image is not missing from the other for the spread's sake.
TEST(FastDetector, HalvedImageHasHalfTheScale) {
  NFT_REQUIRE_DATA("oxford/boat/img1.png");
  const cv::Mat full = nft::testing::loadGray("oxford/boat/img1.png");
  cv::Mat half;
  cv::resize(full, half, cv::Size(full.cols / 2, full.rows / 2), 0.0, 0.0, cv::INTER_AREA);
  ASSERT_EQ(full.cols, 2 * half.cols);
  ASSERT_EQ(full.rows, 2 * half.rows);

  FastDetectorOptions halfOptions;  // defaults, every corner
  halfOptions.maxKeypoints = kAll;
  FastDetectorOptions fullOptions = halfOptions;  // two more levels: half level L is full L + 2
  fullOptions.levels += 2;
  std::vector<Keypoint> kf = FastDetector(fullOptions).detect(full);
  const std::vector<Keypoint> kh = FastDetector(halfOptions).detect(half);
  const double f = halfOptions.scaleFactor;
  std::sort(kf.begin(), kf.end(), [](const Keypoint& a, const Keypoint& b) { return a.x < b.x; });

  int paired = 0, withinOneStep = 0, exact = 0;
  for (const Keypoint& h : kh) {
    // Half-image pixel centres map to full-image pixel centres by x_full = 2·(x + 0.5) − 0.5.
    const double px = 2.0 * (h.x + 0.5) - 0.5, py = 2.0 * (h.y + 0.5) - 0.5;
    // Less than one pixel of the matching full level L + 2 (2·f^L full pixels); the counterpart
    // on the same level grid lies at distance 0.
    const double radius = std::pow(f, h.octave);
    const Keypoint* nearest = nullptr;
    double best = radius;
    auto it = std::lower_bound(kf.begin(), kf.end(), px - radius,
                               [](const Keypoint& k, double x) { return k.x < x; });
    for (; it != kf.end() && it->x <= px + radius; ++it) {
      const double d = std::hypot(it->x - px, it->y - py);
      if (d <= best) {
        best = d;
        nearest = &*it;
      }
    }
    if (nearest == nullptr) continue;
    ++paired;
    const double ratio = h.scale / (nearest->scale / 2.0);
    if (ratio <= f * (1.0 + 1e-4) && ratio >= (1.0 - 1e-4) / f) ++withinOneStep;
    if (std::abs(ratio - 1.0) < 1e-4) ++exact;
  }
  const double fraction = paired > 0 ? static_cast<double>(withinOneStep) / paired : 0.0;
  const double exactFraction = paired > 0 ? static_cast<double>(exact) / paired : 0.0;
  RecordProperty("paired", paired);
  RecordProperty("within_one_step", std::to_string(fraction));
  RecordProperty("exactly_half", std::to_string(exactFraction));
  std::cout << "paired " << paired << " of " << kh.size() << " half-image corners: " << fraction
            << " within one level of s_full/2, " << exactFraction << " exactly s_full/2" << std::endl;
  ASSERT_GE(paired, static_cast<int>(kh.size() / 2));
  EXPECT_GE(fraction, 0.8);
}

// ---- 3. Coordinates map back to full resolution ----------------------------------------------

// With f = 2 on a 512 × 512 image every level is an exact 2 × 2 average of the previous one.
// A bright block of 2^L × 2^L pixels aligned to multiples of 2^L is a single bright pixel at
// level L — a FAST corner there (its whole circle is darker) — and its centre is, by geometry
// alone, the full-resolution point that level pixel stands for: (u + 0.5)·2^L − 0.5.
TEST(FastDetector, LevelPixelsMapExactlyToFullResolution) {
  cv::Mat image(512, 512, CV_8UC1, cv::Scalar(40));
  struct Dot {
    int level, x, y;  // block of side 2^level with top-left pixel (x, y)
  };
  std::vector<Dot> dots;
  for (int level = 0; level < 4; ++level) {
    for (int i = 0; i < 3; ++i) {
      const int side = 1 << level;
      dots.push_back({level, 48 + 128 * i + 8 * level, 64 + 112 * level + 8 * i});
      cv::rectangle(image, cv::Rect(dots.back().x, dots.back().y, side, side), cv::Scalar(220), cv::FILLED);
    }
  }
  FastDetectorOptions o;
  o.scaleFactor = 2.0;
  o.levels = 4;
  o.cellSize = 0;
  o.maxKeypoints = kAll;
  const std::vector<Keypoint> kps = FastDetector(o).detect(image);
  expectWellFormed(kps, image.size(), o);
  for (const Dot& d : dots) {
    const double side = 1 << d.level;
    const double cx = d.x + side / 2.0 - 0.5, cy = d.y + side / 2.0 - 0.5;  // block centre
    const auto found = std::find_if(kps.begin(), kps.end(), [&](const Keypoint& k) {
      return k.octave == d.level && std::hypot(k.x - cx, k.y - cy) < 1e-3;
    });
    EXPECT_NE(found, kps.end()) << "no level-" << d.level << " keypoint at the block centre (" << cx << ", " << cy
                                << ")";
  }
}

// Blurred bright rectangles on a dark background with the default √2 pyramid. FAST puts a
// corner a little inside each rectangle corner, symmetrically, so at every level the four
// corner keypoints of a rectangle are centred on the rectangle's centre: within 1 px at full
// resolution (or half a level pixel, the rounding to level pixels, where that is more) for each
// rectangle, and within 0.3 px on average over the rectangles (dropping the level mapping's
// half-pixel terms would shift every centroid by 0.5·(f^L − 1) per axis: 0.9 px at level 3).
TEST(FastDetector, CornersAtEveryLevelMapBackToTheRectangles) {
  cv::Mat image(480, 640, CV_8UC1, cv::Scalar(40));
  const std::vector<cv::Rect> rects{{40, 40, 60, 60},     {160, 50, 100, 80},   {320, 40, 150, 120},
                                    {60, 220, 200, 200}, {330, 230, 260, 200}};
  for (const cv::Rect& r : rects) cv::rectangle(image, r, cv::Scalar(200), cv::FILLED);
  // A slight blur, as a camera gives: a perfectly sharp corner has tied FAST scores on its
  // neighbouring pixels, and non-maximum suppression then drops them all.
  cv::GaussianBlur(image, image, cv::Size(0, 0), 0.7);

  FastDetectorOptions o;
  o.cellSize = 0;
  o.maxKeypoints = kAll;
  const std::vector<Keypoint> kps = FastDetector(o).detect(image);
  expectWellFormed(kps, image.size(), o);
  ASSERT_EQ(o.levels, 4);
  for (int level = 0; level < o.levels; ++level) {
    const double step = std::pow(o.scaleFactor, level);  // one level pixel, in full pixels
    double sumX = 0.0, sumY = 0.0;
    for (const cv::Rect& r : rects) {
      // Corner points of the rectangle in pixel-centre coordinates (its outer pixel edges).
      const double x0 = r.x - 0.5, x1 = r.x + r.width - 0.5, y0 = r.y - 0.5, y1 = r.y + r.height - 0.5;
      double cx = 0.0, cy = 0.0;
      for (const cv::Point2d corner : {cv::Point2d(x0, y0), cv::Point2d(x1, y0), cv::Point2d(x0, y1),
                                       cv::Point2d(x1, y1)}) {
        const Keypoint* nearest = nullptr;
        double best = 3.0 * step;  // FAST answers within a few level pixels of a corner
        for (const Keypoint& k : kps) {
          if (k.octave != level) continue;
          const double d = std::hypot(k.x - corner.x, k.y - corner.y);
          if (d < best) {
            best = d;
            nearest = &k;
          }
        }
        ASSERT_NE(nearest, nullptr) << "level " << level << ": no keypoint near corner (" << corner.x << ", "
                                    << corner.y << ")";
        // Inside the rectangle (bright corner on dark), on the diagonal towards its centre.
        EXPECT_GT(nearest->x, std::min(x0, x1) - 0.5) << level;
        EXPECT_LT(nearest->x, std::max(x0, x1) + 0.5) << level;
        EXPECT_GT(nearest->y, std::min(y0, y1) - 0.5) << level;
        EXPECT_LT(nearest->y, std::max(y0, y1) + 0.5) << level;
        cx += nearest->x / 4.0;
        cy += nearest->y / 4.0;
      }
      const double ex = cx - (x0 + x1) / 2.0, ey = cy - (y0 + y1) / 2.0;
      // Each corner is found on a whole level pixel: up to half a level pixel of rounding per
      // axis, which is over 1 px from level 2 on (f^2 = 2 full pixels per level pixel).
      const double tolerance = std::max(1.0, 0.5 * step);
      EXPECT_LE(std::abs(ex), tolerance) << "level " << level << ", rectangle at (" << r.x << ", " << r.y << ")";
      EXPECT_LE(std::abs(ey), tolerance) << "level " << level << ", rectangle at (" << r.x << ", " << r.y << ")";
      sumX += ex;
      sumY += ey;
    }
    // The rounding varies from rectangle to rectangle; a mapping error would not.
    const double n = static_cast<double>(rects.size());
    std::cout << "level " << level << ": mean centring error (" << sumX / n << ", " << sumY / n << ") px"
              << std::endl;
    EXPECT_LE(std::hypot(sumX / n, sumY / n), 0.3) << "mean centring error at level " << level;
  }
}

// ---- 4. Spread, count and order --------------------------------------------------------------

struct Grid {
  int cols, rows, size;
  int cellOf(const Keypoint& k) const {
    const int cx = std::min(cols - 1, static_cast<int>((k.x + 0.5f) / static_cast<float>(size)));
    const int cy = std::min(rows - 1, static_cast<int>((k.y + 0.5f) / static_cast<float>(size)));
    return cy * cols + cx;
  }
};

bool samePoint(const Keypoint& a, const Keypoint& b) {
  return a.x == b.x && a.y == b.y && a.octave == b.octave && a.response == b.response;
}

TEST(FastDetector, SpreadKeepsEveryTexturedCellAndCapsEachCell) {
  NFT_REQUIRE_DATA("oxford/boat/img1.png");
  const cv::Mat image = nft::testing::loadGray("oxford/boat/img1.png");
  const FastDetectorOptions o;  // defaults
  FastDetectorOptions allOptions = o;
  allOptions.maxKeypoints = kAll;
  const std::vector<Keypoint> kept = FastDetector(o).detect(image);
  const std::vector<Keypoint> all = FastDetector(allOptions).detect(image);
  expectWellFormed(kept, image.size(), o);
  ASSERT_GT(all.size(), static_cast<size_t>(2 * o.maxKeypoints)) << "the image must have more corners than N";
  ASSERT_EQ(kept.size(), static_cast<size_t>(o.maxKeypoints));

  const Grid grid{(image.cols + o.cellSize - 1) / o.cellSize, (image.rows + o.cellSize - 1) / o.cellSize,
                  o.cellSize};
  const size_t cells = static_cast<size_t>(grid.cols * grid.rows);
  std::vector<int> candidates(cells, 0), counts(cells, 0);
  for (const Keypoint& k : all) ++candidates[static_cast<size_t>(grid.cellOf(k))];
  for (const Keypoint& k : kept) ++counts[static_cast<size_t>(grid.cellOf(k))];
  // The equal share k of fast_detector.h: smallest k with Σ min(candidates, k) >= N.
  int share = 1;
  auto keptAt = [&](int k) {
    long total = 0;
    for (int c : candidates) total += std::min(c, k);
    return total;
  };
  while (keptAt(share) < o.maxKeypoints) ++share;

  // Every keypoint is one of the candidates (same position, level and score).
  for (const Keypoint& k : kept) {
    ASSERT_TRUE(std::any_of(all.begin(), all.end(), [&](const Keypoint& c) { return samePoint(c, k); }))
        << "(" << k.x << ", " << k.y << ") level " << k.octave << " is not a FAST corner";
  }
  int textured = 0, covered = 0;
  for (size_t c = 0; c < cells; ++c) {
    EXPECT_LE(counts[c], 2 * share) << "cell " << c << " holds more than twice the equal share " << share;
    if (candidates[c] > 0) {
      ++textured;
      covered += counts[c] > 0 ? 1 : 0;
    }
  }
  EXPECT_EQ(covered, textured) << "every cell with a corner keeps at least one";

  // The brief's coverage measure: cells holding a level-0 FAST corner at the same threshold.
  std::vector<cv::KeyPoint> level0;
  cv::FAST(image, level0, o.threshold, true, cv::FastFeatureDetector::TYPE_9_16);
  std::vector<char> hasLevel0(cells, 0);
  for (const cv::KeyPoint& k : level0) {
    Keypoint p;
    p.x = k.pt.x;
    p.y = k.pt.y;
    hasLevel0[static_cast<size_t>(grid.cellOf(p))] = 1;
  }
  int level0Cells = 0, level0Covered = 0;
  for (size_t c = 0; c < cells; ++c) {
    if (!hasLevel0[c]) continue;
    ++level0Cells;
    level0Covered += counts[c] > 0 ? 1 : 0;
  }
  const double coverage = static_cast<double>(level0Covered) / level0Cells;
  RecordProperty("level0_cell_coverage", std::to_string(coverage));
  EXPECT_GE(coverage, 0.8);

  // Beyond each cell's strongest, places go by strength: a candidate left out of a cell that is
  // below its cap is no stronger than the weakest keypoint kept beyond its cell's first.
  std::vector<float> strongestInCell(cells, -1.0f);
  for (const Keypoint& k : kept) {
    float& s = strongestInCell[static_cast<size_t>(grid.cellOf(k))];
    s = std::max(s, k.response);
  }
  float weakestExtra = std::numeric_limits<float>::infinity();
  std::vector<bool> firstSeen(cells, false);
  for (const Keypoint& k : kept) {  // strongest first: the first of a cell is its strongest
    const size_t c = static_cast<size_t>(grid.cellOf(k));
    if (!firstSeen[c]) {
      firstSeen[c] = true;
      continue;
    }
    weakestExtra = std::min(weakestExtra, k.response);
  }
  for (const Keypoint& c : all) {
    const size_t cell = static_cast<size_t>(grid.cellOf(c));
    if (counts[cell] >= 2 * share) continue;
    if (std::any_of(kept.begin(), kept.end(), [&](const Keypoint& k) { return samePoint(c, k); })) continue;
    ASSERT_LE(c.response, weakestExtra) << "a stronger corner (" << c.x << ", " << c.y << ") was left out";
  }
}

TEST(FastDetector, KeepsExactlyNStrongestFirst) {
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  const cv::Mat image = nft::testing::loadGray("oxford/graf/img1.png");
  for (const int n : {1, 7, 100, 500, 1000, 2000}) {
    FastDetectorOptions o;
    o.maxKeypoints = n;
    const std::vector<Keypoint> kps = FastDetector(o).detect(image);
    ASSERT_EQ(kps.size(), static_cast<size_t>(n));
    expectWellFormed(kps, image.size(), o);
  }
  // Without the spread, the N kept are the N strongest of all corners.
  FastDetectorOptions plain;
  plain.cellSize = 0;
  FastDetectorOptions everything = plain;
  everything.maxKeypoints = kAll;
  const std::vector<Keypoint> top = FastDetector(plain).detect(image);
  const std::vector<Keypoint> all = FastDetector(everything).detect(image);
  ASSERT_GT(all.size(), top.size());
  for (size_t i = 0; i < top.size(); ++i) ASSERT_TRUE(samePoint(top[i], all[i])) << i;
}

TEST(FastDetector, ReturnsAllCornersWhenFewerThanN) {
  cv::Mat image(120, 160, CV_8UC1, cv::Scalar(30));
  cv::rectangle(image, cv::Rect(40, 30, 50, 40), cv::Scalar(210), cv::FILLED);
  cv::GaussianBlur(image, image, cv::Size(0, 0), 0.7);
  FastDetectorOptions o;
  o.maxKeypoints = kAll;
  const std::vector<Keypoint> all = FastDetector(o).detect(image);
  ASSERT_GE(all.size(), 4u);  // at least the rectangle's 4 corners at level 0
  ASSERT_LT(all.size(), 1000u);
  const std::vector<Keypoint> kept = FastDetector().detect(image);
  ASSERT_EQ(kept.size(), all.size());
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_TRUE(samePoint(kept[i], all[i])) << i;
  EXPECT_TRUE(FastDetector().detect(cv::Mat(64, 64, CV_8UC1, cv::Scalar(128))).empty());
}

TEST(FastDetector, BgrInputEqualsItsGrey) {
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  const cv::Mat gray = nft::testing::loadGray("oxford/graf/img1.png");
  cv::Mat bgr;
  cv::cvtColor(gray, bgr, cv::COLOR_GRAY2BGR);
  const FastDetector detector;
  const std::vector<Keypoint> a = detector.detect(gray), b = detector.detect(bgr);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(samePoint(a[i], b[i])) << i;
  // Deterministic, and an ROI (non-continuous) gives the same corners as its copy.
  const cv::Mat roi = gray(cv::Rect(100, 80, 400, 300));
  const std::vector<Keypoint> r1 = detector.detect(roi), r2 = detector.detect(roi.clone());
  ASSERT_EQ(r1.size(), r2.size());
  for (size_t i = 0; i < r1.size(); ++i) ASSERT_TRUE(samePoint(r1[i], r2[i])) << i;
}

TEST(FastDetector, AMaskGivesTheWholeBudgetToTheAllowedPart) {
  // The multi-target search masks the targets already tracked (tracker/multi_target_detector.h):
  // the masked part's corners must not take places of the budget, so the allowed part keeps
  // maxKeypoints of its own corners, not what is left after the masked part's share.
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  const cv::Mat image = nft::testing::loadGray("oxford/graf/img1.png");
  cv::Mat mask(image.size(), CV_8UC1, cv::Scalar(255));
  mask(cv::Rect(0, 0, image.cols / 2, image.rows)).setTo(0);  // the left half masked
  FastDetectorOptions o;
  o.maxKeypoints = 500;
  const FastDetector detector(o);
  const std::vector<Keypoint> masked = detector.detect(image, mask);
  ASSERT_EQ(masked.size(), 500u);  // graf's right half has far more than 500 corners
  expectWellFormed(masked, image.size(), o);
  for (const Keypoint& k : masked)
    ASSERT_NE(mask.at<uchar>(cvRound(k.y), cvRound(k.x)), 0) << k.x << ", " << k.y;
  size_t right = 0;  // filtering after the cap keeps far fewer
  for (const Keypoint& k : detector.detect(image)) right += mask.at<uchar>(cvRound(k.y), cvRound(k.x)) != 0 ? 1u : 0u;
  EXPECT_LT(right, 400u);
  // An empty mask is the whole image; a mask of another size or type is refused.
  const std::vector<Keypoint> a = detector.detect(image), b = detector.detect(image, cv::Mat());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(samePoint(a[i], b[i])) << i;
  EXPECT_THROW(detector.detect(image, cv::Mat(10, 10, CV_8UC1, cv::Scalar(255))), std::invalid_argument);
  EXPECT_THROW(detector.detect(image, cv::Mat(image.size(), CV_32FC1, cv::Scalar(1))), std::invalid_argument);
}

// ---- 5. Errors -------------------------------------------------------------------------------

template <typename F>
std::string invalidArgumentMessage(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument thrown)";
}

TEST(FastDetector, RejectsBadImages) {
  const FastDetector detector;
  EXPECT_NE(invalidArgumentMessage([&] { detector.detect(cv::Mat()); }).find("empty"), std::string::npos);
  EXPECT_NE(invalidArgumentMessage([&] { detector.detect(cv::Mat(0, 0, CV_8UC1)); }).find("empty"),
            std::string::npos);
  EXPECT_NE(invalidArgumentMessage([&] { detector.detect(cv::Mat(0, 10, CV_8UC1)); }).find("empty"),
            std::string::npos);
  EXPECT_NE(invalidArgumentMessage([&] { detector.detect(cv::Mat(32, 32, CV_32FC1, cv::Scalar(0.5))); })
                .find("CV_32F"),
            std::string::npos);
  EXPECT_NE(invalidArgumentMessage([&] { detector.detect(cv::Mat(32, 32, CV_8UC4, cv::Scalar(1, 2, 3, 4))); })
                .find("CV_8UC4"),
            std::string::npos);
  EXPECT_NE(invalidArgumentMessage([&] { detector.detect(cv::Mat(32, 32, CV_16UC1, cv::Scalar(7))); })
                .find("CV_16U"),
            std::string::npos);
}

TEST(FastDetector, RejectsBadOptionsNamingThem) {
  struct Case {
    FastDetectorOptions options;
    std::string name;
  };
  std::vector<Case> cases;
  auto add = [&](const std::string& name, auto&& change) {
    FastDetectorOptions o;
    change(o);
    cases.push_back({o, name});
  };
  add("levels", [](FastDetectorOptions& o) { o.levels = 0; });
  add("levels", [](FastDetectorOptions& o) { o.levels = 33; });
  add("scaleFactor", [](FastDetectorOptions& o) { o.scaleFactor = 1.0; });
  add("scaleFactor", [](FastDetectorOptions& o) { o.scaleFactor = 0.5; });
  add("scaleFactor", [](FastDetectorOptions& o) { o.scaleFactor = std::nan(""); });
  add("scaleFactor", [](FastDetectorOptions& o) { o.scaleFactor = 8.0; });
  add("maxKeypoints", [](FastDetectorOptions& o) { o.maxKeypoints = 0; });
  add("maxKeypoints", [](FastDetectorOptions& o) { o.maxKeypoints = -5; });
  add("threshold", [](FastDetectorOptions& o) { o.threshold = 0; });
  add("threshold", [](FastDetectorOptions& o) { o.threshold = 256; });
  add("cellSize", [](FastDetectorOptions& o) { o.cellSize = -1; });
  add("baseScale", [](FastDetectorOptions& o) { o.baseScale = 0.0f; });
  add("baseScale", [](FastDetectorOptions& o) { o.baseScale = std::numeric_limits<float>::infinity(); });
  for (const Case& c : cases) {
    const std::string message = invalidArgumentMessage([&] { FastDetector detector(c.options); });
    EXPECT_NE(message.find(c.name), std::string::npos) << message;
    EXPECT_NE(message.find("allowed"), std::string::npos) << message;
  }
  // The limits themselves are accepted.
  FastDetectorOptions edge;
  edge.levels = 32;
  edge.scaleFactor = 4.0;
  edge.maxKeypoints = 1;
  edge.threshold = 255;
  edge.cellSize = 0;
  EXPECT_NO_THROW(FastDetector{edge});
  EXPECT_EQ(FastDetector(edge).options().levels, 32);
}

}  // namespace
}  // namespace nft::detection
