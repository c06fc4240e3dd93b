// DetectionPlan: base level, keypoint budget and passes of a frame size (see detection_plan.h).
#include "tracker/detection_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "tracker/detection_lane.h"

namespace nft::tracker {
namespace {

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

/// The budget of detector.maxKeypoints 0 (auto) for targets down to side fraction s.
int autoKeypoints(double s) {
  const double wanted = std::ceil(kSmallestTargetKeypoints / (s * s));
  return static_cast<int>(std::clamp(wanted, static_cast<double>(kMinAutoKeypoints),
                                     static_cast<double>(kMaxAutoKeypoints)));
}

}  // namespace

DetectionPlan::DetectionPlan(cv::Size frameSize, const DetectionLaneOptions& o, size_t targetKeypoints)
    : frameSize_(frameSize), detector_(o.detector) {
  if (frameSize.width <= 0 || frameSize.height <= 0)
    throw std::invalid_argument("DetectionPlan: frame size " + sizeText(frameSize) + " is not positive");
  const double s = o.minFrameFraction;
  if (!(s > 0 && s <= 1))
    throw std::invalid_argument("DetectionLaneOptions::minFrameFraction must be in (0, 1], got " + std::to_string(s));
  if (detector_.maxKeypoints == 0) detector_.maxKeypoints = autoKeypoints(s);
  if (o.targetKeypointFactor > 0 && targetKeypoints > 0) {
    const double wanted = std::max(200.0, std::ceil(o.targetKeypointFactor * static_cast<double>(targetKeypoints)));
    if (wanted < detector_.maxKeypoints) detector_.maxKeypoints = static_cast<int>(wanted);
  }
  (void)detection::FastDetector(detector_);  // validates the detector options, naming the bad one

  // The coarsest level on which the frame and the smallest target are both still large enough.
  const double f = detector_.scaleFactor;
  const double shortSide = std::min(frameSize.width, frameSize.height);
  const double targetSide = s * std::sqrt(static_cast<double>(frameSize.width) * frameSize.height);
  while (shortSide / std::pow(f, baseLevel_ + 1) >= kMinBaseShortSidePx &&
         targetSide / std::pow(f, baseLevel_ + 1) >= kMinBaseTargetSidePx)
    ++baseLevel_;
  const double factor = std::pow(f, baseLevel_);
  baseSize_ = baseLevel_ == 0 ? frameSize
                              : cv::Size(static_cast<int>(std::lround(frameSize.width / factor)),
                                         static_cast<int>(std::lround(frameSize.height / factor)));

  firstPassFraction_ = o.firstPassFraction;
  minPass_ = 4 * static_cast<size_t>(std::max(0, o.minInliers));
  onePass_ = o.matching.crossCheck;
}

DetectionLaneOptions DetectionPlan::verifyOptions(const DetectionLaneOptions& options) const {
  DetectionLaneOptions o = options;
  o.ransacThresholdPx *= frameScale();
  return o;
}

const cv::Mat& DetectionPlan::baseImage(const cv::Mat& frame, cv::Mat& scratch) const {
  if (baseLevel_ == 0) return frame;
  const double factor = static_cast<double>(frameSize_.width) / baseSize_.width;
  cv::resize(frame, scratch, baseSize_, 0, 0, factor <= 2.0 ? cv::INTER_LINEAR : cv::INTER_AREA);
  return scratch;
}

cv::Mat DetectionPlan::baseMask(const cv::Mat& frameMask) const {
  if (baseLevel_ == 0 || frameMask.empty()) return frameMask;
  cv::Mat out;
  cv::resize(frameMask, out, baseSize_, 0, 0, cv::INTER_NEAREST);
  return out;
}

cv::Rect DetectionPlan::toBase(const cv::Rect& rect) const {
  if (baseLevel_ == 0) return rect;
  const double sx = static_cast<double>(baseSize_.width) / frameSize_.width;
  const double sy = static_cast<double>(baseSize_.height) / frameSize_.height;
  const int x0 = static_cast<int>(std::floor(rect.x * sx)), y0 = static_cast<int>(std::floor(rect.y * sy));
  const int x1 = static_cast<int>(std::ceil((rect.x + rect.width) * sx));
  const int y1 = static_cast<int>(std::ceil((rect.y + rect.height) * sy));
  return {x0, y0, x1 - x0, y1 - y0};
}

void DetectionPlan::toFrame(std::vector<detection::Keypoint>& keypoints) const {
  if (baseLevel_ == 0) return;
  const double rx = static_cast<double>(frameSize_.width) / baseSize_.width;
  const double ry = static_cast<double>(frameSize_.height) / baseSize_.height;
  for (detection::Keypoint& k : keypoints) {
    k.x = static_cast<float>((static_cast<double>(k.x) + 0.5) * rx - 0.5);
    k.y = static_cast<float>((static_cast<double>(k.y) + 0.5) * ry - 0.5);
    k.scale = static_cast<float>(k.scale * rx);
  }
}

std::vector<size_t> DetectionPlan::passEnds(size_t count) const {
  std::vector<size_t> ends;
  if (count == 0) return ends;
  size_t end = static_cast<size_t>(std::ceil(firstPassFraction_ * detector_.maxKeypoints));
  if (onePass_ || end < minPass_) end = count;
  for (; end < count; end *= 2) ends.push_back(end);
  ends.push_back(count);
  return ends;
}

}  // namespace nft::tracker
