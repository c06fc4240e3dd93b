#pragma once
// `nft_eval pot`: the POT benchmark's protocol (Liang et al., ICRA 2018; apps/eval/pot_sequence.h
// reads its sequences) on our tracker and the OpenCV baselines. Every method starts from the
// first frame's quad: ours is given that region as an instant target (Session::addTargetFromFrame)
// and tracks from there; SIFT and ORB detect that region, rectified, on every frame (feature_
// baseline.h; ORB with poteval's orbFeatures, enough to see a small target in an HD frame). A
// frame is scored when it is annotated and not flagged, the first excepted: alignment error
// e = sqrt(mean over the 4 corners of the squared distance), a frame without a result failing.
// Precision at t px = the share of scored frames with e <= t; per category and over all, the
// mean of the sequences' precisions (each sequence weighs the same, as POT's own plots).

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "apps/eval/pot_sequence.h"
#include "apps/eval/tracking_eval.h"

namespace nft::eval {

/// What to evaluate.
struct PotRequest {
  /// Sequence folders, or folders of them (findPotSequences()).
  std::vector<std::string> paths;
  std::string configPath;       ///< YAML config for our tracker (empty: defaults)
  std::string calibrationPath;  ///< camera calibration (empty: the config's)
  std::vector<BaselineKind> baselines;
  /// The baselines' settings; orbFeatures 5000 by default here: POT's targets cover 1/16-1/4 of
  /// a 1280 × 720 frame, and 1000 features per frame leave a small one few.
  BaselineOptions baselineOptions = [] {
    BaselineOptions o;
    o.orbFeatures = 5000;
    return o;
  }();
  int maxFrames = -1;      ///< the first N frames of each sequence (> 0), or -1 for all
  int progressEvery = 0;   ///< progress line on stderr every N frames of a sequence (0: none)
  int threads = 1;         ///< cv::setNumThreads during the runs
  std::string platform = "auto";
  /// A folder for one per-frame CSV per sequence (<name>.csv, tracking_eval.h's columns); empty: none.
  std::string perFrameDir;
};

/// One sequence's outcome.
struct PotSequenceResult {
  PotSequence sequence;
  TrackingReport report;  ///< methods in the order ours, then the baselines
};

/// The whole evaluation.
struct PotReport {
  std::vector<PotSequenceResult> sequences;
  std::vector<std::string> methods;  ///< "ours", then the baselines
  std::string renderer;
};

/// Runs every sequence (a line on stderr per sequence).
/// @throws std::runtime_error naming the path or file for a missing folder, an unreadable
///   sequence (pot_sequence.h) or frame, and what evaluateTracking() throws.
PotReport evaluatePot(const PotRequest& request);

/// A group's precision at `thresholdPx` for method index `method`: the mean over `sequences` of
/// each one's share of scored frames within the threshold (sequences without a scored frame
/// left out); NaN when none is left.
double potPrecision(const std::vector<const PotSequenceResult*>& sequences, size_t method, double thresholdPx);

/// The groups of a report: ("all", every sequence), then each category present, in POT's order,
/// then ("other", sequences whose name gives no category) when there are any.
std::vector<std::pair<std::string, std::vector<const PotSequenceResult*>>> potGroups(const PotReport& report);

/// Prints per sequence and per group: precision at 5 px of each method, scored frames, median ms.
void printPotSummary(std::ostream& out, const PotReport& report);

/// The precision curves, 0 to 20 px in 1 px steps, as CSV: method,group,threshold_px,precision
/// (group: "all", a category, or a sequence's name). @throws std::runtime_error naming the file.
void writePotCurves(const std::string& path, const PotReport& report);

/// The report as JSON: per sequence (name, category, frames, annotated, flagged, scored, each
/// method's precision at 5 and 10 px, median error and ms) and per group (precision at 5 px,
/// sequences). @throws std::runtime_error naming the file.
void writePotJson(const std::string& path, const PotReport& report);

}  // namespace nft::eval
