#pragma once
// The working frame: the resolution the Session's lanes run at (../shared/DESIGN.md, "Camera
// sizes"). A phone streams 1280×720 or 1920×1080; the detection and tracking lanes were tuned on
// 640×480 and 800×600 clips, and the same hand motion is 2-3 times as many pixels in an HD frame
// (the POT presets at 1280×720, a target covering 1/16 of the frame: motion_blur 32.5 % within 5 px
// at full resolution against 97.5 % for the same target share at 640×480). So a large frame is
// downscaled by an integer factor k (cv::INTER_AREA: each working pixel the mean of k × k frame
// pixels) to about 640 px on its longer side, and the lanes see that; the results come back in
// frame pixels, and the homography is then refined at full resolution.
//
// k is the largest integer keeping the working frame's longer side at least kMinWorkingSidePx and
// the smallest target to find (target.min_frame_fraction s: the side of a square of its area, as
// a fraction of the side of a square of the frame's) at least kMinWorkingTargetPx a side:
//   k = max(1, min(floor(longer side / 640), floor(s · sqrt(W · H) / 96))).
// With s = 0.2: 640×480, 800×600 and 480×852 at full resolution; 1280×720 at 640×360 (k = 2);
// 1920×1080 at 640×360 (k = 3); a smaller s keeps more resolution (s = 0.1: 1920×1080 at k = 1).
//
// Coordinates: working pixel centre (u, v) is frame pixel ((u + 0.5)·rx − 0.5, (v + 0.5)·ry − 0.5),
// rx = W / w and ry = H / h (cv::resize's mapping; rx = ry = k when k divides the size).
//
// The detection frame. The detection lane of a single target searches a finer frame than the
// tracking lane follows it in: the frame downscaled by d <= k, the largest integer keeping the
// smallest target at least kMinDetectionTargetPx a side there,
//   d = max(1, min(k, floor(s · sqrt(W · H) / 192))),
// and its detections come back in working pixels (tracker::DetectionLaneOptions::fineFrameSize).
// A small target loses at k what its descriptors need: a 300 × 140 px sign in 1280 × 720 (s = 0.21)
// is 150 × 70 in the 640 × 360 working frame, where the 60 px SURF window of a level-0 keypoint
// spans most of its height; crops of that size cut from real HD photographs (the
// plasma-workspace-wallpapers of tests/session/first_frame_test.cpp) are found on the frame they
// were cut from in 35 of 42 at k = 2 (right matches 10-40 among 400-500) and 42 of 42 at full
// resolution (about 300 right), the tracking lane keeping k (at full resolution it loses the HD
// motion_blur preset: 98.7 -> 73.0 % within 5 px). With s = 0.2: 1280 × 720 and 1920 × 1080
// searched at full resolution (d = 1), 3840 × 2160 at 1280 × 720 (d = 3); frames the lanes run on
// at full resolution (k = 1) are searched there too.

#include <opencv2/core.hpp>

#include "nft/types.h"

namespace nft::session {

/// The working frame's longer side is kept at least this (pixels).
inline constexpr double kMinWorkingSidePx = 640.0;
/// The smallest target's side in the working frame is kept at least this (pixels).
inline constexpr double kMinWorkingTargetPx = 96.0;
/// The smallest target's side in the detection frame is kept at least this (pixels).
inline constexpr double kMinDetectionTargetPx = 192.0;

/// One frame size's working frame (see the top of this file). Immutable, copyable.
class WorkingFrame {
 public:
  /// @param frameSize        the camera frames' size, pixels (> 0).
  /// @param minFrameFraction target.min_frame_fraction, in (0, 1].
  /// @throws std::invalid_argument for a size that is not positive or a fraction outside (0, 1].
  WorkingFrame(cv::Size frameSize, double minFrameFraction);

  /// k: 1 = the lanes run on the frame itself.
  int factor() const { return factor_; }
  cv::Size frameSize() const { return frameSize_; }
  /// round(frameSize / k).
  cv::Size workingSize() const { return workingSize_; }
  /// d: the detection frame's factor (see the top of this file), in [1, k].
  int detectionFactor() const { return detectionFactor_; }
  /// round(frameSize / d).
  cv::Size detectionSize() const { return detectionSize_; }
  /// True when the detection frame is finer than the working frame (d < k).
  bool finerDetection() const { return detectionFactor_ < factor_; }

  /// The working image of `frame` (frameSize(), CV_8UC1 or CV_8UC3): `frame` itself at k = 1,
  /// else cv::resize with INTER_AREA into `scratch`, which is returned.
  const cv::Mat& toWorking(const cv::Mat& frame, cv::Mat& scratch) const;
  /// The detection image of `frame` (as toWorking): `frame` itself at d = 1, else cv::resize with
  /// INTER_AREA into `scratch`, which is returned.
  const cv::Mat& toDetection(const cv::Mat& frame, cv::Mat& scratch) const;
  /// The 3 × 3 map of working pixels to frame pixels (the mapping at the top of this file).
  cv::Matx33d workingToFrame() const { return toFrame_; }
  /// A homography into working pixels as one into frame pixels (workingToFrame() · H, H(2,2) = 1),
  /// and back.
  cv::Matx33d toFrame(const cv::Matx33d& workingH) const;
  cv::Matx33d toWorking(const cv::Matx33d& frameH) const;
  /// A result of the lanes, in working pixels, in frame pixels: its homography, corners and
  /// inlier frame points mapped, its reprojection error scaled by k. The pose is the same (the
  /// lanes use the calibration scaled to the working frame). Nothing at k = 1.
  void toFrame(TargetResult& result) const;

 private:
  cv::Size frameSize_, workingSize_, detectionSize_;
  int factor_ = 1;
  int detectionFactor_ = 1;
  cv::Matx33d toFrame_ = cv::Matx33d::eye();
};

}  // namespace nft::session
