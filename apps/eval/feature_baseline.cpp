// OpenCV ORB / SIFT + ratio test + RANSAC on every frame (see feature_baseline.h).

#include "apps/eval/feature_baseline.h"

#include <chrono>
#include <sstream>
#include <stdexcept>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

namespace nft::eval {
namespace {

const cv::Mat& toGray(const cv::Mat& image, cv::Mat& buffer) {
  if (image.channels() == 1) return image;
  cv::cvtColor(image, buffer, image.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
  return buffer;
}

}  // namespace

std::string toString(BaselineKind kind) { return kind == BaselineKind::Orb ? "orb" : "sift"; }

std::vector<BaselineKind> parseBaselineList(const std::string& list) {
  std::vector<BaselineKind> kinds;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty() || name == "none") continue;
    if (name == "orb")
      kinds.push_back(BaselineKind::Orb);
    else if (name == "sift")
      kinds.push_back(BaselineKind::Sift);
    else
      throw std::invalid_argument("unknown baseline '" + name + "' (expected orb, sift or none)");
  }
  return kinds;
}

FeatureBaseline::FeatureBaseline(BaselineKind kind, const cv::Mat& target, const BaselineOptions& options)
    : kind_(kind),
      options_(options),
      features_(kind == BaselineKind::Orb ? cv::Ptr<cv::Feature2D>(cv::ORB::create(options.orbFeatures))
                                          : cv::Ptr<cv::Feature2D>(cv::SIFT::create())),
      matcher_(kind == BaselineKind::Orb ? cv::NORM_HAMMING : cv::NORM_L2) {
  if (target.empty()) throw std::invalid_argument("FeatureBaseline: empty target image");
  cv::Mat buffer;
  features_->detectAndCompute(toGray(target, buffer), cv::noArray(), targetKeypoints_, targetDescriptors_);
  const float w = static_cast<float>(target.cols), h = static_cast<float>(target.rows);
  targetCorners_ = {{0, 0}, {w, 0}, {w, h}, {0, h}};
}

FrameOutcome FeatureBaseline::find(const cv::Mat& frame) {
  const auto start = std::chrono::steady_clock::now();
  FrameOutcome out;
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
  features_->detectAndCompute(toGray(frame, gray_), cv::noArray(), keypoints, descriptors);
  std::vector<cv::Point2f> src, dst;
  if (!descriptors.empty() && !targetDescriptors_.empty()) {
    const float ratio = kind_ == BaselineKind::Orb ? options_.orbRatio : options_.siftRatio;
    std::vector<std::vector<cv::DMatch>> knn;
    matcher_.knnMatch(targetDescriptors_, descriptors, knn, 2);
    for (const std::vector<cv::DMatch>& m : knn)
      if (m.size() == 2 && m[0].distance < ratio * m[1].distance) {
        src.push_back(targetKeypoints_[static_cast<size_t>(m[0].queryIdx)].pt);
        dst.push_back(keypoints[static_cast<size_t>(m[0].trainIdx)].pt);
      }
  }
  if (src.size() >= 4) {
    std::vector<unsigned char> mask;
    const cv::Mat H = cv::findHomography(src, dst, cv::RANSAC, options_.ransacPx, mask);
    if (!H.empty()) {
      cv::perspectiveTransform(targetCorners_, out.corners, H);
      out.found = true;
      out.homography = cv::Matx33d(H);
      out.inliers = cv::countNonZero(mask);
    }
  }
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace nft::eval
