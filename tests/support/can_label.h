#pragma once
// A can's label for the curved-target tests of tracker/: graf1.png as a label over 115° of a 5 cm
// can (0.1 m of arc), trained as the Session trains it, a 640 × 480 camera (f = 600 px) and views
// of it turned about the can's axis (detection/label_view.h).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/label_surface.h"
#include "detection/label_view.h"
#include "detection/surf_cpu.h"
#include "detection/target_trainer.h"
#include "support/target_geometries.h"
#include "tracker/camera_calibration.h"
#include "tracker/pose.h"

namespace nft::testing {

struct CanLabel {
  detection::TargetModel model;
  detection::LabelSurface surface;
  tracker::CameraCalibration calibration;
};

/// The can (throws std::runtime_error naming opencv-doc's graf1.png when it is missing).
inline CanLabel makeCanLabel() {
  cv::Mat graf = cv::imread("/usr/share/doc/opencv-doc/examples/data/graf1.png", cv::IMREAD_GRAYSCALE);
  if (graf.empty()) throw std::runtime_error("opencv-doc's graf1.png is missing (scripts/install-deps.sh)");
  cv::resize(graf, graf, cv::Size(640, 512), 0, 0, cv::INTER_AREA);
  detection::TargetTrainerOptions options;
  options.widthMetres = 0.1;
  options.geometry = cylinder(0.05);
  const detection::SurfCpu surf;
  detection::TargetModel model = detection::trainTarget(
      graf, options, [&](const cv::Mat& g, std::vector<detection::Keypoint>& k) { return surf.describe(g, k); });
  tracker::CameraCalibration calibration;
  calibration.K = cv::Matx33d(600, 0, 330, 0, 600, 230, 0, 0, 1);
  calibration.imageSize = cv::Size(640, 480);
  const detection::LabelSurface surface(model.geometry, model.widthMetres, model.image.size());
  return {model, surface, calibration};
}

/// The camera 0.2 m from the can, the label's middle turned by `turnDeg` from facing it.
inline detection::LabelCamera canCameraAt(const CanLabel& can, double turnDeg) {
  constexpr double kPi = 3.14159265358979323846;
  detection::LabelCamera c = detection::turnedCamera(can.surface, {320, 256}, turnDeg * kPi / 180, 0.2, {640, 480});
  c.K = can.calibration.K;
  return c;
}

/// The camera's pose (X_camera = R·X + t).
inline tracker::Pose poseOf(const detection::LabelCamera& c) {
  tracker::Pose p;
  cv::Rodrigues(c.R, p.rvec);
  p.tvec = c.t;
  return p;
}

/// The angle between the pose's rotation and the camera's, degrees.
inline double rotationErrorDeg(const tracker::Pose& a, const detection::LabelCamera& c) {
  constexpr double kPi = 3.14159265358979323846;
  cv::Matx33d R;
  cv::Rodrigues(a.rvec, R);
  return std::acos(std::clamp((cv::trace(R * c.R.t()) - 1) / 2, -1.0, 1.0)) * 180 / kPi;
}

}  // namespace nft::testing
