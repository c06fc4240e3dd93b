#pragma once
// Tracker: the two-lane tracker (../shared/DESIGN.md, "The pipeline"), one track() call per
// camera frame, a state machine over the detection lane (tracker/detection_lane.h) and the NCC
// tracking lane (tracker/tracking_lane.h) after Wagner, Reitmayr, Mulloni, Drummond,
// Schmalstieg, "Real-Time Detection and Tracking for Augmented Reality on Mobile Phones", IEEE
// TVCG 16(3), 2010.
//
//   detecting ──found──▶ tracking ──lost──▶ (detection in the same frame) ──▶ detecting / lost
//       ▲                   │ (every redetectEvery frames: a detection re-seeds the tracking)
//       └───────────────────┘
//
// - No target known: the detection lane runs on the frame. A detection is then refined by the
//   tracking lane (the detection's homography as the prediction: NCC patches at full resolution
//   fit the target more closely than the keypoint matches do), when refineDetections is on —
//   also with trackingEnabled off, where every frame is detected and refined on its own: on
//   all 531 frames of tmt_bookI 68.9 / 68.9 % within 5 / 10 px instead of 63.3 / 68.2 %
//   (median error 0.91 instead of 2.06 px), with target.view_tilt_deg 65 84.6 / 86.3 % instead
//   of 70.8 / 81.2 % (OpenCV SIFT per frame: 72.7 / 74.0 %).
// - Target known: the motion model predicts the homography and how far it may miss (its last
//   miss, MotionModel::lastMissPx), the tracking lane follows it, searching as far as the
//   predicted speed and that miss ask (from quarter or eighth resolution for fast motion, PTAM's
//   coarse stage) with templates blurred by the motion and the camera's exposure, which the
//   tracker learns from the frames (TrackedTarget::measuredExposure). When the prediction fails
//   (a hand that stops or starts at once), a second hypothesis: the last homography, searched
//   over maxSearchPx (Wagner et al. keep the last pose as their fallback; PTAM re-searches).
// - Lost: the detection lane runs on the same frame, first in the region around where the target
//   was predicted (regionDetection: cheaper, denser on the target, and at the scale that place
//   predicts: DetectionLane::detect(frame, region, near)), then in the whole frame. For
//   retrackLostFrames frames after a loss the tracking lane first tries again from the last
//   homography found, over recoverySearchPx; then the detection near the last place, then the
//   whole frame.
//
// A curved target (a label on a cylinder or cone, model.geometry): detected over the whole frame in
// one pass by PnP on its surface (tracker/curved_detection.h), each detection refined by the curved
// tracking lane (tracker/curved_tracking_lane.h) in its frame, then followed by that lane from the
// constant-velocity prediction of its last two poses, the last pose searched over maxSearchPx when
// the prediction fails, and for retrackLostFrames frames after a loss from where it was lost over
// recoverySearchPx; then the detection lane, which in the frame of a loss and the retrackLostFrames
// after it first searches the whole frame at the scales of the last pose (its inlier floor
// nearMinInliers, a detection under minInliers taken only when the tracking lane confirms it),
// then with no scale known. redetectEvery and regionDetection do not apply to it.
// Its TrackResult::outline is the label's visible edges and the body's silhouette.
//
// On the POT-style presets of apps/replay/synthetic_presets.h (640×480, 300 frames, exact ground
// truth; README.md, "Fast motion and the POT presets", has the table with the OpenCV baselines)
// the tracker keeps 98–100 % of the frames within 5 px on all seven ("unconstrained" 98.3 %,
// since the coarse levels fit a similarity or affine correction instead of a homography,
// tracker/tracking_lane.h step 3), at a median 1.4–2.8 ms per frame, where this state machine
// with the tracking lane of Wagner et al. alone (half then full resolution, constant velocity,
// the last pose as the only fallback) kept 9 % (motion blur), 33 % (out of view), 24 %
// (unconstrained) and 90 % (occlusion).
//
// Measured on all 531 frames of tmt_bookI (800×600, target.png's model of
// tests/tracker/tmt_target.h, default calibration, one OpenCV thread, llvmpipe; alignment error
// against gt.tsv, see ../shared/data/README.md):
//   both lanes (defaults): 100 % of frames within 5 px (and 10 px), also through the far-tilted
//     frames 214–375; median error 0.84 px, largest 3.1 px; 1 detection, then tracking; the
//     tracking lane 1.6 ms per frame (nft_tracker_benchmark BM_TrackingLane);
//   OpenCV SIFT + ratio 0.75 + RANSAC on every frame, same run: 72.7 % / 74.0 %, 24 of the 162
//     tilted frames, 120 ms per frame (BM_SiftBaselineFullPass);
//   the tracking lane alone from gt.tsv's first frame, one option changed at a time (median error
//     px / 95th percentile px / ms per frame; every variant keeps 100 % within 5 px):
//     defaults 0.89 / 2.62 / 1.57; maxPatches 50: 1.07 / 2.78 / 0.97, 200: 0.86 / 2.62 / 2.04;
//     patchSize 6: 0.91 / 2.80 / 1.27, 12: 0.81 / 2.50 / 2.53; minNcc 0.6 or 0.8: 0.86–0.87 /
//     2.6 / 1.59; coarseRadiusPx 2: 0.87 / 2.62 / 1.24, 8: 0.88 / 2.62 / 2.86; fineRadiusPx 1:
//     0.88 / 2.62 / 1.48, 4: 0.89 / 2.61 / 1.93; motion None: 0.86 / 2.63 / 1.58.
//   The book moves slowly and stays in view there: the defaults keep margins (coarse radius 4,
//   constant velocity) for faster hand motion than this video has.
//
// Frame size: fixed by calibration.imageSize. A frame of another size is an error
// (std::invalid_argument naming both sizes; nothing changes): resize frames to the calibrated
// size or make a Tracker for the new size with scaledTo(calibration, size).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/target_model.h"
#include "tracker/camera_calibration.h"
#include "tracker/detection_lane.h"
#include "tracker/frame_pyramid.h"
#include "tracker/motion_model.h"
#include "tracker/pose.h"
#include "tracker/tracking_lane.h"

namespace nft::gpu {
struct Capabilities;
}

namespace nft::tracker {

/// The region of a frame (frameSize) where the target (targetSize, its pixels) lies under H
/// (target → frame pixels): the bounding box of its quad enlarged by `margin` times its width
/// (height) on the left and right (top and bottom), at least 32 px, clipped to the frame.
/// std::nullopt when that is most of the frame anyway (over 60 % of it), under 32 px on a side,
/// or H maps a corner to infinity. The region of TrackerOptions::regionDetection.
std::optional<cv::Rect> detectionRegion(const cv::Matx33d& H, cv::Size targetSize, cv::Size frameSize, double margin);

/// Settings of Tracker.
struct TrackerOptions {
  DetectionLaneOptions detection;
  TrackingLaneOptions tracking;
  MotionModelKind motion = MotionModelKind::ConstantVelocity;
  /// False: no frame-to-frame tracking, the detection lane runs on every frame (its detections
  /// are still refined by the tracking lane in their own frame while refineDetections is on).
  bool trackingEnabled = true;
  /// False: no detection lane; the target must be given by initialise() (tests of the tracking
  /// lane alone, or a caller with its own detector).
  bool detectionEnabled = true;
  /// Refine each detection with the tracking lane in the same frame (see the top of this file),
  /// with or without trackingEnabled: the refinement uses no earlier frame.
  bool refineDetections = true;
  /// While tracking, run a detection every N frames (>= 0; 0 = never); a detection found then
  /// replaces the tracked homography and restarts the motion model (corrects drift and false
  /// locks).
  int redetectEvery = 0;
  /// For this many frames after a loss (>= 0), the tracking lane first tries again from the last
  /// homography found, before the detection lane runs: after a blank or blurred frame or a brief
  /// occlusion the target is usually still where it was, and the tracking lane also follows it
  /// through views the detection lane cannot find (tmt_bookI's far-tilted frames). For a curved
  /// target these frames (and the frame of the loss) are also those whose detection first
  /// searches at the last pose's scales (see Tracker).
  int retrackLostFrames = 5;
  /// After a loss (in the frame of the loss and the regionSearchFrames after it) the detection
  /// lane first looks only in the region around the target's last or predicted place
  /// (DetectionLane::detect with a region: fewer pixels for FAST, the keypoints denser on the
  /// target), then, if that finds nothing, in the whole frame.
  bool regionDetection = true;
  /// That region: the bounding box of the target's quad enlarged by this fraction of its width
  /// (height) on the left and right (top and bottom), at least 32 px; >= 0.
  double regionMargin = 0.5;
  /// For this many frames after a loss (>= 0) the detection searches the region around the last
  /// place first (regionDetection). A small target in a large frame, once lost, gets few of a
  /// whole-frame detection's keypoints, and is usually found again near where it was: the
  /// street clip of issue 45 (a 300 × 140 px sign in 1280 × 720) was never found again in its
  /// last 35 frames when only the 5 frames after the loss searched there.
  int regionSearchFrames = 90;
};

/// The tracker's state for one frame.
enum class TrackerState {
  Detecting,  ///< the detection lane produced this frame's result (found or not)
  Tracking,   ///< the tracking lane followed the target into this frame
  Lost,       ///< the tracking lane lost the target in this frame and no detection found it
};

/// "detecting", "tracking" or "lost" (the CSV's state column).
std::string toString(TrackerState state);

/// Per-stage wall-clock times of one track() call, milliseconds. total covers the whole call
/// (colour conversion, both lanes, bookkeeping).
struct TrackerTimings {
  double convert = 0;           ///< BGR → grey
  DetectionTimings detection;   ///< zeros when the detection lane did not run
  TrackingTimings tracking;     ///< sum over the tracking lane's runs in this frame
  double total = 0;
};

/// One frame's outcome.
struct TrackResult {
  TrackerState state = TrackerState::Detecting;
  /// True when the target's homography and pose below are valid for this frame.
  bool found = false;
  /// Homography target pixels (TargetModel::image) → frame pixels, H(2,2) = 1.
  cv::Matx33d homography = cv::Matx33d::eye();
  /// Camera pose of the target: X_cam = R·X_target + t, R = Rodrigues(pose.rvec); metres when the
  /// model's width is known (tracker/pose.h).
  Pose pose;
  /// The target image's corners (0,0), (w,0), (w,h), (0,h) in frame pixels (UL, UR, LR, LL);
  /// empty when not found.
  std::vector<cv::Point2f> corners;
  /// What the camera sees of the target's outline, polylines in frame pixels (tracker/label_outline.h
  /// projectedOutline): a flat print's closed quad (its corners and the first again); a curved
  /// label's edges and its body's silhouette, the parts that face the camera. Empty when not found.
  std::vector<std::vector<cv::Point2f>> outline;
  /// Inliers of the lane that produced the result (keypoint matches or NCC patches).
  int inliers = 0;
  /// Patches the tracking lane searched for that result (0 for an unrefined detection).
  int searched = 0;
  /// Mean reprojection error of those inliers under `pose`, pixels.
  double reprojectionErrorPx = 0;
  /// Inlier patches of the tracking lane (target pixels, frame pixels), for overlays; empty
  /// for an unrefined detection.
  std::vector<cv::Point2f> inlierTargetPoints, inlierFramePoints;
  /// Why the target was not found (or why tracking was lost, when a detection then found it).
  std::string rejection;
  /// True when the detection lane found the target in the region around its last or predicted
  /// place (TrackerOptions::regionDetection), without the whole-frame detection; for a curved
  /// target, when it found it at the scales of its last pose (after a loss, see Tracker).
  bool detectedInRegion = false;
  TrackerTimings timings;
};

/// The two-lane tracker for one target and one frame size. Holds GPU resources (the detection
/// lane): needs the GL context current at construction, in every call and at destruction.
/// Move-only, not thread-safe.
class Tracker {
 public:
  /// A curved target (a cylinder or cone label, TargetModel::geometry) is detected by PnP on its
  /// surface (tracker/curved_detection.h) over the whole frame in one pass (options() comes back
  /// with regionDetection false and detection.firstPassFraction 1 for it) and followed by
  /// CurvedTrackingLane; without the detection lane (the tracking lane of one of several
  /// targets, session/target_tracking.h) it starts from initialise(const Pose&, double).
  /// @throws std::invalid_argument for options out of range (named) or an unusable model (what
  ///   DetectionLane and TrackingLane throw: no keypoints, no patches, no image); GPU errors of
  ///   the detection lane pass through.
  Tracker(const gpu::Capabilities& caps, const detection::TargetModel& model, const CameraCalibration& calibration,
          const TrackerOptions& options = {});
  ~Tracker();
  Tracker(Tracker&&) noexcept;
  Tracker& operator=(Tracker&&) noexcept;

  /// Processes one frame.
  /// @param frame CV_8UC1 grey or CV_8UC3 BGR, exactly frameSize().
  /// @throws std::invalid_argument for an empty frame, another type, or another size than
  ///   frameSize() (the message names both; the tracker's state is unchanged).
  TrackResult track(const cv::Mat& frame);
  /// The same, the detection lane searching `detectionFrame` instead: the same frame at the
  /// lane's fine size (DetectionLaneOptions::fineFrameSize, e.g. the full-resolution frame of a
  /// downscaled working frame), CV_8UC1 or CV_8UC3; empty: `frame`. Its detections are in
  /// frameSize() pixels as the others.
  TrackResult track(const cv::Mat& frame, const cv::Mat& detectionFrame);
  /// Processes one grey frame whose pyramid the caller built (FramePyramid::build), e.g. once for
  /// the trackers of several targets in the same frame instead of once per tracker: the result is
  /// the same as track(pyramid.level(0)) (the levels are cv::pyrDown's either way). The tracker
  /// adds the coarser levels it needs to `pyramid` and uses level 0 for its detection lane; the
  /// pyramid's pyramid time (FramePyramid::build) is the caller's, not in the result's timings.
  /// @param pyramid built from a CV_8UC1 frame of exactly frameSize(); kept unchanged otherwise.
  /// @throws std::invalid_argument for an empty pyramid or a level 0 of another size (the message
  ///   names both; the tracker's state is unchanged).
  TrackResult track(FramePyramid& pyramid);

  /// Starts tracking from a known homography (target pixels → frame pixels of the next frame's
  /// neighbourhood, e.g. ground truth or another detector's result): the next track() predicts
  /// from it. @throws std::invalid_argument if H is not finite, or for a curved target (its tracking
  ///   starts from a detection's pose: a homography does not give it).
  void initialise(const cv::Matx33d& homography);
  /// The same, and the next track() searches at least `searchRangePx` frame pixels around H (the
  /// tracking lane's coarse-to-fine search, TrackingPrior::searchRangePx): for a homography
  /// found some frames ago, e.g. by a detection that ran on a worker while the camera moved on.
  /// @param framesBefore how many frames before the next tracked one H was found (0: unknown).
  ///   Given, the next track() blurs its templates along the motion its search finds from H,
  ///   divided among those frames (Klein and Murray's blur model, as from a tracked frame):
  ///   what lets a detection carried into a motion-blurred frame be found there.
  /// @throws std::invalid_argument if H is not finite, the range is negative or not finite, or
  ///   framesBefore is negative.
  void initialise(const cv::Matx33d& homography, double searchRangePx, int framesBefore = 0);
  /// Starts tracking a curved target from a known pose (X_cam = R·X_target + t, metres, the
  /// target frame of detection/label_surface.h; e.g. MultiTargetDetector's detection): the next
  /// track() follows the label on its surface from that pose, searching at least
  /// `searchRangePx` frame pixels around it (a pose found some frames ago, on a worker), and
  /// lastHomography() is its tangent plane's (tangentPlaneHomography()) until then.
  /// @throws std::invalid_argument for a planar target (it starts from a homography), a pose
  ///   not finite, or a range negative or not finite.
  void initialise(const Pose& pose, double searchRangePx = 0);
  /// Forgets the target: the next track() detects.
  void reset();
  /// The homography the next track() predicts from: the last one found (or given to
  /// initialise()); std::nullopt when hasTarget() is false.
  std::optional<cv::Matx33d> lastHomography() const;
  /// The camera's exposure the tracking lane models motion blur with, as a fraction of the frame
  /// interval: TrackingLaneOptions::blurExposure at first, then learnt from the frames.
  double exposure() const;

  /// Frees the detection lane's GPU resources (GL context loss: call it while the context is
  /// still current, or with none current); the tracking state (motion model, last homography)
  /// is kept. Until restoreGpu(), track() runs the tracking lane only and reports a loss it
  /// cannot recover as "lost" with the rejection "GPU released".
  void releaseGpu();
  /// Rebuilds the detection lane on the context current now (`caps` its probe), from the model
  /// and calibration kept since construction. Does nothing if the GPU resources are there.
  /// @throws what the constructor throws for GPU errors.
  void restoreGpu(const gpu::Capabilities& caps);
  /// False between releaseGpu() and restoreGpu() (and always true without a detection lane).
  bool hasGpu() const;

  /// Whether the next track() starts from a known target (tracking) or searches (detection).
  bool hasTarget() const;
  cv::Size frameSize() const;
  cv::Size targetSize() const;
  const TrackerOptions& options() const;

 private:
  /// The state machine on the frame in impl_'s gray and pyramid (set by the track() overloads);
  /// fills `r` but its convert time, `start` the call's start for r.timings.total.
  void trackGray(TrackResult& r, std::chrono::steady_clock::time_point start);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::tracker
