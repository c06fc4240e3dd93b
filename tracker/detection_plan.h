#pragma once
// DetectionPlan: how much the detection lanes (DetectionLane, MultiTargetDetector) describe of a
// frame, following the smallest target to find (../shared/DESIGN.md, "Camera sizes";
// DetectionLaneOptions::minFrameFraction, s: the side of the smallest target as a fraction of the
// frame's, both as the side of a square of their area). A default tuned on 640×480 clips, where a
// target fills much of the frame, must still find a target that covers a small part of the frame
// (a poster across a street, a sign in a phone's HD frame: the Session runs the lanes on the
// frame downscaled to its working size, session/working_frame.h, so the share is what counts):
//
// 1. The keypoint budget. With detector.maxKeypoints 0 (auto), kSmallestTargetKeypoints / s²
//    keypoints (2000 at s = 0.2), within [kMinAutoKeypoints, kMaxAutoKeypoints]: spread evenly
//    over a cluttered frame, about kSmallestTargetKeypoints land on a target of side s, enough
//    for the ratio test and RANSAC's inlier floor. Measured on small targets cut from real HD
//    photographs (plasma-workspace-wallpapers' Path, EveningGlow and OneStandsOut, 4.6 % of the
//    frame, textured crops, the frame itself with sensor noise; 24 per size): found with 1000
//    keypoints in 18-19 of 24, 1500 19-23, 2000 21-22, 3000 21-24.
// 2. The passes. The keypoints, strongest first, are described, matched and verified in passes
//    of growing size: the strongest firstPassFraction of the budget first, then twice as many,
//    and so on up to all, the next pass only when the ones before found no target (each query's
//    nearest neighbours do not depend on the other queries, so the passes' matches together are
//    those of one pass over all). A large target is found in the first pass, at the cost of a
//    quarter of the budget; only a small one (or none) costs the whole budget.
#include <cstddef>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/fast_detector.h"

namespace nft::tracker {

struct DetectionLaneOptions;

/// Keypoints wanted on the smallest target in the auto budget (kSmallestTargetKeypoints / s²).
inline constexpr double kSmallestTargetKeypoints = 80.0;
/// The auto budget's bounds (s near 1, s near 0).
inline constexpr int kMinAutoKeypoints = 300;
inline constexpr int kMaxAutoKeypoints = 8000;

/// The keypoint budget and the passes of one frame size's detection (see the top of this file).
/// Immutable, copyable.
class DetectionPlan {
 public:
  /// @param frameSize the frames' size, pixels (> 0).
  /// @param options   minFrameFraction, detector (maxKeypoints 0 = auto), firstPassFraction,
  ///                  minInliers, matching.crossCheck and targetKeypointFactor are read.
  /// @param targetKeypoints the target model's own keypoints (targetKeypointFactor > 0 caps the
  ///                  budget at that many times them, at least 200); 0 = no target cap.
  /// @throws std::invalid_argument for a non-positive frame size or minFrameFraction outside
  ///   (0, 1] (named); FastDetector's for detector options out of range.
  DetectionPlan(cv::Size frameSize, const DetectionLaneOptions& options, size_t targetKeypoints = 0);

  /// The frames' size.
  cv::Size frameSize() const { return frameSize_; }
  /// The detector: maxKeypoints resolved (the budget), the rest as given.
  const detection::FastDetectorOptions& detector() const { return detector_; }
  /// The budget: keypoints a frame's detection keeps at most (detector().maxKeypoints).
  int maxKeypoints() const { return detector_.maxKeypoints; }

  /// The passes over `count` keypoints (strongest first): the end of each, ascending, the last
  /// `count`. The first ends at ceil(firstPassFraction · maxKeypoints()), each next one at twice
  /// the one before; a single pass when the first would hold under 4 × minInliers keypoints or
  /// with matching.crossCheck (whose reverse search needs every query at once). Empty for 0.
  std::vector<size_t> passEnds(size_t count) const;

 private:
  cv::Size frameSize_;
  detection::FastDetectorOptions detector_;
  double firstPassFraction_ = 1;
  size_t minPass_ = 0;
  bool onePass_ = false;
};

}  // namespace nft::tracker
