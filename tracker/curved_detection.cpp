#include "tracker/curved_detection.h"

#include <chrono>
#include <cmath>
#include <utility>

#include <opencv2/calib3d.hpp>

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

cv::Matx33d tangentPlaneHomography(const CameraCalibration& calibration, const Pose& pose, double metresPerPixel) {
  cv::Matx33d R;
  cv::Rodrigues(pose.rvec, R);
  const cv::Matx33d M(R(0, 0) * metresPerPixel, R(0, 1) * metresPerPixel, pose.tvec[0],
                      R(1, 0) * metresPerPixel, R(1, 1) * metresPerPixel, pose.tvec[1],
                      R(2, 0) * metresPerPixel, R(2, 1) * metresPerPixel, pose.tvec[2]);
  cv::Matx33d H = calibration.K * M;
  return H * (1.0 / H(2, 2));
}

std::optional<Detection> verifyCurvedDetection(const std::vector<detection::Match>& matches,
                                               const std::vector<cv::Point2f>& targetPoints,
                                               const std::vector<detection::Keypoint>& frameKeypoints,
                                               const detection::LabelSurface& surface, cv::Size targetSize,
                                               const CameraCalibration& calibration,
                                               const DetectionLaneOptions& o, std::string& rejection,
                                               double& ransacMs, double& poseMs) {
  rejection.clear();
  ransacMs = poseMs = 0;
  if (static_cast<int>(matches.size()) < o.minInliers) {
    rejection = "too few matches: " + std::to_string(matches.size()) + " < " + std::to_string(o.minInliers);
    return std::nullopt;
  }
  const auto ransacStart = Clock::now();
  std::vector<cv::Point3d> object;
  std::vector<cv::Point2d> image;
  object.reserve(matches.size());
  image.reserve(matches.size());
  for (const detection::Match& m : matches) {
    const cv::Point2f& p = targetPoints[static_cast<size_t>(m.target)];
    object.push_back(surface.point({p.x, p.y}));
    const detection::Keypoint& k = frameKeypoints[static_cast<size_t>(m.query)];
    image.emplace_back(k.x, k.y);
  }
  cv::Mat rvec, tvec;
  std::vector<int> inlierIndices;
  const int iterations = ransacIterationsFor(o.minInliers, static_cast<int>(matches.size()), o.ransacConfidence,
                                             o.ransacMaxIterations);
  bool solved = false;
  try {
    cv::UsacParams usac;
    usac.maxIterations = iterations;
    usac.threshold = o.ransacThresholdPx;
    usac.confidence = o.ransacConfidence;
    usac.score = cv::SCORE_METHOD_MSAC;
    usac.loMethod = cv::LOCAL_OPTIM_INNER_LO;
    usac.isParallel = false;
    solved = cv::solvePnPRansac(object, image, calibration.K, calibration.distortion, rvec, tvec, inlierIndices, usac);
  } catch (const cv::Exception& e) {
    rejection = std::string("no pose: ") + e.what();
  }
  ransacMs = msSince(ransacStart);
  if (!solved) {
    if (rejection.empty()) rejection = "no pose: PnP found none";
    return std::nullopt;
  }
  if (static_cast<int>(inlierIndices.size()) < o.minInliers) {
    rejection = "too few inliers: " + std::to_string(inlierIndices.size()) + " < " + std::to_string(o.minInliers);
    return std::nullopt;
  }
  const auto poseStart = Clock::now();
  const auto reject = [&](std::string why) -> std::optional<Detection> {
    rejection = std::move(why);
    poseMs = msSince(poseStart);
    return std::nullopt;
  };
  // The points of the inliers `kept` (indices into object / image).
  std::vector<int> kept = inlierIndices;
  std::vector<cv::Point3d> inObject;
  std::vector<cv::Point2d> inImage;
  const auto gather = [&] {
    inObject.clear();
    inImage.clear();
    for (const int i : kept) {
      inObject.push_back(object[static_cast<size_t>(i)]);
      inImage.push_back(image[static_cast<size_t>(i)]);
    }
  };
  gather();
  if (o.refinePose) {
    cv::solvePnPRefineLM(inObject, inImage, calibration.K, calibration.distortion, rvec, tvec);
    // Again on the inliers within half the threshold: RANSAC's threshold admits the coarse
    // octaves' loosely placed keypoints, which pull the pose (a can turned 50°: 1.96° → 0.6° off).
    std::vector<cv::Point2d> fitted;
    cv::projectPoints(inObject, rvec, tvec, calibration.K, calibration.distortion, fitted);
    std::vector<int> tight;
    for (size_t i = 0; i < fitted.size(); ++i)
      if (cv::norm(fitted[i] - inImage[i]) < 0.5 * o.ransacThresholdPx) tight.push_back(kept[i]);
    if (static_cast<int>(tight.size()) >= o.minInliers) {
      kept = std::move(tight);
      gather();
      cv::solvePnPRefineLM(inObject, inImage, calibration.K, calibration.distortion, rvec, tvec);
    }
  }
  Pose pose;
  pose.rvec = cv::Vec3d(rvec.at<double>(0), rvec.at<double>(1), rvec.at<double>(2));
  pose.tvec = cv::Vec3d(tvec.at<double>(0), tvec.at<double>(1), tvec.at<double>(2));
  pose.inliers = static_cast<int>(kept.size());
  // In front of the camera, and on the side of the label that faces it.
  cv::Matx33d R;
  cv::Rodrigues(pose.rvec, R);
  const cv::Vec3d centre = -(R.t() * pose.tvec);
  int away = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    const cv::Vec3d x(inObject[i].x, inObject[i].y, inObject[i].z);
    if ((R * x + pose.tvec)[2] <= 0) return reject("no pose: an inlier behind the camera");
    const cv::Point2f& p = targetPoints[static_cast<size_t>(matches[static_cast<size_t>(kept[i])].target)];
    away += surface.normal({p.x, p.y}).dot(x - centre) >= 0 ? 1 : 0;
  }
  if (away * 10 > pose.inliers)
    return reject("no pose: " + std::to_string(away) + " of " + std::to_string(pose.inliers) +
                  " inliers on the label's far side");
  std::vector<cv::Point2d> projected;
  cv::projectPoints(inObject, pose.rvec, pose.tvec, calibration.K, calibration.distortion, projected);
  double sum = 0;
  for (size_t i = 0; i < projected.size(); ++i) sum += cv::norm(projected[i] - inImage[i]);
  pose.reprojectionErrorPx = sum / static_cast<double>(projected.size());

  Detection d;
  d.pose = pose;
  d.inliers = pose.inliers;
  d.reprojectionErrorPx = pose.reprojectionErrorPx;
  d.homography = tangentPlaneHomography(calibration, pose, surface.metresPerPixel());
  const double w = targetSize.width, h = targetSize.height;
  std::vector<cv::Point3d> corners3d;
  for (const cv::Point2d& c : {cv::Point2d(0, 0), cv::Point2d(w, 0), cv::Point2d(w, h), cv::Point2d(0, h)}) {
    const cv::Point3d x = surface.point(c);
    if ((R * cv::Vec3d(x.x, x.y, x.z) + pose.tvec)[2] <= 1e-9) return reject("no pose: a label corner projects to infinity");
    corners3d.push_back(x);
  }
  std::vector<cv::Point2d> corners;
  cv::projectPoints(corners3d, pose.rvec, pose.tvec, calibration.K, calibration.distortion, corners);
  for (const cv::Point2d& c : corners) d.corners.emplace_back(static_cast<float>(c.x), static_cast<float>(c.y));
  poseMs = msSince(poseStart);
  return d;
}

}  // namespace nft::tracker
