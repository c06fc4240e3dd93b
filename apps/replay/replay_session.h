#pragma once
// One nft_replay run: configuration, input, target, tracker, the per-frame loop (track, CSV
// row, ground-truth error, render, video frame, progress) and the final report. The program
// (apps/nft_replay.cpp) only parses the command line into a ReplayRequest.

#include <memory>
#include <string>
#include <vector>

#include "apps/replay/frame_source.h"
#include "nft/session.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::replay {

/// What to replay and what to write. Empty paths mean "not asked for".
struct ReplayRequest {
  /// Target image or .nftm model, and the input (video file, frames folder or camera index).
  /// Both empty: the built-in synthetic sequence (synthetic_sequence.h) with its own target and
  /// ground truth.
  std::string target;
  /// More targets (nft_replay's repeated --target) and a target database (--targets): with
  /// several targets the CSV gains a `target` column (pose_csv.h) and the report a row per target.
  std::vector<std::string> moreTargets;
  std::string targetDatabase;
  /// With several targets: the name of the one the ground truth follows (empty: the first).
  std::string groundTruthTarget;
  std::string video;
  /// POT's protocol (nft_eval pot): the target is the region of the first frame inside this quad,
  /// x1, y1, ..., x4, y4 (upper-left, upper-right, lower-right, lower-left, frame pixels), added
  /// with Session::addTargetFromFrame and tracked from there; empty = not asked for. Excludes
  /// target and targetDatabase; with no video, the synthetic sequence's first frame.
  std::vector<double> initQuad;
  std::string configPath;       ///< YAML config (config/config.h); empty = the defaults
  std::string calibrationPath;  ///< overrides the config's camera.calibration
  std::string outVideo;         ///< rendered video
  std::string posesCsv;         ///< per-frame CSV (pose_csv.h)
  std::string reportJson;       ///< JSON summary (replay_report.h)
  std::string groundTruth;      ///< gt.tsv (ground_truth.h)
  /// No GL rendering at all: tracking only; outVideo then receives the input frames unchanged
  /// (e.g. to export the synthetic sequence).
  bool noRender = false;
  /// Stop after this many frames (> 0), or -1 for the whole input.
  int maxFrames = -1;
  /// Play the input this many times in a row (>= 1; a soak test from a short video). Ground
  /// truth, when given, is repeated with it.
  int loops = 1;
  /// Progress line every N frames (0 = none).
  int progressEvery = 30;
  /// Asynchronous detection (config tracking.async_detection, async_delay_frames): the replay is
  /// synchronous by default (sessionOptions() turns `auto` off) to stay deterministic.
  /// asyncDelayFrames >= 0 overrides the config's async_delay_frames (each detection applied that
  /// many frames after its frame, deterministically); -1 keeps it. realtime: the real worker
  /// (async_detection on), the frames given to the Session at the input's frame rate (30 frames/s
  /// when it has none), as a camera would: what the worker finds depends on its speed.
  int asyncDelayFrames = -1;
  bool realtime = false;
  /// Options of the synthetic sequence (used when target and video are empty).
  SyntheticSequenceOptions synthetic;
  /// "cylinder" (a can) or "cone" (a cup): the synthetic sequence is instead a curved label's
  /// (synthetic/curved_sequence.h) with syntheticMotion, synthetic's frames, seed and frame size,
  /// its label trained on its surface and scored by its projected corners. Empty: the flat one.
  std::string syntheticGeometry;
  /// The curved sequence's motion (CurvedSequenceOptions::motion: a POT preset's name or "turn").
  std::string syntheticMotion = "turn";
};

/// The Session's options for the programs' --config and --calib: `configPath` loaded (the
/// defaults when empty; configSource "<defaults>"), `calibrationPath` (when not empty) as
/// camera.calibration, which the Session sizes to the frames. tracking.async_detection `auto`
/// becomes `off`: the programs replay and evaluate deterministically (an explicit `on` is kept) —
/// except from a live camera (`liveCamera`, nft_preview --video 0), whose frames come at the
/// camera's rate whatever the search takes, as in an app: there `auto` is kept.
/// @throws nft::ConfigError "<file>:<line>: <key> = <value>: expected ..." for a config that
///   cannot be read or is invalid; std::runtime_error naming a calibration file that does not exist.
SessionOptions sessionOptions(const std::string& configPath, const std::string& calibrationPath,
                              bool liveCamera = false);

/// Checks, before any frame is processed, that `path` can be written as the program's `what`
/// ("--poses", "--report", ...): not a folder, its folder exists and is writable, an existing
/// file is writable. Creates nothing. @throws std::runtime_error naming the option and the path.
void checkWritable(const std::string& path, const std::string& what);

/// Runs the replay: progress on stderr, the summary line on stdout, files as requested.
/// Errors (unreadable input, target, calibration or config; a frame of another size; a
/// truncated video) are printed as "nft_replay: <message>" on stderr; what was written until
/// then stays valid: CSV rows complete, the video finalised, the report written with
/// "completed": false and the error.
/// @return the exit status: 0 on success, 1 on error.
int runReplay(const ReplayRequest& request);

}  // namespace nft::replay
