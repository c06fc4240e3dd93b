#include "tracker/pose.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/calib3d.hpp>

namespace nft::tracker {
namespace {

// The mean distance between `image` and `object` projected with `pose`, pixels.
template <typename P>
double meanDistance(const CameraCalibration& calibration, const Pose& pose, const std::vector<cv::Point3d>& object,
                    const std::vector<P>& image) {
  if (image.empty()) return 0.0;
  std::vector<cv::Point2d> projected;
  cv::projectPoints(object, pose.rvec, pose.tvec, cv::Mat(calibration.K), calibration.distortion, projected);
  double sum = 0.0;
  for (size_t i = 0; i < image.size(); ++i)
    sum += cv::norm(projected[i] - cv::Point2d(static_cast<double>(image[i].x), static_cast<double>(image[i].y)));
  return sum / static_cast<double>(image.size());
}

template <typename P>
Pose estimate(const CameraCalibration& calibration, const std::vector<P>& targetPixels,
              const std::vector<P>& framePixels, double metresPerPixel, bool refine) {
  if (targetPixels.size() != framePixels.size()) {
    throw std::invalid_argument("estimatePose: " + std::to_string(targetPixels.size()) + " target points but " +
                                std::to_string(framePixels.size()) + " frame points");
  }
  if (targetPixels.size() < 4) {
    throw std::invalid_argument("estimatePose: planar PnP needs at least 4 points, got " +
                                std::to_string(targetPixels.size()));
  }
  if (!std::isfinite(metresPerPixel) || metresPerPixel < 0.0) {
    throw std::invalid_argument("estimatePose: metresPerPixel must be finite and >= 0");
  }
  const double mpp = metresPerPixel > 0.0 ? metresPerPixel : 1.0;
  std::vector<cv::Point3d> object;
  std::vector<cv::Point2d> image;
  object.reserve(targetPixels.size());
  image.reserve(framePixels.size());
  for (size_t i = 0; i < targetPixels.size(); ++i) {
    const double tx = targetPixels[i].x, ty = targetPixels[i].y, fx = framePixels[i].x, fy = framePixels[i].y;
    if (!std::isfinite(tx) || !std::isfinite(ty) || !std::isfinite(fx) || !std::isfinite(fy)) {
      throw std::invalid_argument("estimatePose: point " + std::to_string(i) + " is not finite");
    }
    object.emplace_back(tx * mpp, ty * mpp, 0.0);
    image.emplace_back(fx, fy);
  }

  const cv::Mat K(calibration.K);
  cv::Mat rvec, tvec;
  bool found = false;
  try {
    found = cv::solvePnP(object, image, K, calibration.distortion, rvec, tvec, false, cv::SOLVEPNP_IPPE);
  } catch (const cv::Exception& e) {
    throw std::runtime_error("estimatePose: IPPE failed (" + e.err + ")");
  }
  if (!found || rvec.empty() || tvec.empty()) throw std::runtime_error("estimatePose: IPPE found no pose");
  if (refine) cv::solvePnPRefineLM(object, image, K, calibration.distortion, rvec, tvec);

  Pose pose;
  pose.rvec = cv::Vec3d(rvec.reshape(1, 3));
  pose.tvec = cv::Vec3d(tvec.reshape(1, 3));
  pose.reprojectionErrorPx = meanDistance(calibration, pose, object, image);
  pose.inliers = static_cast<int>(image.size());
  return pose;
}

}  // namespace

Pose estimatePose(const CameraCalibration& calibration, const std::vector<cv::Point2f>& targetPixels,
                  const std::vector<cv::Point2f>& framePixels, double metresPerPixel, bool refine) {
  return estimate(calibration, targetPixels, framePixels, metresPerPixel, refine);
}

Pose estimatePose(const CameraCalibration& calibration, const std::vector<cv::Point2d>& targetPixels,
                  const std::vector<cv::Point2d>& framePixels, double metresPerPixel, bool refine) {
  return estimate(calibration, targetPixels, framePixels, metresPerPixel, refine);
}

double meanReprojectionErrorPx(const CameraCalibration& calibration, const Pose& pose,
                               const std::vector<cv::Point2f>& targetPixels,
                               const std::vector<cv::Point2f>& framePixels, double metresPerPixel) {
  if (targetPixels.size() != framePixels.size()) {
    throw std::invalid_argument("meanReprojectionErrorPx: " + std::to_string(targetPixels.size()) +
                                " target points but " + std::to_string(framePixels.size()) + " frame points");
  }
  if (!std::isfinite(metresPerPixel) || metresPerPixel < 0.0) {
    throw std::invalid_argument("meanReprojectionErrorPx: metresPerPixel must be finite and >= 0");
  }
  const double mpp = metresPerPixel > 0.0 ? metresPerPixel : 1.0;
  std::vector<cv::Point3d> object;
  object.reserve(targetPixels.size());
  for (const cv::Point2f& p : targetPixels) object.emplace_back(p.x * mpp, p.y * mpp, 0.0);
  return meanDistance(calibration, pose, object, framePixels);
}

Pose poseFromHomography(const CameraCalibration& calibration, const cv::Matx33d& H, cv::Size targetSize,
                        double metresPerPixel, int gridSize, bool refine) {
  if (targetSize.width <= 0 || targetSize.height <= 0) {
    throw std::invalid_argument("poseFromHomography: target size must be positive");
  }
  if (gridSize < 2) throw std::invalid_argument("poseFromHomography: gridSize must be >= 2");
  for (int i = 0; i < 9; ++i) {
    if (!std::isfinite(H.val[i])) throw std::invalid_argument("poseFromHomography: H is not finite");
  }
  std::vector<cv::Point2d> target, frame;
  int positive = 0, negative = 0;
  for (int r = 0; r < gridSize; ++r) {
    for (int c = 0; c < gridSize; ++c) {
      const double x = targetSize.width * static_cast<double>(c) / (gridSize - 1);
      const double y = targetSize.height * static_cast<double>(r) / (gridSize - 1);
      const cv::Vec3d q = H * cv::Vec3d(x, y, 1.0);
      if (q[2] == 0.0) throw std::invalid_argument("poseFromHomography: H sends a target point to infinity");
      positive += q[2] > 0.0 ? 1 : 0;
      negative += q[2] < 0.0 ? 1 : 0;
      target.emplace_back(x, y);
      frame.emplace_back(q[0] / q[2], q[1] / q[2]);
    }
  }
  if (positive > 0 && negative > 0) {
    throw std::invalid_argument("poseFromHomography: H puts part of the target behind the image plane");
  }
  return estimatePose(calibration, target, frame, metresPerPixel, refine);
}

}  // namespace nft::tracker
