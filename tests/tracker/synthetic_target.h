#pragma once
// A synthetic planar target and camera frames of it with exact homographies, for the tracking
// lane's unit tests (no data folder needed).

#include <algorithm>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/target_model.h"

namespace nft::testing {

/// A textured target: uniform noise blurred to blobs of a few pixels (good NCC texture
/// everywhere; a smaller blurSigma gives finer detail), CV_8UC1, fixed seed.
inline cv::Mat syntheticTarget(cv::Size size = {200, 150}, double blurSigma = 1.5) {
  cv::Mat noise(size, CV_8UC1);
  cv::RNG rng(7);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
  cv::Mat target;
  cv::GaussianBlur(noise, target, cv::Size(0, 0), blurSigma);
  cv::normalize(target, target, 0, 255, cv::NORM_MINMAX);
  return target;
}

/// The target seen through homography H (target pixels → frame pixels) on a mid-grey frame.
inline cv::Mat syntheticFrame(const cv::Mat& target, const cv::Matx33d& H, cv::Size frameSize = {640, 480}) {
  cv::Mat frame;
  cv::warpPerspective(target, frame, cv::Mat(H), frameSize, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(128));
  return frame;
}

/// A model with only what the tracking lane uses: the image and its patches (strongest corners,
/// at least 10 px from the border and 8 px apart, all on level 0).
inline detection::TargetModel syntheticModel(const cv::Mat& target) {
  detection::TargetModel model;
  model.image = target;
  model.widthMetres = 0.2;
  std::vector<cv::Point2f> corners;
  cv::Mat mask = cv::Mat::zeros(target.size(), CV_8UC1);
  mask(cv::Rect(10, 10, target.cols - 20, target.rows - 20)).setTo(255);
  cv::goodFeaturesToTrack(target, corners, 150, 0.01, 8, mask);
  for (const cv::Point2f& c : corners) model.patches.push_back({c, 0, 1.0f});
  return model;
}

/// Frame pixel of target point x under H.
inline cv::Point2d project(const cv::Matx33d& H, cv::Point2d x) {
  const cv::Vec3d p = H * cv::Vec3d(x.x, x.y, 1.0);
  return {p[0] / p[2], p[1] / p[2]};
}

/// The homography of a shift by (x, y) pixels.
inline cv::Matx33d translation(double x, double y) { return {1, 0, x, 0, 1, y, 0, 0, 1}; }

/// Gaussian pyramid of `image` (cv::pyrDown) down to the first level under 32 pixels a side.
inline std::vector<cv::Mat> pyramidOf(const cv::Mat& image) {
  std::vector<cv::Mat> levels{image};
  while (levels.back().cols >= 32 && levels.back().rows >= 32) {
    cv::Mat next;
    cv::pyrDown(levels.back(), next);
    levels.push_back(next);
  }
  return levels;
}

/// The largest distance, frame pixels, between `corners` (upper left, upper right, lower right,
/// lower left) and the target's corners under `truth`.
inline double worstCornerError(const std::vector<cv::Point2f>& corners, const cv::Matx33d& truth, cv::Size target) {
  const cv::Point2d expected[4] = {project(truth, {0, 0}), project(truth, {target.width * 1.0, 0}),
                                   project(truth, {target.width * 1.0, target.height * 1.0}),
                                   project(truth, {0, target.height * 1.0})};
  double worst = 0;
  for (int i = 0; i < 4; ++i) worst = std::max(worst, cv::norm(cv::Point2d(corners[static_cast<size_t>(i)]) - expected[i]));
  return worst;
}

/// The target seen through H while it moves by `streak` (frame pixels) during the exposure:
/// the mean of `samples` frames along the streak, centred on H.
inline cv::Mat blurredFrame(const cv::Mat& target, const cv::Matx33d& H, cv::Point2d streak, int samples) {
  cv::Mat sum = cv::Mat::zeros(480, 640, CV_32F), frame;
  for (int k = 0; k < samples; ++k) {
    const double a = static_cast<double>(k) / (samples - 1) - 0.5;
    syntheticFrame(target, translation(a * streak.x, a * streak.y) * H).convertTo(frame, CV_32F);
    sum += frame;
  }
  sum.convertTo(frame, CV_8U, 1.0 / samples);
  return frame;
}

}  // namespace nft::testing
