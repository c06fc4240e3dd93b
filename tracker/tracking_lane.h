#pragma once
// TrackingLane: the tracker's tracking lane (Wagner, Reitmayr, Mulloni, Drummond, Schmalstieg,
// "Real-Time Detection and Tracking for Augmented Reality on Mobile Phones", IEEE TVCG 16(3),
// 2010, section 5), with the coarse-to-fine search of Klein and Murray's PTAM ("Parallel
// Tracking and Mapping for Small AR Workspaces", ISMAR 2007, section 5.3: a coarse stage at the
// pyramid's top levels over a wide radius, then the fine stage) for fast motion: follows a
// target whose homography in the previous frames is known.
//
// One track() call, given a prior (TrackingPrior: the predicted homography of the motion model,
// tracker/motion_model.h, and the one of the frame before, which gives the predicted motion):
// 1. pyramid:  the frame's levels (tracker/frame_pyramid.h), built once per frame by the caller
//              or here; the coarser levels are added when a search needs them.
// 2. range:    how far from the prediction to search, frame pixels: 2·coarseRadiusPx, or
//              searchSpeedFactor × the predicted speed (the largest corner displacement over one
//              frame: a constant-velocity prediction misses by about the acceleration, which grows
//              with the speed), or the prior's searchRangePx (the tracker's: 1.5 × the motion
//              model's last miss + 4 px, or a retry's), whichever is largest, at most maxSearchPx
//              (a retry may ask more, up to 256). Up to 2·coarseRadiusPx the search starts at half
//              resolution with radius coarseRadiusPx (Wagner et al.); beyond, at the coarsest
//              level L (quarter or eighth resolution) where the range needs at most
//              kMaxCoarseRadius level pixels, with coarsePatches patches, then every level below L
//              at radius kRefineRadius.
// 3. coarse:   at each level above the last, each of the model's tracking patches
//              (detection::TrackingPatch) whose template window the estimate puts in the frame,
//              up to the stage's budget taken spread over the part of the target in view (a grid
//              over their box, its cells visited in turn: the strongest patches cluster where the
//              print has most contrast; on korean_book, a cover filling the frame, 17.5 / 53.2 %
//              of frames within 5 / 10 px became 31.9 / 71.5 % with the trainer's spread patches),
//              is warped from the target image into a patchSize × patchSize template
//              (tracker/ncc_patch.h) and searched by NCC, the search window clipped to the frame
//              (a target partly out of view keeps the patches still inside); matches scoring at
//              least minNcc correct the estimate (RANSAC at 2^L × ransacThresholdPx) when
//              enough of them agree, with a model of fewer parameters the coarser the level
//              (Bergen, Anandan, Hanna, Hingorani, "Hierarchical Model-Based Motion
//              Estimation", ECCV 1992): a similarity at the quarter and eighth levels, an affine
//              map at half resolution (in a blurred frame the blur-aware affine fit of step 6),
//              the estimate's perspective kept until the last stage; at the quarter and eighth
//              levels else their median shift; too few leave the estimate as it is.
// 4. last:     the same within ±fineRadiusPx, sub-pixel peaks, at full resolution, or at half
//              resolution when the predicted blur streak is long (kHalfResolutionStreakPx). After
//              a search beyond the standard range it runs a second time when its fit moved the
//              corners further than its radius (PTAM iterates its fine stage likewise).
// 5. blur:     with a motion reference and an exposure (TrackingPrior::blurExposure, else
//              blurExposure) every template is blurred along the streak its point draws during
//              the exposure, the exposure × its motion over one frame (the blur model of Klein
//              and Murray, "Improving the Agility of Keyframe-Based SLAM", ECCV 2008), so that
//              motion-blurred frames still correlate with the templates. The motion is the
//              frame's own (TrackingPrior::referenceBefore): the mean motion since the last
//              frame lags it by half a frame, and a shaking hand accelerates most where it
//              moves least (motion_blur, seeds 1–6 and 8: 99.73 -> 99.96 % within 5 px,
//              99.24 -> 99.70 % with the detection one frame late). On request the lane
//              also measures which exposure explains the frame best (measuredExposure), which
//              the tracker learns from.
// 6. update:   homography from the last stage's matches by RANSAC (OpenCV refines it on the
//              inliers with Levenberg-Marquardt); in a blurred frame (mean streak at least
//              kBlurFitStreakPx) an affine correction and then the homography fitted with each
//              match weighted less along its streak than across (tracker/blur_aware_fit.h).
//              Rejected with fewer than minInliers inliers, or than minInlierFraction of the
//              patches searched (unless the occlusion rule of kOccludedInlierFraction holds),
//              inliers spread over less than minInlierSpread of the target's area (a few patches
//              in one corner cannot place the rest of a target mostly out of view), an implausible
//              quad (tracker/quad_check.h) or corners further from the prediction's than
//              maxCornerJumpPx (or, after a search beyond the standard range, than that range plus
//              20 px, if larger); pose by planar PnP on the inliers, or of the homography when it
//              is not to be refined (refinePose; tracker/pose.h).
//
// With no motion reference and no searchRangePx (track(gray, predicted)), steps 2–6 reduce to
// the lane of Wagner et al.: half then full resolution, no blur (with the clipped search, the
// spread check and the occlusion rule).
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
#include "tracker/frame_pyramid.h"
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
  /// true: the pose by IPPE on the inlier patches, refined by Levenberg-Marquardt on them
  /// (tracker/pose.h, estimatePose). false: the unrefined pose of the fitted homography (IPPE on a
  /// 3 × 3 grid of it, poseFromHomography), its reprojection error measured on the inliers.
  bool refinePose = true;
  /// Largest search range, frame pixels, in [2·coarseRadiusPx, 256]: how far from the prediction
  /// the lane looks when the target moves fast (step 2 of the top of this file). 64 = ±8 pixels
  /// at eighth resolution.
  int maxSearchPx = 64;
  /// Search range as a fraction of the predicted speed (frame pixels per frame), >= 0 (0: the
  /// range never grows with the speed).
  double searchSpeedFactor = 0.5;
  /// Most patches searched at quarter and eighth resolution, in [4, 1000] (each costs
  /// (2·radius + 1)² correlations there).
  int coarsePatches = 40;
  /// Fraction of the frame interval the shutter is open, in [0, 1]: templates are blurred along
  /// blurExposure × their motion over one frame (TrackingPrior::blurExposure overrides it; the
  /// tracker starts from it and learns the camera's from the frames). 0: no blur, nothing learnt.
  double blurExposure = 0.5;
  /// Search range of the retries after a loss (TrackerOptions::retrackLostFrames), frame
  /// pixels, in [maxSearchPx, 256]: the target may have moved far while it was lost.
  int recoverySearchPx = 160;
  /// Fewest inlier spread accepted: the area of the inliers' convex hull in the target as a
  /// fraction of the target's area, in [0, 1].
  double minInlierSpread = 0.02;
};

/// Checks every field of `options` against its range above.
/// @throws std::invalid_argument "TrackingLaneOptions::<field> must be ..., got <value>".
void validateTrackingLaneOptions(const TrackingLaneOptions& options);

/// Largest search radius of the first (coarsest) level, level pixels.
constexpr int kMaxCoarseRadius = 8;
/// Search radius of the levels between the coarsest and full resolution, level pixels.
constexpr int kRefineRadius = 3;
/// Mean predicted blur streak of the target's corners (frame pixels) from which the last stage
/// is half resolution instead of full: an 8 × 8 template there spans twice the streak's share
/// of structure, and the half-resolution level holds less of the blur. On the motion-blur preset
/// (apps/replay/synthetic_presets.h, 300 frames): success at 5 px 85 % always at full
/// resolution; 92 % (from 8 px), 91 % (10 px), 94 % (12 px), 69 % (16 px), and every frame found
/// from 8 to 12 px; 46–70 % from 4 or 6 px (too little detail left for the slow frames).
constexpr double kHalfResolutionStreakPx = 10.0;
/// The exposures measureExposure tries (fractions of the frame interval), and how many inliers
/// it samples: a camera's exposure is not known in advance (short in daylight, up to the whole
/// frame interval indoors), and templates blurred for the wrong one correlate worse than sharp
/// ones.
constexpr double kExposureCandidates[] = {0.0, 0.125, 0.25, 0.5, 0.75, 1.0};
constexpr int kExposureSamples = 12;
/// A partly occluded target: with fewer inliers than minInlierFraction of the patches searched,
/// a result is still accepted with at least 2 · minInliers inliers, this fraction of the patches
/// searched and a mean inlier NCC of at least kOccludedMinNcc. Measured from the exact homography
/// of the synthetic presets (apps/replay/synthetic_presets.h) with the occluder over half the
/// target, true locks keep 31–51 % of their patches at a mean NCC of 0.89–0.93; predictions
/// 40 px off lock falsely on 10–39 % at 0.74–0.84 (a few of them higher, on the scale preset).
constexpr double kOccludedInlierFraction = 0.25;
/// Lowest mean inlier NCC of the occlusion rule above.
constexpr double kOccludedMinNcc = 0.85;
/// Mean blur streak of a stage's matches (frame pixels at full resolution, 2^L × this at level L)
/// from which the stage fits an affine correction weighted along the streaks
/// (tracker/blur_aware_fit.h) instead of a homography.
constexpr double kBlurFitStreakPx = 4.0;

/// What track() starts from.
struct TrackingPrior {
  /// Predicted homography target pixels → frame pixels in the frame to track.
  cv::Matx33d predicted = cv::Matx33d::eye();
  /// The target's homography one frame before the predicted one (e.g. the last frame's when
  /// `predicted` extrapolates it): predicted minus reference is each point's predicted motion
  /// over one frame, which sets the search range and the blur. std::nullopt: no motion known (no
  /// blur, the search range from the options and searchRangePx only).
  std::optional<cv::Matx33d> reference;
  /// The target's homography one frame before `reference`, when known: with it the blur streak
  /// is the motion at the frame's own time (the second-order backward difference,
  /// 1.5 · (H − reference) − 0.5 · (reference − referenceBefore) at each point) rather than the
  /// mean motion since the last frame, which lags it by half a frame while the hand accelerates.
  std::optional<cv::Matx33d> referenceBefore;
  /// Search at least this far from the prediction, frame pixels (>= 0; e.g. a retry from the last
  /// pose after the prediction failed). 0: from the options and the motion only. May exceed
  /// TrackingLaneOptions::maxSearchPx (a search for a lost target), up to 8 · kMaxSearchRadius
  /// (256 px at eighth resolution).
  double searchRangePx = 0;
  /// The exposure to blur the templates with (as TrackingLaneOptions::blurExposure, in [0, 1]),
  /// e.g. the tracker's running estimate from measuredExposure; std::nullopt: the options'.
  std::optional<double> blurExposure;
  /// Measure which exposure explains the frame's blur (TrackedTarget::measuredExposure; costs
  /// about 6 % of a frame's NCC work, so the tracker asks on some frames only).
  bool measureExposure = false;
};

/// Per-stage wall-clock times of one track() call, milliseconds (steady_clock); 0 when a stage
/// did not run.
struct TrackingTimings {
  double pyramid = 0;  ///< building the frame's pyramid (0 when the caller built it)
  double coarse = 0;   ///< every level above full resolution
  double fine = 0, pose = 0;
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
  /// The coarsest pyramid level searched (1: half resolution, 2: quarter, 3: eighth) and the
  /// search range used, frame pixels.
  int coarsestLevel = 1;
  double searchRangePx = 0;
  /// Mean NCC score of the inliers at full resolution, in [minNcc, 1].
  double meanInlierNcc = 0;
  /// Mean blur streak of the full-resolution templates, frame pixels (0: none blurred).
  double meanStreakPx = 0;
  /// Which of kExposureCandidates explains this frame's motion blur best (tracker/tracking_lane.cpp,
  /// measureExposure: the inliers' NCC with templates blurred by each), or −1 when not asked
  /// (TrackingPrior::measureExposure), without a motion reference or when the target moved too
  /// little to tell.
  double measuredExposure = -1;
  /// Root mean square of the inliers' distances to `homography`, frame pixels, each distance
  /// along a blur streak scaled down by the scatter expected there (tracker/blur_aware_fit.h).
  /// A true lock fits its inliers to a fraction of a pixel; chance NCC peaks around a wrong
  /// prediction scatter over the search radius.
  double fitRmsPx = 0;
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
  /// pixels), with no motion known (TrackingPrior with `predicted` only).
  /// @param gray CV_8UC1, exactly frameSize().
  /// @return the tracked target, or std::nullopt when it is lost (lastRejection() says why).
  /// @throws std::invalid_argument for an empty frame, a type other than CV_8UC1 or a size other
  ///   than frameSize() (the message names both sizes), or a non-finite prediction.
  std::optional<TrackedTarget> track(const cv::Mat& gray, const cv::Matx33d& predicted);
  /// Follows the target into the frame whose pyramid is `frame` (built by FramePyramid::build;
  /// the levels the search needs and lacks are added to it) from `prior`.
  /// @return as above.
  /// @throws std::invalid_argument for an empty pyramid, a level 0 of another type or size than
  ///   frameSize(), a non-finite prior or a negative searchRangePx.
  std::optional<TrackedTarget> track(FramePyramid& frame, const TrackingPrior& prior);

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
