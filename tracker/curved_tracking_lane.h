#pragma once
// CurvedTrackingLane: the tracking lane for a label on a cylinder or a cone (issue 47, item 4),
// the NCC patch tracker of Wagner, Reitmayr, Mulloni, Drummond and Schmalstieg ("Real-Time
// Detection and Tracking for Augmented Reality on Mobile Phones", IEEE TVCG 16(3), 2010, section
// 5) on the label's surface (detection/label_surface.h) instead of a plane, with PTAM's coarse
// stage for fast motion (Klein and Murray, ISMAR 2007, section 5.3) as in tracker/tracking_lane.h.
//
// One track() call, from a predicted pose (CurvedTrackingPrior):
// 1. visible patches: the model's tracking patches (label pixels, interleavedPatches()) whose
//    surface point faces the camera under the pose (at most kMaxPatchTiltDeg off its normal) and
//    whose template window the pose puts in the frame, spread over the part in view (spreadOrder()).
// 2. templates: each patch warped from the label image by the homography of the surface's tangent
//    plane at its point under the pose (label pixels → frame pixels: K·[R·∂X/∂u, R·∂X/∂v,
//    R·X(u0, v0) − … + t], exact at the patch's centre and to first order around it; a patch spans
//    a few millimetres of a can whose radius is centimetres), blurred along its point's motion ×
//    the exposure when the pose one frame before is known (as the planar lane's step 5).
// 3. stages: the search range as the planar lane's step 2 (the larger of 2·coarseRadiusPx, the
//    prior's searchRangePx and searchSpeedFactor × the fastest patch's predicted motion, at most
//    maxSearchPx unless the prior asks more): at half resolution within coarseRadiusPx, or from
//    the coarsest level L that covers it within kMaxCoarseRadius (coarsePatches patches), then each
//    level below at kRefineRadius; at each, the matches (NCC >= minNcc) update the pose by
//    Levenberg-Marquardt from the pose so far, on all of them, then on those within 3 and
//    1 × 2^L × 2·ransacThresholdPx; when fewer than half of them fit, by RANSAC over AP3P samples
//    from scratch, refined on its inliers; too few leave the pose as it is. A stage's fit that
//    turns the pose more than 15° (a few blurred coarse matches constrain a label's rotation
//    weakly) is replaced by the pose moved by the matches' median image shift, its rotation kept:
//    the last stage fits the rotation. Every
//    Levenberg-Marquardt here and in step 4 is refinePose (tracker/pose.h: the least squares of
//    cv::solvePnPRefineLM at a tenth of its time; a curved target's frame cost 1.25–1.72× a flat
//    one's at 640 × 480 with OpenCV's, 0.72–1.16× with it), each match weighted across and along
//    its template's blur streak as the planar lane's blurred update weighs them.
// 4. last: full resolution within fineRadiusPx (half resolution when the facing patches' mean
//    predicted streak is at least kHalfResolutionStreakPx, as the planar lane's step 4: the can's
//    motion_blur preset 96.7 -> 98.0 % within 5 px at 640 × 480, 85.3 -> 88.3 % at 1280 × 720,
//    measured with the final refinement's pose fed back), sub-pixel peaks, the pose by
//    RANSAC over AP3P samples from scratch (at most 100 hypotheses: the matches are mostly right,
//    it stops after a few) and Levenberg-Marquardt on its inliers within ransacThresholdPx (× 2 at
//    half resolution). From scratch because a pose that is wrong but close (the label slid where
//    it turned, a tilt traded for a shift) fits many patches from where it is: from the prediction
//    the last fit kept 93.7 % / 95.4 % of the unconstrained / turn can's frames within 5 px, from
//    scratch 96.7 % / 99.1 %, for 0.1 ms more;
//    USAC on every stage kept as many at twice a planar target's time. Rejected as the planar lane
//    rejects (fewer than minInliers inliers, fewer than minInlierFraction of the patches searched
//    unless the occlusion rule of kOccludedInlierFraction holds), and for a pose that turns an
//    inlier away from the camera or puts it behind it.
// The result's homography is the tangent plane's along the label's middle column (as a curved
// detection's, tracker/curved_detection.h), its corners the label's corners projected. The Session
// then refines the pose it reports on the full-resolution frame by dense alignment on the surface
// (tracker/curved_refiner.h); the lane goes on from its own.
//
// Templates are always warped from the label image, never from earlier frames: no drift.

#include <memory>
#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "detection/target_model.h"
#include "tracker/camera_calibration.h"
#include "tracker/frame_pyramid.h"
#include "tracker/pose.h"
#include "tracker/tracking_lane.h"

namespace nft::tracker {

/// A patch whose surface point is seen further than this off its normal is not searched: its
/// template, foreshortened to a sliver, correlates with little of it.
constexpr double kMaxPatchTiltDeg = 70.0;

/// What CurvedTrackingLane::track() starts from.
struct CurvedTrackingPrior {
  /// The predicted pose in the frame to track (X_camera = R·X + t, the target frame of
  /// detection/label_surface.h, metres).
  Pose predicted;
  /// The pose one frame before the predicted one: each patch's motion between the two sets the
  /// search range and the blur. std::nullopt: none known.
  std::optional<Pose> reference;
  /// Search at least this far from the prediction, frame pixels, in [0, 256].
  double searchRangePx = 0;
  /// Fraction of the frame interval the shutter is open, in [0, 1] (TrackingLaneOptions::blurExposure).
  double blurExposure = 0.5;
};

/// The tracking lane of a curved target for one frame size. CPU only. Move-only, not thread-safe.
class CurvedTrackingLane {
 public:
  /// @throws std::invalid_argument for an option out of range (named), a model that is not curved,
  ///   has no CV_8UC1 image or no tracking patches, or a non-positive calibration.imageSize.
  CurvedTrackingLane(const detection::TargetModel& model, const CameraCalibration& calibration,
                     const TrackingLaneOptions& options = {});
  ~CurvedTrackingLane();
  CurvedTrackingLane(CurvedTrackingLane&&) noexcept;
  CurvedTrackingLane& operator=(CurvedTrackingLane&&) noexcept;

  /// Follows the label into the frame whose pyramid is `frame` (the levels the search needs are
  /// added to it) from `prior`.
  /// @return the tracked target (homography, pose, corners, the inlier patches' label and frame
  ///   points, searched / matches / inliers, mean inlier NCC), or std::nullopt when it is lost
  ///   (lastRejection() says why, e.g. "too few inliers: 6 < 10").
  /// @throws std::invalid_argument for an empty pyramid, a level 0 of another size than the
  ///   calibration's or not CV_8UC1, a non-finite prior, a search range outside [0, 256] or an
  ///   exposure outside [0, 1].
  std::optional<TrackedTarget> track(FramePyramid& frame, const CurvedTrackingPrior& prior);

  const TrackingLaneOptions& options() const;
  const TrackingTimings& lastTimings() const;
  const std::string& lastRejection() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::tracker
