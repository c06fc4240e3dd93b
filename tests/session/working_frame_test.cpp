// The working frame (session/working_frame.h): the integer downscale each camera size gets, and
// its pixel mapping checked against cv::resize itself (a bright square's centroid).
#include <gtest/gtest.h>

#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "session/working_frame.h"

namespace nft::session {
namespace {

TEST(WorkingFrame, LargeFramesAreDownscaledToAboutVgaKeepingTheSmallestTargetVisible) {
  EXPECT_EQ(WorkingFrame({640, 480}, 0.2).factor(), 1);
  EXPECT_EQ(WorkingFrame({800, 600}, 0.2).factor(), 1);
  EXPECT_EQ(WorkingFrame({480, 852}, 0.2).factor(), 1);
  const WorkingFrame hd({1280, 720}, 0.2);
  EXPECT_EQ(hd.factor(), 2);
  EXPECT_EQ(hd.workingSize(), cv::Size(640, 360));
  EXPECT_EQ(WorkingFrame({1920, 1080}, 0.2).factor(), 3);
  EXPECT_EQ(WorkingFrame({1920, 1080}, 0.2).workingSize(), cv::Size(640, 360));
  EXPECT_EQ(WorkingFrame({2560, 1440}, 0.2).factor(), 4);
  // Smaller targets keep more resolution: 0.15 · 1440 / 96 = 2.25, 0.1 · 1440 / 96 = 1.5.
  EXPECT_EQ(WorkingFrame({1920, 1080}, 0.15).factor(), 2);
  EXPECT_EQ(WorkingFrame({1920, 1080}, 0.1).factor(), 1);
  EXPECT_THROW(WorkingFrame({0, 480}, 0.2), std::invalid_argument);
  EXPECT_THROW(WorkingFrame({640, 480}, 0.0), std::invalid_argument);
}

TEST(WorkingFrame, ItsPixelsMapToTheFramesAsCvResizeMapsThem) {
  const WorkingFrame w({1920, 1080}, 0.2);  // k = 3
  cv::Mat frame = cv::Mat::zeros(1080, 1920, CV_8UC1);
  frame(cv::Rect(900, 300, 6, 6)).setTo(255);  // centroid (902.5, 302.5)
  cv::Mat scratch;
  const cv::Mat& small = w.toWorking(frame, scratch);
  ASSERT_EQ(small.size(), cv::Size(640, 360));
  const cv::Moments m = cv::moments(small);
  const cv::Point2f centroid(static_cast<float>(m.m10 / m.m00), static_cast<float>(m.m01 / m.m00));
  TargetResult r;
  r.found = true;
  r.corners = {centroid, centroid, centroid, centroid};
  r.homography = cv::Matx33d(1, 0, 5, 0, 1, 7, 0, 0, 1);
  r.reprojectionErrorPx = 0.5;
  w.toFrame(r);
  EXPECT_NEAR(r.corners[0].x, 902.5, 1e-3);
  EXPECT_NEAR(r.corners[0].y, 302.5, 1e-3);
  EXPECT_DOUBLE_EQ(r.reprojectionErrorPx, 1.5);
  // Homographies: the working one maps (0, 0) to (5, 7), i.e. frame pixel (16, 22).
  const cv::Vec3d p = r.homography * cv::Vec3d(0, 0, 1);
  EXPECT_NEAR(p[0] / p[2], 3 * 5 + 1, 1e-9);
  EXPECT_NEAR(p[1] / p[2], 3 * 7 + 1, 1e-9);
  const cv::Matx33d back = w.toWorking(r.homography);
  EXPECT_NEAR(cv::norm(back - cv::Matx33d(1, 0, 5, 0, 1, 7, 0, 0, 1)), 0.0, 1e-9);
  // At k = 1 nothing changes, and the frame itself is the working image.
  const WorkingFrame vga({640, 480}, 0.2);
  const cv::Mat image(480, 640, CV_8UC1, cv::Scalar(3));
  EXPECT_EQ(vga.toWorking(image, scratch).data, image.data);
}

}  // namespace
}  // namespace nft::session
