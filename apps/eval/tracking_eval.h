#pragma once
// The tracking evaluation of `nft_eval tracking`: our Tracker (tracker/tracker.h, configured as
// nft_replay configures it) and the OpenCV baselines of feature_baseline.h run over one video
// with ground-truth corners (gt.tsv, suite/ground_truth.h), in the same process and on the
// same decoded frames, scored by the alignment error of the POT/TMT benchmarks
// (../shared/data/README.md): e = sqrt(mean over the 4 corners of the squared distance), the
// corner error, and beside it by the visible error (suite/ground_truth.h visibleError(): the mean
// distance of a grid of target points inside the frame; ../shared/DESIGN.md, "Accuracy on real
// footage"); a frame where a method finds nothing fails (e = +infinity).

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "apps/eval/feature_baseline.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::eval {

/// What to evaluate. Paths as nft_replay takes them.
struct TrackingRequest {
  /// Target image or .nftm model; with targetDatabase, also the name of one of its targets.
  std::string target;
  /// Target database (.nftdb) loaded before the target: our Session then recognises among all
  /// its targets, and only `target`'s results are scored (another target reported in a frame
  /// does not count as found). Empty: none.
  std::string targetDatabase;
  std::string video;           ///< video file or frames folder
  std::string groundTruth;     ///< gt.tsv
  std::string configPath;      ///< YAML config for our tracker (empty: defaults)
  std::string calibrationPath; ///< camera calibration (empty: the config's)
  std::vector<BaselineKind> baselines;
  BaselineOptions baselineOptions;
  int maxFrames = -1;          ///< stop after this many frames (> 0), or -1 for all
  int progressEvery = 30;      ///< progress line on stderr every N frames (0: none)
  int threads = 1;             ///< cv::setNumThreads for the run (0: OpenCV's default)
  std::string platform = "auto";  ///< EGL platform (gpu::parseEglPlatform)
  /// Per-frame CSV written as the run goes (empty: none), one row per frame and method:
  /// frame,method,found,error_px,ms,ulx,uly,urx,ury,lrx,lry,llx,lly,visible_error_px — frame
  /// from 1 as gt.tsv names them, error_px and visible_error_px "inf" and the corners empty when
  /// not found, error_px empty on a frame not scored, visible_error_px empty too when no grid
  /// point is inside the frame.
  std::string perFrameCsv;
  /// Instead of target, video and groundTruth: a synthetic sequence with exact ground truth, the
  /// preset named here (synthetic/synthetic_presets.h: "scale", "motion_blur", ...; "default"
  /// is nft_replay's built-in input), syntheticFrames frames, seed 8. Empty: none.
  std::string preset;
  int syntheticFrames = 300;  ///< frames of the synthetic sequence (>= 1)
  cv::Size syntheticSize{640, 480};  ///< frame size of the synthetic sequence, pixels
  /// > 0: the synthetic target's share of the frame's area (SyntheticSequenceOptions::targetFraction).
  double targetFraction = 0;
  /// Ground truth given in memory instead of the groundTruth file (used when that is empty and
  /// no preset is given): frame i's corners, replay::notAnnotated() for a frame not scored (POT:
  /// frames not annotated or flagged occluded, out of view or blurred).
  std::vector<replay::QuadCorners> truth;
  /// The POT protocol: no target file; the target is the first frame's region inside its
  /// ground-truth quad — ours started there by Session::addTargetFromFrame, the baselines given
  /// that region rectified (session/frame_quad.h) as their target image. The first frame, where
  /// the quad is given, is not scored.
  bool initQuad = false;
  /// >= 0: our Session applies each detection this many frames after its frame (config
  /// tracking.async_delay_frames, a detection worker's delay replayed deterministically); -1: the
  /// config's.
  int asyncDelayFrames = -1;
};

/// The median of `values`, +inf entries (failures) counted as such: with an even count the mean of
/// the two middle values, or +inf when the upper one is; NaN for none.
double medianOf(std::vector<double> values);

/// One method's per-frame results. Frame i (from 0) is gt.tsv's frame i + 1.
struct MethodResult {
  std::string method;           ///< "ours", "orb", "sift"
  /// Alignment error per frame with ground truth, pixels; +inf: not found; NaN: not scored (no
  /// annotation, flagged, or the POT protocol's first frame).
  std::vector<double> errorPx;
  std::vector<double> ms;       ///< time per frame (ours: Tracker timings.total)
  int found = 0;                ///< frames with a result
  /// Visible error per frame (suite/ground_truth.h visibleError()), pixels, frame by frame as
  /// errorPx; +inf: not found; NaN: not scored (as errorPx, or no grid point inside the frame).
  std::vector<double> visibleErrorPx;

  int frames() const { return static_cast<int>(errorPx.size()); }
  /// Frames scored (errorPx not NaN).
  int scored() const;
  /// Fraction of the scored frames with e <= thresholdPx (0 without any).
  double successRate(double thresholdPx) const;
  /// Frames numbered first..last (from 1, as gt.tsv names them; clamped to the frames there
  /// are) with e <= thresholdPx.
  int successIn(int first, int last, double thresholdPx) const;
  /// Median alignment error over the scored frames, failures counted as +inf (so +inf when more
  /// than half fail); NaN without any.
  double medianErrorPx() const;
  /// Fraction of the frames scored by the visible error with a visible error <= thresholdPx
  /// (0 without any).
  double visibleSuccessRate(double thresholdPx) const;
  /// Median visible error over the frames it scores, failures counted as +inf; NaN without any.
  double medianVisibleErrorPx() const;
  /// Median time per frame, ms (NaN without frames).
  double medianMs() const;
  /// found / frames (the tracked fraction).
  double trackedFraction() const;
};

/// The whole evaluation.
struct TrackingReport {
  std::string input, target, renderer;
  int frames = 0;              ///< frames run (those with ground truth, scored or not)
  int scored = 0;              ///< frames scored
  std::vector<MethodResult> methods;  ///< ours first, then the baselines in the order asked
  std::vector<std::string> warnings;
};

/// Success rate at thresholds 0, step, 2·step, .. maxPx: (threshold, fraction of frames with
/// e <= threshold). @throws std::invalid_argument unless 0 < step <= maxPx.
std::vector<std::pair<double, double>> successCurve(const MethodResult& method, double maxPx, double stepPx);

/// Runs the evaluation: our tracker and every baseline on each frame, with a progress line.
/// @throws std::runtime_error naming the file for a missing or unreadable video, target,
///   ground truth, config or calibration, and for a frame of another size than the first.
TrackingReport evaluateTracking(const TrackingRequest& request);

/// The success curves as CSV: method,threshold_px,success_rate (successCurve() of each method),
/// what scripts/plot_eval.py draws. @throws std::runtime_error naming the file.
void writeCurveCsv(const std::string& path, const TrackingReport& report, double maxPx, double stepPx);

/// Prints the side-by-side table: per method success at 5 and 10 px, median error, success at
/// 5 px and median by the visible error, tracked fraction, median, p99 and largest ms per frame
/// and, when subsetFirst > 0, the frames subsetFirst..subsetLast within 10 px.
void printTrackingSummary(std::ostream& out, const TrackingReport& report, int subsetFirst, int subsetLast);

}  // namespace nft::eval
