#pragma once
// HomographyRefiner: the final refinement of a found target's homography on the frame's pixels —
// dense, inverse-compositional image alignment of the target image's textured pixels (Baker and
// Matthews, "Lucas-Kanade 20 Years On: A Unifying Framework", IJCV 56(3), 2004, section 3.2: the
// template's gradients and Jacobians precomputed once per target, each iteration a warp of the
// frame and an 8 × 8 solve), with a gain and offset between target and frame, and Tukey's
// biweight on the residuals so that occluders, specular spots and the part of a target out of
// view do not pull the fit (an iteratively reweighted least squares; the scale from the residuals'
// median absolute deviation). On a template that is not motion-blurred the steepest-descent
// rows are second order (ESM: Benhimane and Malis, "Real-time image-based tracking of planes using
// efficient second-order minimization", IROS 2004): from the mean of the template's gradient and
// the warped frame's, which converges in fewer iterations (cmu_book 7.7 → 4.7 a refinement,
// tmt_bookI 5.6 → 3.6); a blurred template keeps its own gradient (the frame's streaked one cost
// the HD motion_blur preset 6 points).
//
// Why: the tracking lane fits its homography to about 100 NCC patch matches of 8 × 8 pixels at
// integer-plus-parabola positions, and in a working frame smaller than the camera's (session/
// working_frame.h) its error grows with the downscale; thousands of pixels compared at sub-pixel
// positions on the full-resolution frame place the target closer (the measurements are in the
// .cpp and the README's HD table).
//
// One refine() call:
// 1. level:   the target image's pyramid level whose pixels are about the frame's there (the
//             homography's scale at the target's centre, rounded down to a power of two), so
//             that the frame is not sampled much finer than the template;
// 2. iterate: coarse to fine from kCoarseLevels template levels above that one (their smoother
//             gradients reach a start 10 px off), on each level: frame values at the samples'
//             warped positions (bilinear, on the grey frame: a CV_8UC3 frame is converted once),
//             gain and offset by weighted least squares, the residuals' Tukey weights, the
//             Gauss-Newton step and its inverse composed into the warp; until the points of the
//             target in view (a grid's, or its corners when few are) move less than kConvergedPx
//             (scaled to the level's pixels), at most maxIterations a level. The corners of a
//             large target partly out of view lie far outside the frame, where a change too small
//             to see in it moves them by pixels: measured there, no alignment on korean_book
//             converged. Started 5–10 px off on tmt_bookI, cmu_book and box.mp4 frames it lands
//             within 1 px of where it lands from the truth (tests/tracker/refiner_basin_test.cpp,
//             which the refiner before failed: one level up, one iteration there, 4 on its own);
// 3. accept:  only when enough samples stay in view, agree and correlate (RefinerOptions) and the
//             points in view moved at most maxShiftPx from where they started, or at most
//             confirmedShiftFactor times that when the correlation rose by confirmingGain
//             (withinShiftLimit): a refinement never replaces a good homography by a worse guess.
#include <memory>
#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/target_model.h"

namespace nft::tracker {

/// Settings of HomographyRefiner.
struct RefinerOptions {
  /// Samples per template pyramid level: the strongest-gradient pixel of each cell of a grid
  /// over the level (>= 16).
  int samples = 512;
  /// Fewest grey levels per pixel of gradient a sample needs (flat pixels carry no alignment).
  double minGradient = 4.0;
  /// Most Gauss-Newton iterations per template level (>= 1); most refinements converge in 1–3.
  int maxIterations = 25;
  /// Fewest samples that must fall in the frame, as a fraction of the level's (0, 1].
  double minInView = 0.25;
  /// Fewest samples with a non-zero Tukey weight among those in view, fraction in (0, 1].
  double minAgreeing = 0.5;
  /// Lowest normalised cross-correlation of the samples' template and frame values at the end
  /// (Tukey-weighted: an occluder's samples weigh nothing), in [-1, 1]: a fit that converged on
  /// the wrong place (a start far off), or a frame the template does not explain (much blurrier
  /// than it, a print whose colours the camera turns into other greys, a bent page), correlates
  /// poorly. Refinements on tmt_bookI, cmu_book and box.mp4 correlate at 0.91–0.97 on average;
  /// korean_book's at 0.45 (a bent, blurred cover, its alignment 4–10 px from where the NCC
  /// patches, each normalised on its own, put it): 0.6 let 54 of those through and left
  /// 31.9 / 71.5 % of its frames within 5 / 10 px, 0.8 keeps the lane's and 41.1 / 72.2 %.
  double minCorrelation = 0.8;
  /// A refinement moving a point of the target in view further than this from its start is
  /// refused (frame pixels, > 0): the start was too far off for the alignment to converge to the
  /// right place.
  double maxShiftPx = 24.0;
  /// A refinement that ends correlating at least this much better than it started (the weighted
  /// NCC above, last iteration minus first) confirms its move: it may then move points by up to
  /// confirmedShiftFactor × maxShiftPx (> 0). In a frame blurred by a fast shake the lane's
  /// estimate can be 20–40 px off along the motion, and an alignment that found the target there
  /// ends at 0.85–0.95 from 0.43–0.70 (the curved motion_blur can at 1280 × 720).
  double confirmingGain = 0.15;
  /// The largest move of a confirmed refinement, as a multiple of maxShiftPx (>= 1; 1 turns the
  /// confirmation off).
  double confirmedShiftFactor = 3.0;
};

/// Whether a refinement that moved points in view by `shiftPx` (frame pixels) is within the
/// options' limit: at most maxShiftPx, or at most confirmedShiftFactor × maxShiftPx when its
/// correlation rose from `startCorrelation` to `correlation` by at least confirmingGain. The
/// correlation floor (minCorrelation) is checked apart. Shared by HomographyRefiner and
/// CurvedRefiner.
bool withinShiftLimit(const RefinerOptions& options, double shiftPx, double startCorrelation, double correlation);

/// Checks every field of `options` against its range above.
/// @throws std::invalid_argument "RefinerOptions::<field> must be ...".
void validateRefinerOptions(const RefinerOptions& options);

/// The outcome of one refine() call.
struct Refinement {
  /// The refined homography (target pixels → frame pixels, H(2,2) = 1); std::nullopt when refused
  /// (the caller keeps its own).
  std::optional<cv::Matx33d> homography;
  int iterations = 0;
  int inView = 0;      ///< samples that fell in the frame (last iteration)
  int agreeing = 0;    ///< of those, samples with a non-zero weight
  double shiftPx = 0;  ///< largest corner displacement from the start, frame pixels
  double rmsGrey = 0;  ///< weighted RMS residual, grey levels of the target image
  double correlation = 0;  ///< weighted NCC of the samples, template against frame (last iteration)
  double startCorrelation = 0;  ///< the same at the homography refine() started from (first iteration)
  int level = 0;       ///< template pyramid level used
};

/// The refiner of one target: its template samples, built once. Immutable after construction;
/// refine() is const and thread-compatible.
class HomographyRefiner {
 public:
  /// @param image the target image (TargetModel::image): CV_8UC1, at least 16 × 16.
  /// @throws std::invalid_argument for another type or size, or options out of range (named).
  explicit HomographyRefiner(const cv::Mat& image, const RefinerOptions& options = {});
  ~HomographyRefiner();
  HomographyRefiner(HomographyRefiner&&) noexcept;
  HomographyRefiner& operator=(HomographyRefiner&&) noexcept;

  /// Refines `homography` (target-image pixels → pixels of `frame`) on `frame`.
  /// @param frame     CV_8UC1 or CV_8UC3 (BGR), any size.
  /// @param streakPx  the motion blur at the target, frame pixels: the vector a point of the
  ///                  target sweeps during the exposure (the exposure × its motion over one frame);
  ///                  the template is then compared blurred along it (Klein and Murray, "Improving
  ///                  the Agility of Keyframe-Based SLAM", ECCV 2008). Zero: no blur.
  /// @param coarseToFine false: only the quick alignment at the target's own level (a start that
  ///                  it does not bring to convergence within a small shift is refused, without
  ///                  the coarse-to-fine path): for a caller whose last frames' refinements were
  ///                  refused (a print that does not correlate as imaged: blurred, bent).
  /// @throws std::invalid_argument for an empty frame or another type.
  Refinement refine(const cv::Mat& frame, const cv::Matx33d& homography, cv::Vec2d streakPx = {},
                    bool coarseToFine = true) const;

  const RefinerOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::tracker
