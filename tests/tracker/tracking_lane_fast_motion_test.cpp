// The tracking lane and the tracker under fast motion (tracker/tracking_lane.h, tracker.h) on a
// synthetic target with exact homographies: a prediction far off is corrected when the motion
// says the target moves fast (the coarse search from quarter or eighth resolution) and not
// without it; a target half out of the frame is followed on the patches still inside, and a
// fit on too few of them is refused; in a frame blurred by the motion the blurred templates
// place the target where the sharp ones lose it, blurred by the motion at the frame's time
// when the target accelerates; the tracker follows a hand that starts and stops abruptly.

#include <limits>

#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "gpu/capabilities.h"
#include "tracker/synthetic_target.h"
#include "tracker/tracker.h"
#include "tracker/tracking_lane.h"

namespace nft::tracker {
namespace {

using testing::blurredFrame;
using testing::translation;
using testing::worstCornerError;

/// A target with texture at several scales, as printed targets have (the quarter- and
/// eighth-resolution search needs structure there): fine blobs over coarse ones.
cv::Mat multiScaleTarget() {
  cv::Mat fine = testing::syntheticTarget({200, 150}, 1.5), coarse, mixed;
  cv::GaussianBlur(testing::syntheticTarget({200, 150}, 0.5), coarse, cv::Size(0, 0), 6.0);
  cv::normalize(coarse, coarse, 0, 255, cv::NORM_MINMAX);
  cv::addWeighted(fine, 0.5, coarse, 0.5, 0, mixed);
  return mixed;
}

class FastMotionTest : public ::testing::Test {
 protected:
  cv::Mat target = multiScaleTarget();
  detection::TargetModel model = testing::syntheticModel(target);
  CameraCalibration calibration = defaultCalibration({640, 480});
  cv::Matx33d truth = translation(220, 160);  // the 200 × 150 target in the frame's middle

  std::optional<TrackedTarget> trackOnce(TrackingLane& lane, const cv::Mat& frame, const TrackingPrior& prior) {
    FramePyramid pyramid;
    pyramid.build(frame, 2);
    return lane.track(pyramid, prior);
  }
};

TEST_F(FastMotionTest, AFastMovingTargetIsSearchedFromACoarserLevel) {
  TrackingLaneOptions sharp;  // the synthetic frame is not blurred
  sharp.blurExposure = 0;
  TrackingLane lane(model, calibration, sharp);
  const cv::Mat frame = testing::syntheticFrame(target, truth);
  // Moving 70 px per frame, predicted 28 px too far: beyond the standard ±8 px.
  TrackingPrior prior;
  prior.predicted = translation(28, -6) * truth;
  prior.reference = translation(-42, -6) * truth;  // one frame earlier
  const std::optional<TrackedTarget> tracked = trackOnce(lane, frame, prior);
  ASSERT_TRUE(tracked) << lane.lastRejection();
  EXPECT_LT(worstCornerError(tracked->corners, truth, target.size()), 0.5);
  EXPECT_GE(tracked->coarsestLevel, 2);
  EXPECT_GE(tracked->searchRangePx, 30.0);
  // Without the motion the search stays at ±8 px and does not reach it.
  TrackingPrior still;
  still.predicted = prior.predicted;
  EXPECT_FALSE(trackOnce(lane, frame, still));
  // A retry may ask for a range itself.
  still.searchRangePx = 40;
  ASSERT_TRUE(trackOnce(lane, frame, still)) << lane.lastRejection();
}

TEST_F(FastMotionTest, AHalfHiddenTargetIsFollowedOnThePatchesInside) {
  TrackingLane lane(model, calibration);
  // Half of the target beyond the left border.
  const cv::Matx33d half = translation(-100, 160);
  const cv::Mat frame = testing::syntheticFrame(target, half);
  TrackingPrior prior;
  prior.predicted = translation(3, -2) * half;
  const std::optional<TrackedTarget> tracked = trackOnce(lane, frame, prior);
  ASSERT_TRUE(tracked) << lane.lastRejection();
  EXPECT_LT(worstCornerError(tracked->corners, half, target.size()), 1.0);
  for (const cv::Point2f& p : tracked->inlierFramePoints) EXPECT_GE(p.x, 0.0f);
  // The inliers cover under half of the target: a spread floor above that refuses the fit.
  TrackingLaneOptions strict;
  strict.minInlierSpread = 0.6;
  TrackingLane strictLane(model, calibration, strict);
  EXPECT_FALSE(trackOnce(strictLane, frame, prior));
  EXPECT_NE(strictLane.lastRejection().find("spread"), std::string::npos) << strictLane.lastRejection();
}

TEST_F(FastMotionTest, BlurredTemplatesFollowAMotionBlurredTarget) {
  // 40 px per frame to the right with the shutter open half the frame: a 20 px streak.
  const cv::Mat frame = blurredFrame(target, truth, {20, 0}, 31);
  TrackingPrior prior;
  prior.predicted = translation(4, 3) * truth;
  prior.reference = translation(-36, 3) * truth;
  TrackingLane blurred(model, calibration);
  const std::optional<TrackedTarget> tracked = trackOnce(blurred, frame, prior);
  ASSERT_TRUE(tracked) << blurred.lastRejection();
  EXPECT_LT(worstCornerError(tracked->corners, truth, target.size()), 2.0);
  EXPECT_GT(tracked->meanStreakPx, 15.0);
  TrackingLaneOptions sharp;
  sharp.blurExposure = 0;
  TrackingLane sharpLane(model, calibration, sharp);
  const std::optional<TrackedTarget> sharpTracked = trackOnce(sharpLane, frame, prior);
  EXPECT_TRUE(!sharpTracked || sharpTracked->inliers < tracked->inliers / 2)
      << "sharp templates: " << sharpTracked->inliers << " inliers, blurred: " << tracked->inliers;
}

TEST_F(FastMotionTest, AnAcceleratingTargetIsBlurredByItsMotionAtTheFramesTime) {
  // 10 px per frame, then 30: constant acceleration of 20 px per frame², so the motion at this
  // frame's time is 40 px per frame, and with the shutter open half the frame the streak is
  // 20 px (not the 15 px of the mean motion since the last frame).
  const cv::Matx33d before = translation(100, 160), last = translation(110, 160), now = translation(140, 160);
  const cv::Mat frame = blurredFrame(target, now, {20, 0}, 31);
  TrackingPrior prior;
  prior.predicted = translation(2, 1) * now;
  prior.reference = last;
  prior.referenceBefore = before;
  prior.blurExposure = 0.5;
  prior.measureExposure = true;
  TrackingLane lane(model, calibration);
  const std::optional<TrackedTarget> tracked = trackOnce(lane, frame, prior);
  ASSERT_TRUE(tracked) << lane.lastRejection();
  EXPECT_LT(worstCornerError(tracked->corners, now, target.size()), 1.0);
  EXPECT_NEAR(tracked->meanStreakPx, 20.0, 1.0);
  // The exposure that explains the frame is the camera's: half the frame interval.
  EXPECT_EQ(tracked->measuredExposure, 0.5);
  // From the mean motion since the last frame (no frame before it known) the streaks are a
  // quarter too short.
  prior.referenceBefore.reset();
  const std::optional<TrackedTarget> lagging = trackOnce(lane, frame, prior);
  ASSERT_TRUE(lagging) << lane.lastRejection();
  EXPECT_NEAR(lagging->meanStreakPx, 15.0, 1.0);
  // A frame before that is not a homography is refused.
  prior.referenceBefore = cv::Matx33d::all(std::numeric_limits<double>::quiet_NaN());
  EXPECT_THROW(trackOnce(lane, frame, prior), std::invalid_argument);
}

TEST_F(FastMotionTest, TheTrackerFollowsAHandThatStartsAndStopsAbruptly) {
  // Still, then 36 px per frame to the right at once, then still again, each frame blurred by
  // its own motion over half a frame (the tracker's starting guess of the exposure): the
  // constant-velocity prediction is 36 px off at both turns; the tracker's second hypothesis
  // (the last pose, searched wide) keeps the target.
  TrackerOptions options;
  options.detectionEnabled = false;
  Tracker tracker(gpu::Capabilities{}, model, calibration, options);
  const double xs[] = {100, 100, 100, 136, 172, 208, 244, 244, 244, 244};
  tracker.initialise(translation(xs[0], 160));
  double previous = xs[0];
  for (double x : xs) {
    const cv::Matx33d H = translation(x, 160);
    const TrackResult r = tracker.track(blurredFrame(target, H, {0.5 * (x - previous), 0}, 31));
    previous = x;
    ASSERT_TRUE(r.found) << "at x = " << x << ": " << r.rejection;
    EXPECT_EQ(r.state, TrackerState::Tracking);
    EXPECT_LT(worstCornerError(r.corners, H, target.size()), 1.0) << "at x = " << x;
  }
}

}  // namespace
}  // namespace nft::tracker
