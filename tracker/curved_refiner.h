#pragma once
// CurvedRefiner: the final refinement of a curved label's pose on the frame's pixels (issue 47,
// item 4: "the final refinement as dense alignment on the surface") — what HomographyRefiner
// (tracker/homography_refiner.h) is for a flat print, with the camera pose in place of the
// homography: the label's textured pixels, mapped onto its cylinder or cone
// (detection/label_surface.h), projected by the pose and compared with the frame.
//
// Model: a label sample at surface point X (target frame, metres) is seen at π(K·(R·X + t)); its
// grey value there is gain × the label's value + offset. The pose is updated by Gauss-Newton on
// its six parameters (a rotation ω and a translation v composed on the left: R ← exp([ω]×)·R,
// t ← exp([ω]×)·t + v), i.e. forward-additive Lucas-Kanade on the pose (Baker and Matthews,
// "Lucas-Kanade 20 Years On: A Unifying Framework", IJCV 56(3), 2004, section 2) with the
// model-based Jacobian of a 3D point's projection; the steepest-descent rows, as the flat
// refiner's, are second order where the template is not motion-blurred (ESM: Benhimane and
// Malis, IROS 2004: the mean of the frame's gradient and the label's gradient carried into the
// frame by the surface's local map), the label's alone where it is. Gain and offset, Tukey's
// weights and the correlation that accepts a fit are the flat refiner's (tracker/dense_alignment.h).
//
// One refine() call:
// 1. seen:    the samples whose surface point faces the camera (within kMaxPatchTiltDeg of its
//             normal, as the tracking lane's patches) and projects into the frame; the label is
//             convex seen from outside, so a facing point is never hidden by the label itself
//             (other objects are the Tukey weights' business);
// 2. level:   the label pyramid level whose pixels are about the frame's where the label is seen
//             (the surface's local scale at the label points in view);
// 3. blur:    with the poses of the frames before (CurvedMotion), each sample is compared blurred
//             along the streak its point sweeps during the exposure (its velocity at the frame's
//             time × the exposure, carried into label pixels by the surface's local map), as the
//             flat refiner and the tracking lanes blur their templates (Klein and Murray, ECCV 2008),
//             shortened to 0.8 of it: the velocity from the poses before overshoots a shaking hand's
//             (curved_refiner.cpp, kStreakFraction);
// 4. iterate: at that level for a few iterations (a start about a pixel off converges there),
//             else coarse to fine from two levels up, until the label's points in view move less
//             than 0.05 px a step; in a blurred frame, when the pose moved more than 2 px, the
//             streaks are predicted again from where it went and the alignment goes on at that
//             level (a lane's pose in a blurred frame is often 10–40 px off along the motion,
//             and the velocity from it 1.5 times as much);
// 5. accept:  as HomographyRefiner: enough samples seen and agreeing, the correlation at least
//             minCorrelation and the points in view moved at most maxShiftPx, or at most
//             confirmedShiftFactor (3) times that when the correlation ended at least
//             confirmingGain (0.15) above the start's (withinShiftLimit: the frame confirms the
//             move; a lane's pose in a frame blurred by a fast shake is 20-40 px off); not
//             correlating worse than the start; and a move over 8 px that ends correlating under
//             0.93 only when the correlation rose by 0.002 per pixel of it (under a long blur the
//             alignment can slide along the streak for a hair's more correlation).
// Distortion is not modelled (the curved tracking lane's templates have none either).
#include <memory>
#include <optional>

#include <opencv2/core.hpp>

#include "detection/label_surface.h"
#include "detection/target_model.h"
#include "tracker/camera_calibration.h"
#include "tracker/homography_refiner.h"
#include "tracker/pose.h"

namespace nft::tracker {

/// The motion a curved target's frame is blurred by: the poses of the frames before.
struct CurvedMotion {
  /// The pose one frame before the one refined; std::nullopt: no motion known (no blur).
  std::optional<Pose> before;
  /// The pose two frames before: with it a point's velocity is the second-order backward
  /// difference at the frame's own time (1.5·p(t) − 2·p(t−1) + 0.5·p(t−2)), else p(t) − p(t−1).
  std::optional<Pose> beforeThat;
  /// Fraction of the frame interval the shutter is open, in [0, 1]; 0: no blur.
  double exposure = 0;
};

/// The outcome of one CurvedRefiner::refine() call.
struct CurvedRefinement {
  /// The refined pose (X_camera = R·X + t, metres, the target frame of detection/label_surface.h);
  /// std::nullopt when refused (the caller keeps its own).
  std::optional<Pose> pose;
  int iterations = 0;
  int inView = 0;          ///< samples seen (facing the camera, in the frame) at the last iteration
  int agreeing = 0;        ///< of those, samples with a non-zero Tukey weight
  double shiftPx = 0;      ///< largest move of a label point in view from the start, frame pixels
  double rmsGrey = 0;      ///< weighted RMS residual, grey levels of the label image
  double correlation = 0;  ///< weighted NCC of the samples, label against frame (last iteration)
  double startCorrelation = 0;  ///< the same at the pose refine() started from (its first iteration)
  int level = 0;           ///< label pyramid level used last
};

/// The refiner of one curved target: its label samples on the surface, built once. Immutable after
/// construction; refine() is const and thread-compatible.
class CurvedRefiner {
 public:
  /// @param model a curved target (model.geometry a cylinder or cone) with its CV_8UC1 label image
  ///   (at least 16 × 16) and its width in metres.
  /// @param options the flat refiner's settings, with the same meaning (samples per level, the
  ///   acceptance limits), and its defaults: 512 samples a label level, of which a label round a
  ///   can shows about half. 256 cost less (the can at 640 × 480, one core: 0.19 against 0.32 ms a
  ///   frame on rotation, 0.73 against 1.0 ms on motion_blur) but lost frames under blur: within
  ///   5 px, motion_blur can 97.3 / 88.7 % against 99.0 / 91.0 % (640 × 480 / 1280 × 720), cup
  ///   96.3 / 91.0 against 96.0 / 93.7 %, the cup's unconstrained 1280 × 720 93.7 against 94.3 %;
  ///   the other 27 rows the same (docs/results.md #results_curved).
  /// @throws std::invalid_argument for a planar model, another image type or size, a bad
  ///   geometry (named, as validateTargetGeometry), or options out of range (named).
  explicit CurvedRefiner(const detection::TargetModel& model,
                         const RefinerOptions& options = {});
  ~CurvedRefiner();
  CurvedRefiner(CurvedRefiner&&) noexcept;
  CurvedRefiner& operator=(CurvedRefiner&&) noexcept;

  /// Refines `pose` on `frame`.
  /// @param frame       CV_8UC1 or CV_8UC3 (BGR), of calibration.imageSize.
  /// @param calibration the camera of `frame` (K; its distortion is not modelled).
  /// @param motion      the poses before, for the blur (none: the frame is compared unblurred).
  /// @param coarseToFine false: the quick alignment at the label's own level only (a start it does
  ///                    not bring to convergence within 2 px is refused), as HomographyRefiner's.
  /// @throws std::invalid_argument for an empty frame or another type, a frame size other than
  ///   calibration.imageSize, a non-finite pose or an exposure outside [0, 1].
  CurvedRefinement refine(const cv::Mat& frame, const CameraCalibration& calibration, const Pose& pose,
                          const CurvedMotion& motion = {}, bool coarseToFine = true) const;

  const RefinerOptions& options() const;
  /// The label's surface the samples lie on (the model's geometry, width and image size).
  const detection::LabelSurface& surface() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::tracker
