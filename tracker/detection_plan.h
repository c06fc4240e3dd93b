#pragma once
// DetectionPlan: how the detection lanes (DetectionLane, MultiTargetDetector) search a frame of a
// given size for targets down to a given size (../shared/DESIGN.md, "Camera sizes"). A default
// tuned on 640×480 clips, where a target fills much of the frame, must still find a target that
// covers a small part of a 1280×720 or 1920×1080 phone frame; three things follow the frame's
// size and the smallest target to find (DetectionLaneOptions::minFrameFraction, s: the side of
// the smallest target as a fraction of the frame's, both as the side of a square of their area):
//
// 1. The base level. FAST and the descriptors run on the frame downscaled by f^L (f =
//    detector.scaleFactor), L the coarsest pyramid level whose shorter side is still at least
//    kMinBaseShortSidePx and on which the smallest target's side is still at least
//    kMinBaseTargetSidePx: 640×480 and 800×600 at full resolution, 1280×720 at 1/√2 (905×509),
//    1920×1080 at 1/2 (960×540), with the default s = 0.2. A target that large in an HD frame
//    holds detail the model's keypoints (trained at target.working_size, 640 px) do not have,
//    and FAST over the full HD frame took 2.5 × (720p) and 5 × (1080p) the 640×480 time; the
//    detector's `levels` then start from the base level, and its cell size is in base-level
//    pixels. Keypoints come back in frame pixels.
// 2. The keypoint budget. With detector.maxKeypoints 0 (auto), kSmallestTargetKeypoints / s²
//    keypoints (2000 at s = 0.2), at most kMaxAutoKeypoints: spread evenly over a cluttered
//    frame, about that many land on a target of side s, enough for the ratio test and RANSAC's
//    inlier floor (measured: see the .cpp).
// 3. The passes. The keypoints, strongest first, are described, matched and verified in passes
//    of growing size: the strongest firstPassFraction of the budget first, then twice as many,
//    and so on up to all, the next pass only when the ones before found no target (each query's
//    nearest neighbours do not depend on the other queries, so the passes' matches together are
//    those of one pass over all). A large target is found in the first pass, at the cost of a
//    quarter of the budget; only a small one (or none) costs the whole budget.
#include <cstddef>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/fast_detector.h"
#include "detection/keypoint.h"

namespace nft::tracker {

struct DetectionLaneOptions;

/// Keypoints wanted on the smallest target in the auto budget (kSmallestTargetKeypoints / s²).
inline constexpr double kSmallestTargetKeypoints = 80.0;
/// The auto budget's bounds (s near 1, s near 0).
inline constexpr int kMinAutoKeypoints = 300;
inline constexpr int kMaxAutoKeypoints = 8000;
/// The base level is never so coarse that its shorter side is under this (pixels) ...
inline constexpr double kMinBaseShortSidePx = 480.0;
/// ... or that the smallest target's side on it is under this (pixels; training covers targets
/// down to target.min_size_px, 100 px by default).
inline constexpr double kMinBaseTargetSidePx = 128.0;

/// The plan of one frame size's detection (see the top of this file). Immutable, copyable.
class DetectionPlan {
 public:
  /// @param frameSize the camera frames' size, pixels (> 0).
  /// @param options   minFrameFraction, detector (maxKeypoints 0 = auto), firstPassFraction,
  ///                  minInliers, matching.crossCheck and targetKeypointFactor are read.
  /// @param targetKeypoints the target model's own keypoints (targetKeypointFactor > 0 caps the
  ///                  budget at that many times them, at least 200); 0 = no target cap.
  /// @throws std::invalid_argument for a non-positive frame size or minFrameFraction outside
  ///   (0, 1] (named); FastDetector's for detector options out of range.
  DetectionPlan(cv::Size frameSize, const DetectionLaneOptions& options, size_t targetKeypoints = 0);

  /// The camera frames' size.
  cv::Size frameSize() const { return frameSize_; }
  /// The pyramid level FAST and the descriptors run on (0 = the frame itself).
  int baseLevel() const { return baseLevel_; }
  /// Its size: round(frameSize / f^baseLevel()).
  cv::Size baseSize() const { return baseSize_; }
  /// Frame pixels per base-level pixel (frameSize().width / baseSize().width; 1 at level 0).
  double frameScale() const { return static_cast<double>(frameSize_.width) / baseSize_.width; }
  /// `options` for verifying a base-level detection in frame pixels (verifyDetection): the
  /// RANSAC inlier threshold scaled by frameScale(), since the keypoints' positions are as
  /// exact as the base level's pixels (1920×1080 frames: 16 of 24 small targets cut from them
  /// found with 4 px, 23 with 8 px, the same as on the frame downscaled to the base level).
  DetectionLaneOptions verifyOptions(const DetectionLaneOptions& options) const;
  /// The detector for base-level images: maxKeypoints resolved (the budget), the rest as given.
  const detection::FastDetectorOptions& detector() const { return detector_; }
  /// The budget: keypoints a frame's detection keeps at most (detector().maxKeypoints).
  int maxKeypoints() const { return detector_.maxKeypoints; }

  /// The base-level image of `frame` (frameSize(), CV_8UC1 or CV_8UC3): `frame` itself at level 0,
  /// else cv::resize into `scratch` (INTER_LINEAR up to a factor 2, whose taps still read every
  /// pixel; INTER_AREA beyond), which is returned.
  const cv::Mat& baseImage(const cv::Mat& frame, cv::Mat& scratch) const;
  /// A mask (or any CV_8UC1 image) of frameSize() at the base level (INTER_NEAREST).
  cv::Mat baseMask(const cv::Mat& frameMask) const;
  /// `rect` in frame pixels → the base-level pixels it covers (rounded outwards, not clipped).
  cv::Rect toBase(const cv::Rect& rect) const;
  /// Base-level keypoints → frame pixels, in place: positions by cv::resize's pixel-centre
  /// mapping ((u + 0.5)·W/w − 0.5), SURF scales by W/w. Nothing at level 0.
  void toFrame(std::vector<detection::Keypoint>& keypoints) const;

  /// The passes over `count` keypoints (strongest first): the end of each, ascending, the last
  /// `count`. The first ends at ceil(firstPassFraction · maxKeypoints()), each next one at twice
  /// the one before; a single pass when the first would hold under 4 × minInliers keypoints or
  /// with matching.crossCheck (whose reverse search needs every query at once). Empty for 0.
  std::vector<size_t> passEnds(size_t count) const;

 private:
  cv::Size frameSize_, baseSize_;
  int baseLevel_ = 0;
  detection::FastDetectorOptions detector_;
  double firstPassFraction_ = 1;
  size_t minPass_ = 0;
  bool onePass_ = false;
};

}  // namespace nft::tracker
