// NCC patch templates and search (tracker/ncc_patch.h) on a synthetic target with exact
// homographies: the found position must be the true one to a fraction of a pixel.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "tracker/ncc_patch.h"
#include "tracker/synthetic_target.h"

namespace nft::tracker {
namespace {

using testing::pyramidOf;
using testing::translation;

/// Searches target point x at `level` with a prediction that is `error` (full-resolution pixels)
/// off the true homography; returns the found full-resolution frame position and the score.
std::pair<cv::Point2d, float> find(const cv::Mat& target, const cv::Matx33d& truth, cv::Point2d x, cv::Point2d error,
                                   int level, int radius) {
  cv::Mat frame = testing::syntheticFrame(target, truth);
  for (int l = 0; l < level; ++l) cv::pyrDown(frame, frame);
  const cv::Matx33d predicted = translation(error.x, error.y) * truth;
  const double scale = 1 << level;
  const cv::Point2d p = testing::project(predicted, x) * (1.0 / scale);
  const cv::Point centre(cvRound(p.x), cvRound(p.y));
  const PatchTemplate patch = warpPatch(pyramidOf(target), predicted.inv(), centre, level, 8);
  EXPECT_TRUE(patch.valid);
  if (!patch.valid) return {{}, -1.f};
  const NccPeak peak = searchNcc(frame, patch, centre, radius);
  EXPECT_TRUE(peak.found);
  return {(p + cv::Point2d(peak.shift.x, peak.shift.y)) * scale, peak.score};
}

TEST(NccPatchTest, FindsTheTruePositionToASubPixelAtFullResolution) {
  const cv::Mat target = testing::syntheticTarget();
  const cv::Matx33d truth(1.1, 0.05, 200.3, -0.04, 1.05, 150.6, 0.0001, 0.0002, 1);
  for (const cv::Point2d error : {cv::Point2d(2.4, -1.7), cv::Point2d(-3.3, 0.4), cv::Point2d(0, 0)}) {
    const auto [found, score] = find(target, truth, {100, 70}, error, 0, 4);
    const cv::Point2d expected = testing::project(truth, {100, 70});
    // Parabolic peak interpolation is biased by up to a few tenths of a pixel on such a texture.
    EXPECT_LT(cv::norm(found - expected), 0.3) << "prediction off by " << error << ": found " << found;
    EXPECT_GT(score, 0.95f);
  }
}

TEST(NccPatchTest, FindsTheTruePositionAtHalfResolutionFromFurtherAway) {
  const cv::Mat target = testing::syntheticTarget();
  const cv::Matx33d truth(1.0, 0.0, 220.0, 0.0, 1.0, 160.0, 0, 0, 1);
  // 6.2 and 5.4 px: 3.1 and 2.7 half-resolution pixels, beyond the full-resolution radius.
  const auto [found, score] = find(target, truth, {90, 80}, {6.2, -5.4}, 1, 4);
  EXPECT_LT(cv::norm(found - testing::project(truth, {90, 80})), 0.6) << found;
  EXPECT_GT(score, 0.9f);
}

TEST(NccPatchTest, SamplesACoarserTargetLevelWhenTheTargetAppearsSmall) {
  // A fine-grained target at 0.25×: each frame pixel covers 4 × 4 target pixels, and the frame
  // is area-averaged as a camera sees it (cv::INTER_AREA). A template sampled from level 0 only
  // aliases; one from the pyramid correlates.
  const cv::Mat target = testing::syntheticTarget({400, 300}, 0.6);
  const double s = 0.25;
  cv::Mat small;
  cv::resize(target, small, cv::Size(), s, s, cv::INTER_AREA);
  cv::Mat frame(480, 640, CV_8UC1, cv::Scalar(128));
  small.copyTo(frame(cv::Rect(250, 180, small.cols, small.rows)));
  // cv::resize maps source pixel x to s·(x + 0.5) − 0.5 (pixel centres), then the copy shifts it.
  const cv::Matx33d truth(s, 0, 250 + 0.5 * s - 0.5, 0, s, 180 + 0.5 * s - 0.5, 0, 0, 1);
  // Whole-pixel prediction error: the grids line up, so the score measures the template alone
  // (at fractional offsets such fine detail decorrelates whatever the template).
  const cv::Matx33d predicted = translation(2, -1) * truth;
  const cv::Point2d p = testing::project(predicted, {200, 150});
  const cv::Point centre(cvRound(p.x), cvRound(p.y));
  const PatchTemplate patch = warpPatch(pyramidOf(target), predicted.inv(), centre, 0, 8);
  ASSERT_TRUE(patch.valid);
  const NccPeak peak = searchNcc(frame, patch, centre, 3);
  ASSERT_TRUE(peak.found);
  EXPECT_LT(cv::norm(p + cv::Point2d(peak.shift.x, peak.shift.y) - testing::project(truth, {200, 150})), 0.3);
  EXPECT_GT(peak.score, 0.9f);
  const PatchTemplate aliased = warpPatch({target}, predicted.inv(), centre, 0, 8);
  EXPECT_LT(searchNcc(frame, aliased, centre, 3).score, 0.85f);
}

TEST(NccPatchTest, TemplatesLeavingTheTargetOrFlatAreInvalid) {
  const cv::Mat target = testing::syntheticTarget();
  const std::vector<cv::Mat> pyramid = pyramidOf(target);
  const cv::Matx33d identity = cv::Matx33d::eye();
  EXPECT_TRUE(warpPatch(pyramid, identity, {100, 70}, 0, 8).valid);
  EXPECT_FALSE(warpPatch(pyramid, identity, {2, 70}, 0, 8).valid);     // reaches x = −2
  EXPECT_FALSE(warpPatch(pyramid, identity, {100, 148}, 0, 8).valid);  // reaches below the target
  const std::vector<cv::Mat> flat{cv::Mat(150, 200, CV_8UC1, cv::Scalar(90))};
  EXPECT_FALSE(warpPatch(flat, identity, {100, 70}, 0, 8).valid);
  const PatchTemplate valid = warpPatch(pyramid, identity, {100, 70}, 0, 8);
  double sum = 0, sumSq = 0;
  for (float v : valid.values) {
    sum += v;
    sumSq += static_cast<double>(v) * v;
  }
  EXPECT_NEAR(sum, 0.0, 1e-4);
  EXPECT_NEAR(sumSq, 1.0, 1e-4);
}

TEST(NccPatchTest, SearchAreaOutsideTheImageIsNotFound) {
  const cv::Mat target = testing::syntheticTarget();
  const PatchTemplate patch = warpPatch(pyramidOf(target), cv::Matx33d::eye(), {100, 70}, 0, 8);
  EXPECT_TRUE(searchNcc(target, patch, {100, 70}, 4).found);
  EXPECT_FALSE(searchNcc(target, patch, {6, 70}, 4).found);  // needs x from −2
  const NccPeak peak = searchNcc(target, patch, {100, 70}, 4);
  EXPECT_NEAR(peak.score, 1.0f, 1e-4f);
  EXPECT_NEAR(peak.shift.x, 0.0f, 0.05f);  // the parabola's bias: neighbours are not symmetric
  EXPECT_NEAR(peak.shift.y, 0.0f, 0.05f);
}

/// searchNcc as it was before the vectorised scoring (tracker/ncc_patch.cpp, scoreShifts): every
/// shift's NCC computed window by window, in float, term by term. The reference the fast search
/// must match; `table` gets every shift's score ((dy + r)(2r + 1) + dx + r; −2 where not searched).
NccPeak referenceSearchNcc(const cv::Mat& image, const PatchTemplate& patch, cv::Point centre, int radius,
                           bool clipToImage, std::vector<float>* table = nullptr) {
  NccPeak peak;
  const int n = patch.size, half = n / 2, r = radius;
  int x0 = -r, x1 = r, y0 = -r, y1 = r;
  const int lowX = half - centre.x, highX = image.cols - n + half - centre.x;
  const int lowY = half - centre.y, highY = image.rows - n + half - centre.y;
  if (x0 < lowX || y0 < lowY || x1 > highX || y1 > highY) {
    if (!clipToImage) return peak;
    x0 = std::max(x0, lowX), x1 = std::min(x1, highX), y0 = std::max(y0, lowY), y1 = std::min(y1, highY);
    if (x0 > x1 || y0 > y1) return peak;
  }
  const int s = 2 * r + 1;
  std::vector<float> scores(static_cast<size_t>(s * s), -2.0f);
  int best = -1;
  for (int dy = y0; dy <= y1; ++dy)
    for (int dx = x0; dx <= x1; ++dx) {
      float dot = 0, sum = 0, sumSq = 0;
      const float* t = patch.values.data();
      for (int j = 0; j < n; ++j) {
        const uchar* row = image.ptr<uchar>(centre.y + dy - half + j) + (centre.x + dx - half);
        for (int i = 0; i < n; ++i, ++t) {
          const float w = row[i];
          dot += *t * w;
          sum += w;
          sumSq += w * w;
        }
      }
      const float variance = sumSq - sum * sum / static_cast<float>(n * n);
      const size_t k = static_cast<size_t>((dy + r) * s + (dx + r));
      scores[k] = variance > 1e-3f ? dot / std::sqrt(variance) : 0.0f;
      if (best < 0 || scores[k] > scores[static_cast<size_t>(best)]) best = static_cast<int>(k);
    }
  const auto score = [&](int k) { return scores[static_cast<size_t>(k)]; };
  const int bx = best % s - r, by = best / s - r;
  peak.score = score(best);
  peak.found = true;
  peak.shift = cv::Point2f(static_cast<float>(bx), static_cast<float>(by));
  const auto parabola = [](float a, float b, float c) {
    const float denominator = a - 2 * b + c;
    if (!(denominator < 0)) return 0.0f;
    return std::clamp(0.5f * (a - c) / denominator, -0.5f, 0.5f);
  };
  if (bx > x0 && bx < x1) peak.shift.x += parabola(score(best - 1), score(best), score(best + 1));
  if (by > y0 && by < y1) peak.shift.y += parabola(score(best - s), score(best), score(best + s));
  if (table) *table = scores;
  return peak;
}

TEST(NccPatchTest, SearchMatchesTheWindowByWindowNcc) {
  // Textured, flat (zero-variance windows score 0) and saturated regions; every patch size the
  // tracking lane accepts; radii from 0 to the largest; centres inside, near and across the
  // border (clipped and not).
  cv::RNG rng(20);
  cv::Mat image(120, 160, CV_8UC1);
  rng.fill(image, cv::RNG::UNIFORM, 0, 256);
  cv::GaussianBlur(image, image, cv::Size(5, 5), 1.5);
  image(cv::Rect(0, 0, 40, 40)).setTo(128);
  image(cv::Rect(120, 80, 40, 40)).setTo(255);
  int compared = 0, samePeak = 0;
  for (int size = 4; size <= 32; size += 2)
    for (int trial = 0; trial < 40; ++trial) {
      PatchTemplate patch;
      patch.size = size;
      patch.values.resize(static_cast<size_t>(size * size));
      double sum = 0, sumSq = 0;
      for (float& v : patch.values) {
        v = static_cast<float>(rng.gaussian(1.0));
        sum += v;
      }
      const double mean = sum / static_cast<double>(patch.values.size());
      for (float& v : patch.values) sumSq += (v - mean) * (v - mean);
      for (float& v : patch.values) v = static_cast<float>((v - mean) / std::sqrt(sumSq));
      patch.valid = true;
      const int radius = trial < 4 ? trial : (trial == 4 ? kMaxSearchRadius : rng.uniform(0, 12));
      const cv::Point centre(rng.uniform(-10, image.cols + 10), rng.uniform(-10, image.rows + 10));
      for (const bool clip : {false, true}) {
        std::vector<float> table;
        const NccPeak expected = referenceSearchNcc(image, patch, centre, radius, clip, &table);
        const NccPeak actual = searchNcc(image, patch, centre, radius, clip);
        const std::string where =
            "size " + std::to_string(size) + " radius " + std::to_string(radius) + " at " + std::to_string(centre.x) +
            "," + std::to_string(centre.y);
        ASSERT_EQ(actual.found, expected.found) << where;
        if (!expected.found) continue;
        ++compared;
        // Patches up to 16 × 16 are scored with a 16-bit template (scoreShifts): the scores within
        // its quantisation of the float ones (measured up to 1.2e-5), the peak at the same shift or
        // at one the float scores tie with it (within twice the bound), the sub-pixel shift close.
        EXPECT_NEAR(actual.score, expected.score, 5e-5) << where;
        const int s = 2 * radius + 1;
        const int ax = static_cast<int>(std::lround(actual.shift.x)), ay = static_cast<int>(std::lround(actual.shift.y));
        const float atActual = table[static_cast<size_t>((ay + radius) * s + ax + radius)];
        EXPECT_NEAR(atActual, expected.score, 1e-4) << where;
        if (ax == static_cast<int>(std::lround(expected.shift.x)) && ay == static_cast<int>(std::lround(expected.shift.y))) {
          ++samePeak;
          EXPECT_NEAR(actual.shift.x, expected.shift.x, 0.01) << where;
          EXPECT_NEAR(actual.shift.y, expected.shift.y, 0.01) << where;
        }
        // Patches over 16 × 16 are scored window by window as the reference is: bit for bit.
        if (size > 16) {
          EXPECT_EQ(actual.score, expected.score) << where;
          EXPECT_EQ(actual.shift.x, expected.shift.x) << where;
          EXPECT_EQ(actual.shift.y, expected.shift.y) << where;
        }
      }
    }
  EXPECT_GT(compared, 300);  // most draws search something
  EXPECT_GT(samePeak, compared * 95 / 100);  // a tie moves the peak now and then, no more
}

TEST(NccPatchTest, RejectsBadArguments) {
  const cv::Mat target = testing::syntheticTarget();
  const PatchTemplate patch = warpPatch(pyramidOf(target), cv::Matx33d::eye(), {100, 70}, 0, 8);
  EXPECT_THROW(searchNcc(target, PatchTemplate{}, {100, 70}, 2), std::invalid_argument);
  EXPECT_THROW(searchNcc(target, patch, {100, 70}, -1), std::invalid_argument);
  EXPECT_THROW(searchNcc(target, patch, {100, 70}, kMaxSearchRadius + 1), std::invalid_argument);
  cv::Mat asFloat;
  target.convertTo(asFloat, CV_32F);
  EXPECT_THROW(searchNcc(asFloat, patch, {100, 70}, 2), std::invalid_argument);
  EXPECT_THROW(warpPatch({}, cv::Matx33d::eye(), {100, 70}, 0, 8), std::invalid_argument);
  EXPECT_THROW(warpPatch(pyramidOf(target), cv::Matx33d::eye(), {100, 70}, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace nft::tracker
