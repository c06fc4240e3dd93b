// The outline of a target as a camera sees it (tracker/label_outline.h, issue 47 item 5): a flat
// print's closed quad; a can's silhouette where the rendered can's edges are; its label's edges
// where the label is and only the facing parts; the grid on the label.
#include <gtest/gtest.h>

#include <cmath>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/label_view.h"
#include "support/target_geometries.h"
#include "tracker/label_outline.h"

namespace nft::tracker {
namespace {

constexpr double kPi = 3.14159265358979323846;

CameraCalibration calibration() {
  CameraCalibration c;
  c.K = cv::Matx33d(600, 0, 320, 0, 600, 240, 0, 0, 1);
  c.imageSize = {640, 480};
  return c;
}

Pose poseOf(const detection::LabelCamera& camera) {
  Pose p;
  cv::Rodrigues(camera.R, p.rvec);
  p.tvec = camera.t;
  return p;
}

TEST(LabelOutline, AFlatPrintsOutlineIsItsClosedQuad) {
  const cv::Size size(400, 300);
  const detection::LabelSurface flat(detection::TargetGeometry{}, 0.2, size);
  Pose pose;
  pose.rvec = cv::Vec3d(0.2, -0.1, 0.05);
  pose.tvec = cv::Vec3d(-0.1, -0.07, 0.5);
  const std::vector<std::vector<cv::Point2f>> outline = projectedOutline(flat, size, pose, calibration());
  ASSERT_EQ(outline.size(), 1u);
  ASSERT_EQ(outline[0].size(), 5u);
  std::vector<cv::Point3d> corners = {{0, 0, 0}, {0.2, 0, 0}, {0.2, 0.15, 0}, {0, 0.15, 0}};
  std::vector<cv::Point2d> expected;
  cv::projectPoints(corners, pose.rvec, pose.tvec, calibration().K, cv::noArray(), expected);
  for (size_t i = 0; i < 5; ++i) EXPECT_LT(cv::norm(cv::Point2d(outline[0][i]) - expected[i % 4]), 1e-3) << i;
}

TEST(LabelOutline, ACansSilhouetteIsWhereTheRenderedCanEnds) {
  // A full wrap: the whole body is label, so the rendered label's extent is the can's.
  const double r = 0.04;
  const cv::Size size(800, 300);
  const detection::LabelSurface can(testing::cylinder(r), 2 * kPi * r, size);
  cv::Mat label(size, CV_8UC1, cv::Scalar(200));
  detection::LabelCamera camera = detection::turnedCamera(can, {400, 150}, 0.3, 0.3, {640, 480});
  camera.K = calibration().K;
  const cv::Mat view = detection::renderLabel(label, can, camera, nullptr, nullptr, 0);
  const SurfaceLines lines = visibleSurfaceLines(can, size, camera.centre(), 4);
  ASSERT_EQ(lines.silhouette.size(), 2u);
  const std::vector<std::vector<cv::Point2f>> outline = projectedOutline(can, size, poseOf(camera), calibration());
  // The limb lines are the outline's last two polylines; each point on the rendered can's border.
  ASSERT_GE(outline.size(), 2u);
  cv::Mat mask = view > 0;
  cv::Mat distance;
  cv::Mat border;
  cv::morphologyEx(mask, border, cv::MORPH_GRADIENT, cv::Mat());
  cv::distanceTransform(border == 0, distance, cv::DIST_L2, 3);
  for (size_t k = outline.size() - 2; k < outline.size(); ++k)
    for (const cv::Point2f& p : outline[k]) {
      const cv::Point q(cvRound(p.x), cvRound(p.y));
      ASSERT_TRUE(cv::Rect(0, 0, 640, 480).contains(q)) << p;
      EXPECT_LT(distance.at<float>(q), 1.6f) << p << ": not on the can's edge";
    }
  EXPECT_EQ(lines.grid.size() >= 4, true) << "4 generators and 4 rings, the facing parts";
}

TEST(LabelOutline, ALabelsEdgesAreItsFacingPartOnly) {
  // A 120° label on a 3.3 cm can seen from its front, then turned 150° away.
  const double r = 0.033;
  const cv::Size size(600, 400);
  const double W = r * 120 * kPi / 180;
  const detection::LabelSurface can(testing::cylinder(r), W, size);
  detection::LabelCamera front = detection::turnedCamera(can, {300, 200}, 0, 0.25, {640, 480});
  front.K = calibration().K;
  const SurfaceLines seen = visibleSurfaceLines(can, size, front.centre());
  ASSERT_EQ(seen.edges.size(), 4u) << "top, right, bottom, left: all facing";
  EXPECT_LT(cv::norm(seen.edges[0].front() - can.point({0, 0})), 1e-6);
  EXPECT_LT(cv::norm(seen.edges[0].back() - can.point({600, 0})), 1e-6);
  EXPECT_LT(cv::norm(seen.edges[2].back() - can.point({600, 400})), 1e-6);
  EXPECT_EQ(seen.silhouette.size(), 2u);
  detection::LabelCamera away = detection::turnedCamera(can, {300, 200}, 150 * kPi / 180, 0.25, {640, 480});
  const SurfaceLines hidden = visibleSurfaceLines(can, size, away.centre());
  EXPECT_TRUE(hidden.edges.empty()) << "the label is round the back";
  EXPECT_EQ(hidden.silhouette.size(), 2u) << "the can's silhouette still shows";
}

}  // namespace
}  // namespace nft::tracker
