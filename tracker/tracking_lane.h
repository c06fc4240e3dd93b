#pragma once
// TrackingLane: the tracker's tracking lane (Wagner, Reitmayr, Mulloni, Drummond, Schmalstieg,
// "Real-Time Detection and Tracking for Augmented Reality on Mobile Phones", IEEE TVCG 16(3),
// 2010, section 5): follows a target whose homography in the previous frames is known.
//
// One track() call, given a predicted homography (the motion model's, tracker/motion_model.h):
// 1. pyramid: the frame's half-resolution level (cv::pyrDown).
// 2. coarse:  each of the model's tracking patches (detection::TrackingPatch) that the prediction
//             puts inside the frame is warped from the target image into a patchSize × patchSize
//             template on the half-resolution grid (tracker/ncc_patch.h) and searched by NCC
//             within ±coarseRadiusPx half-resolution pixels; matches scoring at least minNcc give
//             a first homography (cv::findHomography, RANSAC at twice the threshold). A coarse
//             stage with too few matches leaves the prediction as it is.
// 3. fine:    the same at full resolution, templates warped with the coarse homography, within
//             ±fineRadiusPx, sub-pixel peaks.
// 4. update:  homography from the fine matches by RANSAC (OpenCV refines it on the inliers with
//             Levenberg-Marquardt); rejected with fewer than minInliers inliers (or than
//             minInlierFraction of the patches searched), an implausible
//             quad (tracker/quad_check.h) or corners more than maxCornerJumpPx from the
//             prediction's; pose by planar PnP on the inliers (tracker/pose.h).
//
// Templates are always warped from the target image, never from earlier frames, so errors do
// not accumulate (no drift beyond the noise of one frame's fit).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/target_model.h"
#include "tracker/camera_calibration.h"
#include "tracker/pose.h"
#include "tracker/quad_check.h"

namespace nft::tracker {

/// Settings of TrackingLane. Measurements of each on tmt_bookI: tracker/tracker.h.
struct TrackingLaneOptions {
  /// Side of the square patch templates, pixels of the level searched; even, in [4, 32].
  /// Wagner et al. use 8 × 8.
  int patchSize = 8;
  /// Most patches searched per frame (the model's strongest visible ones), in [4, 1000].
  int maxPatches = 100;
  /// Search radius at half resolution, half-resolution pixels, in [1, 32]: covers motion of
  /// twice that many frame pixels away from the prediction.
  int coarseRadiusPx = 4;
  /// Search radius at full resolution, pixels, in [1, 16] and <= 2·coarseRadiusPx.
  int fineRadiusPx = 2;
  /// Matches with a lower NCC are dropped, in [−1, 1].
  double minNcc = 0.7;
  /// Fewest RANSAC inliers accepted, >= 4.
  int minInliers = 10;
  /// Fewest RANSAC inliers as a fraction of the patches searched at full resolution, in [0, 1].
  /// With a small search radius, chance NCC peaks near a wrong prediction all lie within the
  /// RANSAC threshold of it, so the inlier count alone cannot tell a false lock; the fraction
  /// can: on tmt_bookI's 531 frames a true lock keeps 69–100 % (mean 94 %), a prediction 40 px
  /// off the synthetic target's true place locks falsely with 16 of ~100.
  double minInlierFraction = 0.4;
  /// RANSAC inlier threshold of the fine stage, full-resolution pixels, > 0 (the coarse stage
  /// uses twice it).
  double ransacThresholdPx = 3.0;
  /// A result whose target corners lie more than this from the predicted corners (the largest
  /// of the 4 distances, pixels, > 0) is rejected as a jump.
  double maxCornerJumpPx = 100.0;
  /// Plausibility limits of the tracked quad.
  QuadLimits quad;
  /// Refine the IPPE pose on the inlier patches by Levenberg-Marquardt (tracker/pose.h).
  bool refinePose = true;
};

/// Per-stage wall-clock times of one track() call, milliseconds (steady_clock); 0 when a stage
/// did not run.
struct TrackingTimings {
  double pyramid = 0, coarse = 0, fine = 0, pose = 0;
  double total() const { return pyramid + coarse + fine + pose; }
};

/// A target followed into the current frame.
struct TrackedTarget {
  /// Homography from target pixels (TargetModel::image) to frame pixels, H(2,2) = 1.
  cv::Matx33d homography;
  /// Camera pose of the target fitted to the inlier patches (metres when the model's width is known).
  Pose pose;
  /// Patches searched at full resolution, found there (NCC ≥ minNcc), and the RANSAC inliers
  /// among them.
  int searched = 0;
  int matches = 0;
  int inliers = 0;
  /// The target image's corners (0,0), (w,0), (w,h), (0,h) in frame pixels (UL, UR, LR, LL).
  std::vector<cv::Point2f> corners;
  /// Mean reprojection error of the inliers under `pose`, pixels.
  double reprojectionErrorPx = 0;
  /// Inlier patches: target pixels and where they were found in the frame (for overlays).
  std::vector<cv::Point2f> inlierTargetPoints, inlierFramePoints;
  TrackingTimings timings;
};

/// The tracking lane for one target and one frame size. CPU only (no GL). Move-only, not
/// thread-safe (it keeps scratch buffers).
class TrackingLane {
 public:
  /// Builds the target pyramid and the patch list.
  /// @throws std::invalid_argument for an option out of range (named), a model without an
  ///   image or without tracking patches, or a non-positive calibration.imageSize.
  TrackingLane(const detection::TargetModel& model, const CameraCalibration& calibration,
               const TrackingLaneOptions& options = {});
  ~TrackingLane();
  TrackingLane(TrackingLane&&) noexcept;
  TrackingLane& operator=(TrackingLane&&) noexcept;

  /// Follows the target into `gray` from the homography `predicted` (target pixels → frame
  /// pixels).
  /// @param gray CV_8UC1, exactly frameSize().
  /// @return the tracked target, or std::nullopt when it is lost (lastRejection() says why).
  /// @throws std::invalid_argument for an empty frame, a type other than CV_8UC1 or a size other
  ///   than frameSize() (the message names both sizes), or a non-finite prediction.
  std::optional<TrackedTarget> track(const cv::Mat& gray, const cv::Matx33d& predicted);

  cv::Size frameSize() const;
  const TrackingLaneOptions& options() const;
  const TrackingTimings& lastTimings() const;
  /// Why the last track() returned nullopt ("" after a success), e.g. "too few inliers: 3 < 10".
  const std::string& lastRejection() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::tracker
