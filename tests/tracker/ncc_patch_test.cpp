// NCC patch templates and search (tracker/ncc_patch.h) on a synthetic target with exact
// homographies: the found position must be the true one to a fraction of a pixel.

#include <gtest/gtest.h>

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
