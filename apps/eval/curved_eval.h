#pragma once
// `nft_eval tracking --preset P --geometry cylinder|cone` (issue 47, item 6): a curved target's
// synthetic sequence (synthetic/curved_sequence.h) tracked by our Session twice on the same frames,
// once with the label trained on its cylinder or cone and once as a flat print of the same width
// (what a user of a planar tracker gets), each scored against the exact pose:
//  - the visible error: the mean distance, pixels, between where a 10 × 10 grid of label points
//    is (those seen: CurvedSequence::visible()) and where the result puts them (the model's surface
//    under the result's pose; a flat model puts label pixel (u, v) at (u·s, v·s, 0));
//  - the rotation error: the angle of R_result·R_trueᵀ, degrees;
//  - the translation error: |t_result − t_true| / |t_true|, percent of the distance.
// A frame is scored when at least a quarter of the grid is seen at most 60° off its normal (the
// label in view: item 2 asks it to be found turned by up to ±60°, and a label seen only past that,
// near the silhouette, is the next frames' to find); a result
// there that is not found counts as +infinity in every error; a result in a frame where none of the
// label is seen is a false find. After the label has been out of view, the frames it takes to be
// found again (visible error <= 5 px) are counted from the first frame it is back in view.

#include <ostream>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/label_surface.h"
#include "nft/types.h"
#include "synthetic/curved_sequence.h"

namespace nft::eval {

/// What to evaluate.
struct CurvedTrackingRequest {
  replay::CurvedSequenceOptions sequence;
  std::string configPath;        ///< YAML config for our Session (empty: defaults)
  bool planarModel = true;       ///< also track the label as a flat print, in the same table
  int maxFrames = -1;            ///< stop after this many frames (> 0), or -1 for all
  int progressEvery = 30;        ///< progress line on stderr every N frames (0: none)
  int threads = 1;               ///< cv::setNumThreads for the run (0: OpenCV's default)
  std::string platform = "auto"; ///< EGL platform (gpu::parseEglPlatform)
  /// Per-frame CSV (empty: none), one row per frame and model:
  /// frame,model,found,visible_points,frontal_points,visible_error_px,rotation_deg,translation_pct,ms — frame
  /// from 1; the errors empty when the frame is not scored, "inf" when scored and not found.
  std::string perFrameCsv;
};

/// One frame's score (see the top of this file). Errors NaN when the frame is not scored.
struct CurvedFrameScore {
  bool found = false;
  int visiblePoints = 0;   ///< grid points seen (at any angle), of 100: the visible error's
  int frontalPoints = 0;   ///< grid points seen at most 60° off their normal
  bool scored = false;     ///< frontalPoints >= 25
  double visibleErrorPx = 0, rotationDeg = 0, translationPct = 0;
  double ms = 0;           ///< the Session's process() time (FrameTimings::total)
};

/// Scores a result at frame `index` of `sequence`: `model` is the surface the tracker's target
/// was trained on (the sequence's own, or a planar one of the same label size and width),
/// `found`/`pose` the result (pose in the target frame of label_surface.h, metres).
CurvedFrameScore scoreCurvedFrame(const replay::CurvedSequence& sequence, int index,
                                  const detection::LabelSurface& model, bool found, const Pose& pose);

/// One model's run.
struct CurvedModelResult {
  std::string model;  ///< "curved" or "planar"
  std::vector<CurvedFrameScore> frames;

  int scored() const;
  /// Scored frames with a visible error <= thresholdPx, as a fraction of the scored (0 without).
  double visibleSuccessRate(double thresholdPx) const;
  /// Medians over the scored frames, failures +inf; NaN without any.
  double medianVisibleErrorPx() const;
  double medianRotationDeg() const;
  double medianTranslationPct() const;
  /// Scored frames found, as a fraction of the scored.
  double foundFraction() const;
  /// Frames where none of the label is seen and a result was reported.
  int falseFinds() const;
  /// The largest number of frames, over each return of the label into view after at least one
  /// frame out of it, until a frame with a visible error <= 5 px (0: on the first frame back);
  /// -1 when it never was; 0 without any return.
  int worstReacquisitionFrames() const;
  /// Number of returns into view.
  int returns() const;
  double medianMs() const;
};

struct CurvedTrackingReport {
  std::string description;  ///< "can r = 3.3 cm, label 180°, motion turn, 640x480"
  std::string renderer;
  int frames = 0;
  std::vector<CurvedModelResult> models;  ///< curved first, then planar when asked
};

/// Runs the evaluation with a progress line.
/// @throws std::invalid_argument / std::runtime_error for bad sequence options, a missing image
///   or config, or an unwritable per-frame file (named).
CurvedTrackingReport evaluateCurvedTracking(const CurvedTrackingRequest& request);

/// The table: per model the scored frames' visible success at 5 px, median visible, rotation and
/// translation errors, the found fraction, false finds, the worst reacquisition and ms per frame,
/// and the curved model's time as a multiple of the planar one's.
void printCurvedSummary(std::ostream& out, const CurvedTrackingReport& report);

}  // namespace nft::eval
