#pragma once
// `nft_eval baseline`: one of the per-frame OpenCV baselines of feature_baseline.h (SIFT or ORB,
// ratio test and RANSAC on every frame, no tracking) over a video or a synthetic sequence, with
// nft_replay's inputs and outputs: the same flags (--target, --video, --gt, --frames,
// --synthetic-*), a per-frame pose CSV (suite/pose_csv.h's header) and a JSON report with
// nft_replay's statistics (apps/replay/replay_report.h). So `nft_eval suite` replays a baseline as
// it replays our tracker and tabulates both side by side (suite/suite_spec.h, `baselines:`).
//
// A per-frame method needs no history, so it may run on every Nth frame only (`every`): the
// frames 0, N, 2N, ... are run and scored; the others are written to the pose CSV with the state
// `skipped` and are not scored (the suite's per-frame errors leave them out) — SIFT takes
// 100-300 ms a frame on a laptop core.

#include <string>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "apps/eval/feature_baseline.h"

namespace nft::eval {

/// What to run. Either target and video (a video clip), or preset (a synthetic sequence).
struct BaselineRunRequest {
  BaselineKind kind = BaselineKind::Sift;
  BaselineOptions options;
  int every = 1;  ///< run frames 0, every, 2·every, ... (>= 1)
  std::string target;       ///< target image, or a .nftm model (its working image)
  std::string video;        ///< video file or frames folder
  std::string groundTruth;  ///< gt.tsv (empty: no accuracy)
  int maxFrames = -1;       ///< read only the first N frames (> 0), or -1 for all
  /// A synthetic sequence instead (synthetic/synthetic_presets.h name; "" for none): seed 8 as
  /// nft_replay's, only the frames run are rendered, scored by its exact ground truth.
  std::string preset;
  cv::Size syntheticSize{640, 480};
  double targetFraction = 0;  ///< > 0: SyntheticSequenceOptions::targetFraction
  int syntheticFrames = 300;
  std::string posesCsv;    ///< per-frame CSV to write (empty: none)
  std::string reportJson;  ///< JSON report to write (empty: none)
  int threads = 0;         ///< cv::setNumThreads for the run (0: OpenCV's default)
  int progressEvery = 0;   ///< progress line on stderr every N frames run (0: none)
};

/// Runs the baseline, writes the pose CSV and the report, and returns the report:
/// replay::ReplayStats::toJson() over the frames run (each found frame in state "detecting",
/// each other "lost"; ms: the baseline's time for the frame) and "method", "every",
/// "frames_read" (frames read, run or skipped), "input", "target", "frame_size" [w, h].
/// @throws std::runtime_error naming the file for a missing or unreadable video, target, ground
///   truth or output, and std::invalid_argument for a request that is neither a clip nor a preset.
nlohmann::json runBaseline(const BaselineRunRequest& request);

/// The line nft_eval prints after a run: frames run, found, and with ground truth success at 5 /
/// 10 px, median error and the same by the visible error.
std::string baselineSummary(const nlohmann::json& report);

}  // namespace nft::eval
