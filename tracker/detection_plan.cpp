// DetectionPlan: the keypoint budget and the passes of a frame size (see detection_plan.h).
#include "tracker/detection_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tracker/detection_lane.h"

namespace nft::tracker {
namespace {

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
    throw std::invalid_argument("DetectionPlan: frame size " + std::to_string(frameSize.width) + "x" +
                                std::to_string(frameSize.height) + " is not positive");
  const double s = o.minFrameFraction;
  if (!(s > 0 && s <= 1))
    throw std::invalid_argument("DetectionLaneOptions::minFrameFraction must be in (0, 1], got " + std::to_string(s));
  if (detector_.maxKeypoints == 0) detector_.maxKeypoints = autoKeypoints(s);
  if (o.targetKeypointFactor > 0 && targetKeypoints > 0) {
    const double wanted = std::max(200.0, std::ceil(o.targetKeypointFactor * static_cast<double>(targetKeypoints)));
    if (wanted < detector_.maxKeypoints) detector_.maxKeypoints = static_cast<int>(wanted);
  }
  (void)detection::FastDetector(detector_);  // validates the detector options, naming the bad one
  firstPassFraction_ = o.firstPassFraction;
  minPass_ = 4 * static_cast<size_t>(std::max(0, o.minInliers));
  onePass_ = o.matching.crossCheck;
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
