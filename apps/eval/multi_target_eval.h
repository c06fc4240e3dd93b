#pragma once
// The many-targets evaluation of `nft_eval multi`: the multi-target synthetic sequence
// (synthetic/multi_target_sequence.h: its prints, exact corners and visibility per frame) run
// through one Session that knows every print (and, optionally, a database of distractors loaded
// first), or — `alone` — through one Session per print (the single-target reference of "each as
// accurate as a single target alone"). Scored per print over the frames where at least
// `minVisible` of it shows: success at 5 / 10 px of the alignment error (sqrt of the mean squared
// corner distance, as nft_eval tracking); and over the whole run: every detection right or wrong,
// targets reported where they are not, a name reported twice in a frame, tracker time.

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace nft::eval {

/// What to evaluate.
struct MultiTargetRequest {
  std::string layout = "pan";    ///< replay::MultiTargetLayout name: "pan" or "grid"
  int frames = 300;              ///< frames of the sequence (>= 1)
  std::string targetDatabase;    ///< .nftdb loaded before the prints (distractors); empty: none
  bool alone = false;            ///< one Session per print instead of one for all
  std::string configPath;        ///< YAML config (empty: defaults)
  std::string calibrationPath;   ///< camera calibration (empty: the config's)
  double minVisible = 0.5;       ///< visible fraction from which a print's frame is scored, (0, 1]
  int threads = 1;               ///< cv::setNumThreads for the run (0: OpenCV's default)
  int progressEvery = 30;        ///< progress line on stderr every N frames (0: none)
  std::string platform = "auto"; ///< EGL platform (gpu::parseEglPlatform)
  /// Per-frame CSV written as the run goes (empty: none), a row per frame and print:
  /// frame,target,visible,state,found,error_px — frame from 1, error_px "inf" when not found.
  std::string perFrameCsv;
};

/// One print's scores.
struct PrintScore {
  std::string name;
  int scoredFrames = 0;    ///< frames with visible fraction >= minVisible
  int found = 0;           ///< of those, frames where it was reported found
  int within5 = 0, within10 = 0;  ///< of those, frames with alignment error <= 5 / 10 px
  int reportedAbsent = 0;  ///< frames where it was reported found while none of it showed
  double medianErrorPx = 0;  ///< over the scored frames, not found = +inf
  double meanMs = 0;       ///< alone: its own Session's mean tracker time per frame, ms; else 0
};

/// The whole evaluation.
struct MultiTargetReport {
  std::string input, renderer;
  bool alone = false;
  int frames = 0;
  int databaseTargets = 0;  ///< distractors loaded from the database
  std::vector<PrintScore> prints;
  /// Results the detection lane produced with found = true. Of those, `wrongTarget` name a target
  /// not in view (a distractor, or a print none of which shows): recognition's errors; and
  /// `inaccurate` name a print in view but lie more than 10 px from it (e.g. a print mostly
  /// outside the frame, whose few matches extrapolate badly; the tracking lane then refines it).
  int detections = 0, wrongTarget = 0, inaccurate = 0;
  /// The names wrongTarget counted and how often, e.g. {"distractor0042", 2}.
  std::map<std::string, int> wrongTargetNames;
  int duplicateFrames = 0;  ///< frames where one target was reported found twice
  /// Tracker time per frame, ms (one Session: FrameTimings::total; alone: the sum over the
  /// Sessions, each of which also has PrintScore::meanMs).
  double meanMs = 0, medianMs = 0;
  /// The 99th-percentile (nearest rank) and largest tracker time of a frame, ms: the camera
  /// thread's worst frames (with several targets, the frames of a search).
  double p99Ms = 0, maxMs = 0;
  /// Of meanMs, ms per frame: the detection lane (FAST, describe, match, RANSAC, pose), and the
  /// tracking lanes (the frame's pyramid, NCC searches, pose), of which the pyramids (each lane
  /// builds its own).
  double detectionMeanMs = 0, trackingMeanMs = 0, pyramidMeanMs = 0;
};

/// Runs the evaluation, a progress line every request.progressEvery frames.
/// @throws std::runtime_error naming the layout, file or value for an unknown layout, a missing
///   opencv-doc image, database, config or calibration, or a print's name already in the database.
MultiTargetReport evaluateMultiTarget(const MultiTargetRequest& request);

/// Prints a table: a row per print (scored frames, found, <= 5 px, <= 10 px, median error,
/// reported while absent), then detections right / wrong, duplicates and tracker time.
void printMultiTargetSummary(std::ostream& out, const MultiTargetReport& report);

}  // namespace nft::eval
