// The frame pyramid (tracker/frame_pyramid.h): level 0 shares the frame, the levels are
// cv::pyrDown's, ensure() adds what build() left out, and bad use is refused.

#include <gtest/gtest.h>

#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "tracker/frame_pyramid.h"
#include "tracker/synthetic_target.h"

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

}  // namespace
}  // namespace nft::tracker
