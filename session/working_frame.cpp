// The working frame of a frame size (see working_frame.h).
#include "session/working_frame.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

namespace nft::session {

namespace {

cv::Size downscaled(cv::Size size, int factor) {
  return {static_cast<int>(std::lround(static_cast<double>(size.width) / factor)),
          static_cast<int>(std::lround(static_cast<double>(size.height) / factor))};
}

}  // namespace

WorkingFrame::WorkingFrame(cv::Size frameSize, double s)
    : frameSize_(frameSize), workingSize_(frameSize), detectionSize_(frameSize) {
  if (frameSize.width <= 0 || frameSize.height <= 0)
    throw std::invalid_argument("WorkingFrame: frame size " + std::to_string(frameSize.width) + "x" +
                                std::to_string(frameSize.height) + " is not positive");
  if (!(s > 0 && s <= 1))
    throw std::invalid_argument("WorkingFrame: min frame fraction " + std::to_string(s) + " is not in (0, 1]");
  // (A tolerance: 0.2 · sqrt(1280 · 720) / 96 is 2 up to rounding.)
  constexpr double kTolerance = 1e-9;
  const double longer = std::max(frameSize.width, frameSize.height);
  const double bySide = std::floor(longer / kMinWorkingSidePx + kTolerance);
  const double byTarget =
      std::floor(s * std::sqrt(static_cast<double>(frameSize.width) * frameSize.height) / kMinWorkingTargetPx + kTolerance);
  factor_ = static_cast<int>(std::max(1.0, std::min(bySide, byTarget)));
  const double byDetectedTarget = std::floor(
      s * std::sqrt(static_cast<double>(frameSize.width) * frameSize.height) / kMinDetectionTargetPx + kTolerance);
  detectionFactor_ = static_cast<int>(std::max(1.0, std::min(static_cast<double>(factor_), byDetectedTarget)));
  detectionSize_ = downscaled(frameSize, detectionFactor_);
  if (factor_ == 1) return;
  workingSize_ = downscaled(frameSize, factor_);
  const double rx = static_cast<double>(frameSize.width) / workingSize_.width;
  const double ry = static_cast<double>(frameSize.height) / workingSize_.height;
  toFrame_ = cv::Matx33d(rx, 0, 0.5 * rx - 0.5, 0, ry, 0.5 * ry - 0.5, 0, 0, 1);
}

const cv::Mat& WorkingFrame::toWorking(const cv::Mat& frame, cv::Mat& scratch) const {
  if (factor_ == 1) return frame;
  cv::resize(frame, scratch, workingSize_, 0, 0, cv::INTER_AREA);
  return scratch;
}

const cv::Mat& WorkingFrame::toDetection(const cv::Mat& frame, cv::Mat& scratch) const {
  if (detectionFactor_ == 1) return frame;
  cv::resize(frame, scratch, detectionSize_, 0, 0, cv::INTER_AREA);
  return scratch;
}

cv::Matx33d WorkingFrame::toFrame(const cv::Matx33d& workingH) const {
  const cv::Matx33d H = toFrame_ * workingH;
  return H * (1.0 / H(2, 2));
}

cv::Matx33d WorkingFrame::toWorking(const cv::Matx33d& frameH) const {
  const cv::Matx33d H = toFrame_.inv() * frameH;
  return H * (1.0 / H(2, 2));
}

void WorkingFrame::toFrame(TargetResult& r) const {
  if (factor_ == 1) return;
  const auto map = [&](cv::Point2f& p) {
    p = cv::Point2f(static_cast<float>(toFrame_(0, 0) * p.x + toFrame_(0, 2)),
                    static_cast<float>(toFrame_(1, 1) * p.y + toFrame_(1, 2)));
  };
  if (r.found) r.homography = toFrame(r.homography);
  for (cv::Point2f& p : r.corners) map(p);
  for (std::vector<cv::Point2f>& line : r.outline)
    for (cv::Point2f& p : line) map(p);
  for (cv::Point2f& p : r.inlierFramePoints) map(p);
  r.reprojectionErrorPx *= factor_;
}

}  // namespace nft::session
