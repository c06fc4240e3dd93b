// Views of a label on its surface (issue 47, item 2): the renderer checked against the label
// itself and against projection, and the trainer's turned views checked by what they are for —
// matching a can's label turned away from the camera, the matches' 3D points giving its pose.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/fast_detector.h"
#include "detection/label_view.h"
#include "detection/surf_cpu.h"
#include "detection/target_trainer.h"
#include "support/target_geometries.h"

namespace nft::detection {
namespace {

using testing::cylinder;

constexpr double kPi = 3.14159265358979323846;
const char* kGraf = "/usr/share/doc/opencv-doc/examples/data/graf1.png";  // 800 × 640

cv::Mat label(cv::Size size) {
  const cv::Mat graf = cv::imread(kGraf, cv::IMREAD_GRAYSCALE);
  if (graf.empty()) return graf;
  cv::Mat out;
  cv::resize(graf, out, size, 0, 0, cv::INTER_AREA);
  return out;
}

cv::Point2d project(const LabelCamera& c, const cv::Point3d& x) {
  const cv::Vec3d q = c.K * (c.R * cv::Vec3d(x.x, x.y, x.z) + c.t);
  return {q[0] / q[2], q[1] / q[2]};
}

TEST(LabelView, AFlatPrintSeenSquarelyIsItsImage) {
  const cv::Mat image = label({400, 320});
  ASSERT_FALSE(image.empty()) << kGraf << " (Debian's opencv-doc)";
  const double W = 0.2, s = W / 400, D = 0.5;
  const LabelSurface surface(TargetGeometry{}, W, image.size());
  LabelCamera camera;
  camera.t = cv::Vec3d(-W / 2, -160 * s, D);  // centre (W/2, H/2, −D)
  camera.K = cv::Matx33d(D / s, 0, 200, 0, D / s, 160, 0, 0, 1);
  camera.size = image.size();
  cv::Mat map;
  const cv::Mat view = renderLabel(image, surface, camera, &map);
  const cv::Rect inside(2, 2, 396, 316);
  EXPECT_LE(cv::norm(view(inside), image(inside), cv::NORM_INF), 1.0);
  EXPECT_NEAR(map.at<cv::Vec2f>(100, 50)[0], 50.0, 1e-3);
  EXPECT_NEAR(map.at<cv::Vec2f>(100, 50)[1], 100.0, 1e-3);
}

TEST(LabelView, EachRenderedPixelProjectsBackWhereItWasDrawn) {
  const cv::Mat image = label({640, 512});
  ASSERT_FALSE(image.empty()) << kGraf;
  const LabelSurface can(cylinder(0.033), 0.15, image.size());
  const LabelCamera camera = turnedCamera(can, {320, 256}, 40 * kPi / 180, 0.3, {640, 480});
  cv::Mat map, facing;
  const cv::Mat view = renderLabel(image, can, camera, &map, &facing, 7);
  int drawn = 0;
  for (int y = 0; y < view.rows; y += 7)
    for (int x = 0; x < view.cols; x += 7) {
      const cv::Vec2f p = map.at<cv::Vec2f>(y, x);
      if (p[0] < 0) {
        EXPECT_EQ(view.at<uchar>(y, x), 7) << "the background where no label is seen";
        continue;
      }
      ++drawn;
      EXPECT_LT(cv::norm(project(camera, can.point({p[0], p[1]})) - cv::Point2d(x, y)), 1e-3) << x << ", " << y;
      EXPECT_GT(facing.at<float>(y, x), 0.0f);
    }
  EXPECT_GT(drawn, 1000);
  // The camera faces the label's point 40° round from the middle, in the view's centre.
  const cv::Vec2f centre = map.at<cv::Vec2f>(240, 320);
  const double arc = (centre[0] - 320) * 0.15 / 640;
  EXPECT_NEAR(arc / 0.033, 40 * kPi / 180, 0.01);
  EXPECT_NEAR(facing.at<float>(240, 320), 1.0, 1e-3);
}

TEST(LabelView, TurnedViewsFindACanLabelTurnedAwayFromTheCamera) {
  // A label over 115° of a 5 cm radius (0.1 m of arc, 0.08 m high), the can turned 50° so that
  // most of the label faces the camera obliquely; 0.2 m away, rolled 10°, in a 640 × 480 frame.
  // Matches give 2D–3D correspondences (LabelSurface::point of the model keypoint) and PnP the pose.
  const cv::Mat image = label({640, 512});
  ASSERT_FALSE(image.empty()) << kGraf;
  const LabelSurface can(cylinder(0.05), 0.1, image.size());
  LabelCamera camera = turnedCamera(can, {320, 256}, -50 * kPi / 180, 0.2, {640, 480});
  const double roll = 10 * kPi / 180;
  const cv::Matx33d Rz(std::cos(roll), -std::sin(roll), 0, std::sin(roll), std::cos(roll), 0, 0, 0, 1);
  camera.R = Rz * camera.R;
  camera.t = Rz * camera.t;
  camera.K = cv::Matx33d(600, 0, 330, 0, 600, 230, 0, 0, 1);
  const cv::Mat frame = renderLabel(image, can, camera, nullptr, nullptr, 110);

  const SurfCpu surf;
  std::vector<Keypoint> frameKeypoints = FastDetector().detect(frame);
  const cv::Mat frameDescriptors = surf.describe(frame, frameKeypoints);
  struct Outcome {
    int correct = 0, fromViews = 0, correctFromViews = 0;
    double rotationDeg = 180, translation = 1;
  };
  const auto matchModel = [&](const TargetModel& m) {
    // The ratio test against the nearest descriptor of another place on the label: the views
    // describe one label point several times, and those are not rivals.
    cv::BFMatcher matcher(cv::NORM_L2);
    std::vector<std::vector<cv::DMatch>> knn;
    matcher.knnMatch(frameDescriptors, m.descriptors, knn, 12);
    std::vector<cv::Point3f> object;
    std::vector<cv::Point2f> imagePoints;
    Outcome o;
    for (const std::vector<cv::DMatch>& candidates : knn) {
      if (candidates.empty()) continue;
      const cv::DMatch& best = candidates.front();
      const Keypoint& k = m.keypoints[static_cast<size_t>(best.trainIdx)];
      const cv::DMatch* rival = nullptr;
      for (const cv::DMatch& c : candidates) {
        const Keypoint& other = m.keypoints[static_cast<size_t>(c.trainIdx)];
        if (std::hypot(other.x - k.x, other.y - k.y) > 4) {
          rival = &c;
          break;
        }
      }
      if (rival && best.distance > 0.8f * rival->distance) continue;
      const Keypoint& f = frameKeypoints[static_cast<size_t>(best.queryIdx)];
      const cv::Point3d x = can.point({k.x, k.y});
      o.correct += cv::norm(project(camera, x) - cv::Point2d(f.x, f.y)) < 3.0 ? 1 : 0;
      if (best.trainIdx >= m.frontalKeypoints()) {
        ++o.fromViews;
        o.correctFromViews += cv::norm(project(camera, x) - cv::Point2d(f.x, f.y)) < 3.0 ? 1 : 0;
      }
      object.emplace_back(static_cast<float>(x.x), static_cast<float>(x.y), static_cast<float>(x.z));
      imagePoints.emplace_back(f.x, f.y);
    }
    cv::Mat rvec, tvec;
    std::vector<int> inliers;
    if (object.size() >= 6 &&
        cv::solvePnPRansac(object, imagePoints, cv::Mat(camera.K), cv::noArray(), rvec, tvec, false, 500, 3.0f, 0.99,
                           inliers, cv::SOLVEPNP_SQPNP)) {
      cv::Matx33d R;
      cv::Rodrigues(rvec, R);
      const cv::Matx33d dR = R * camera.R.t();
      o.rotationDeg = std::acos(std::clamp((cv::trace(dR) - 1) / 2, -1.0, 1.0)) * 180 / kPi;
      o.translation = cv::norm(cv::Vec3d(tvec) - camera.t) / cv::norm(camera.t);
    }
    return o;
  };
  TargetTrainerOptions options;
  options.widthMetres = 0.1;
  options.geometry = cylinder(0.05);
  options.viewTurnDeg = 0;
  const auto train = [&] {
    return trainTarget(image, options, [&](const cv::Mat& g, std::vector<Keypoint>& k) { return surf.describe(g, k); });
  };
  const TargetModel plain = train();
  options.viewTurnDeg = 60;
  const TargetModel turned = train();
  EXPECT_GT(turned.tiltedKeypoints, plain.tiltedKeypoints + 300) << "five views of up to 250 keypoints";
  EXPECT_EQ(cv::norm(turned.descriptors.rowRange(0, plain.descriptors.rows), plain.descriptors, cv::NORM_INF), 0.0)
      << "the label's own keypoints and the tilted views' first, as without the turned views";
  for (const Keypoint& k : turned.keypoints) ASSERT_TRUE(can.onLabel({k.x, k.y})) << k.x << ", " << k.y;
  const Outcome withViews = matchModel(turned), without = matchModel(plain);
  std::printf("correct matches: %d with the turned views (%d of their %d), %d without; pose %.2f deg / %.2f %% with, "
              "%.2f deg / %.2f %% without\n",
              withViews.correct, withViews.correctFromViews, withViews.fromViews, without.correct,
              withViews.rotationDeg, 100 * withViews.translation, without.rotationDeg, 100 * without.translation);
  // Measured: 117 correct (47 of the views' 61), the pose 0.63° / 0.08 % off; without the turned
  // views 91 correct and the pose 20° / 8 % off (its matches bunched on the part facing the camera).
  EXPECT_GE(withViews.correct, without.correct + 15);
  EXPECT_GE(withViews.correctFromViews, 30);
  EXPECT_LT(withViews.rotationDeg, 1.5);
  EXPECT_LT(withViews.translation, 0.02);
}

}  // namespace
}  // namespace nft::detection
