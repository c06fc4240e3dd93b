// The frame pyramid (tracker/frame_pyramid.h): level 0 shares the frame, the levels are
// cv::pyrDown's, ensure() adds what build() left out, and bad use is refused; one pyramid shared
// by the trackers of several targets gives each the results of its own.

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "gpu/capabilities.h"
#include "tracker/camera_calibration.h"
#include "tracker/frame_pyramid.h"
#include "tracker/synthetic_target.h"
#include "tracker/tracker.h"

namespace nft::tracker {
namespace {

TEST(FramePyramidTest, BuildsPyrDownLevelsAndSharesTheFrame) {
  const cv::Mat frame = testing::syntheticTarget({640, 480});
  FramePyramid pyramid;
  EXPECT_EQ(pyramid.levelCount(), 0);
  EXPECT_EQ(pyramid.frameSize(), cv::Size());
  pyramid.build(frame, 2);
  ASSERT_EQ(pyramid.levelCount(), 2);
  EXPECT_EQ(pyramid.level(0).data, frame.data);  // not copied
  cv::Mat half;
  cv::pyrDown(frame, half);
  EXPECT_EQ(cv::norm(pyramid.level(1), half, cv::NORM_INF), 0.0);
  pyramid.ensure(4);
  ASSERT_EQ(pyramid.levelCount(), 4);
  cv::Mat quarter, eighth;
  cv::pyrDown(half, quarter);
  cv::pyrDown(quarter, eighth);
  EXPECT_EQ(cv::norm(pyramid.level(3), eighth, cv::NORM_INF), 0.0);
  EXPECT_EQ(pyramid.level(3).size(), cv::Size(80, 60));
  // A new frame starts over: only the levels asked for are valid.
  pyramid.build(frame, 1);
  EXPECT_EQ(pyramid.levelCount(), 1);
  EXPECT_THROW(pyramid.level(1), std::out_of_range);
}

TEST(FramePyramidTest, StopsAboveSixteenPixels) {
  FramePyramid pyramid;
  pyramid.build(cv::Mat(70, 100, CV_8UC1, cv::Scalar(9)), 8);  // 100×70 → 50×35 → 25×18
  EXPECT_EQ(pyramid.levelCount(), 3);
  EXPECT_EQ(pyramid.level(2).size(), cv::Size(25, 18));
}

TEST(FramePyramidTest, RefusesBadInput) {
  FramePyramid pyramid;
  EXPECT_THROW(pyramid.ensure(2), std::invalid_argument);  // before build()
  EXPECT_THROW(pyramid.build(cv::Mat(), 2), std::invalid_argument);
  EXPECT_THROW(pyramid.build(cv::Mat(10, 10, CV_8UC3), 2), std::invalid_argument);
  EXPECT_THROW(pyramid.build(cv::Mat(64, 64, CV_8UC1), 0), std::invalid_argument);
  EXPECT_THROW(pyramid.build(cv::Mat(64, 64, CV_8UC1), 9), std::invalid_argument);
  EXPECT_THROW(pyramid.level(-1), std::out_of_range);
}

TEST(FramePyramidTest, TrackersSharingOnePyramidGetTheResultsOfTheirOwn) {
  // Two targets in one 640 × 480 sequence: A drifts a few pixels a frame, B moves fast and jumps
  // (its lane asks for the quarter and eighth levels, which A's lane then finds already built).
  // Trackers that each build their pyramid (track(frame)) and trackers sharing one pyramid built
  // once a frame (track(pyramid), as the Session's lanes do) must agree bit for bit.
  const cv::Mat targetA = testing::syntheticTarget({200, 150});
  cv::Mat targetB;
  cv::flip(testing::syntheticTarget({160, 120}, 1.0), targetB, -1);
  const detection::TargetModel modelA = testing::syntheticModel(targetA);
  const detection::TargetModel modelB = testing::syntheticModel(targetB);
  const CameraCalibration calibration = defaultCalibration({640, 480});
  TrackerOptions options;
  options.detectionEnabled = false;  // no GL: the tracking lane only
  const gpu::Capabilities caps;
  std::vector<Tracker> own, shared;
  for (int copy = 0; copy < 2; ++copy) {
    std::vector<Tracker>& trackers = copy == 0 ? own : shared;
    trackers.emplace_back(caps, modelA, calibration, options);
    trackers.emplace_back(caps, modelB, calibration, options);
  }
  const auto placeA = [](int frame) { return testing::translation(60 + 3.0 * frame, 50 + 2.0 * frame); };
  const auto placeB = [](int frame) {
    return testing::translation(420 - 14.0 * frame - (frame >= 8 ? 30 : 0), 300 - 6.0 * frame);
  };
  for (int i = 0; i < 2; ++i) {
    own[static_cast<size_t>(i)].initialise(i == 0 ? placeA(0) : placeB(0));
    shared[static_cast<size_t>(i)].initialise(i == 0 ? placeA(0) : placeB(0));
  }
  FramePyramid pyramid;
  int found = 0, mostLevels = 0;
  for (int frame = 1; frame <= 14; ++frame) {
    cv::Mat image = testing::syntheticFrame(targetA, placeA(frame));
    cv::Mat b, mask;
    cv::warpPerspective(targetB, b, cv::Mat(placeB(frame)), image.size());
    cv::warpPerspective(cv::Mat(targetB.size(), CV_8UC1, cv::Scalar(255)), mask, cv::Mat(placeB(frame)), image.size(),
                        cv::INTER_NEAREST);
    b.copyTo(image, mask);
    pyramid.build(image, 2);
    // B first: A's lane then works on the levels B's lane added.
    for (const size_t i : {size_t{1}, size_t{0}}) {
      const TrackResult expected = own[i].track(image);
      const TrackResult actual = shared[i].track(pyramid);
      const std::string where = "frame " + std::to_string(frame) + ", target " + (i == 0 ? "A" : "B");
      ASSERT_EQ(actual.found, expected.found) << where;
      EXPECT_EQ(actual.state, expected.state) << where;
      EXPECT_EQ(actual.inliers, expected.inliers) << where;
      EXPECT_EQ(actual.searched, expected.searched) << where;
      for (int k = 0; k < 9; ++k) EXPECT_EQ(actual.homography.val[k], expected.homography.val[k]) << where;
      EXPECT_EQ(actual.corners, expected.corners) << where;
      EXPECT_EQ(actual.inlierFramePoints, expected.inlierFramePoints) << where;
      found += actual.found ? 1 : 0;
    }
    mostLevels = std::max(mostLevels, pyramid.levelCount());
  }
  EXPECT_GE(found, 26);        // both followed (nearly) throughout: the comparison means something
  EXPECT_GE(mostLevels, 3);    // and the coarser levels were shared too
  // A pyramid of another frame size is refused, and the tracker's state is kept.
  FramePyramid small;
  small.build(cv::Mat(240, 320, CV_8UC1, cv::Scalar(0)), 1);
  EXPECT_THROW(shared[0].track(small), std::invalid_argument);
  FramePyramid empty;
  EXPECT_THROW(shared[0].track(empty), std::invalid_argument);
}

}  // namespace
}  // namespace nft::tracker
