#pragma once
// `nft_eval suite collect OUT`: whatever pairs of a suite run have finished, gathered into one
// table — a row per (clip, config) — and summarised per config over its clips (written out by
// suite_report.h).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/suite_plan.h"

namespace nft::eval::suite {

/// One pair's row.
struct PairRow {
  Pair pair;  ///< the plan's entry
  std::string status = "missing";  ///< "ok", "failed" or "missing" (not run, running, or interrupted)
  std::string error;               ///< failed: the replay's error
  std::string note;                ///< missing: "running or interrupted on <host-pid>" when a temporary folder exists
  int exitStatus = -1;             ///< failed: the replay's exit status (-1: did not exit normally or never started)
  int signal = 0;                  ///< failed: the signal that ended the replay (0: none)
  int frames = 0;                  ///< frames replayed
  int found = 0;                   ///< frames where the target was found
  int groundTruthFrames = 0;       ///< frames with ground truth (0: no accuracy)
  std::optional<double> success5, success10;  ///< fraction of ground-truth frames within 5 / 10 px
  std::optional<double> medianErrorPx;        ///< median error of the found ground-truth frames, px
  /// By the visible error (suite/ground_truth.h visibleError()), over the frames it scores: the
  /// fraction within 5 / 10 px and the median of the found ones, px (a report without them: none).
  std::optional<double> visibleSuccess5, visibleSuccess10, medianVisibleErrorPx;
  double trackerFps = 0;                      ///< frames / the tracker's time (report "fps.tracker")
  /// process()'s 99th-percentile and largest time per frame, ms (report "process_ms"; a report
  /// of a build before it: none).
  std::optional<double> processP99Ms, processMaxMs;
  double replaySeconds = 0, taskSeconds = 0;  ///< result.json's replay_s and task_s
  std::vector<double> errors;                 ///< per ground-truth frame, px; +inf: not found
  std::vector<double> visibleErrors;          ///< per frame the visible error scores, px; +inf: not found
  std::string host;                           ///< where it ran (host-pid)

  /// found / frames, in [0, 1] (0 without frames).
  double foundFraction() const { return frames > 0 ? static_cast<double>(found) / frames : 0.0; }
  /// How a failed replay ended: "exit status 1", "killed by signal 9", "the replay did not start".
  std::string ending() const;
};

/// One config over all its finished clips.
struct ConfigSummary {
  std::string name, hash;                     ///< as in ConfigSpec
  std::map<std::string, std::string> params;  ///< the grid values (ConfigSpec::params)
  /// A baseline's summary (BaselineSpec): its method ("" for a config) and one frame in `every` run.
  std::string baseline;
  int every = 1;
  int clips = 0, finished = 0;  ///< clips of the suite / of them finished ok
  int frames = 0, found = 0, groundTruthFrames = 0;  ///< summed over the finished clips
  std::optional<double> success5, success10, medianErrorPx;  ///< over every ground-truth frame
  /// The same by the visible error, over every frame it scores.
  std::optional<double> visibleSuccess5, visibleSuccess10, medianVisibleErrorPx;
  double trackerFps = 0;  ///< Σ frames / Σ tracker time
  /// The worst clip's process() p99 and largest time per frame, ms (percentiles of different
  /// clips do not combine: the worst is what a user meets).
  std::optional<double> processP99Ms, processMaxMs;
  std::vector<double> errors;  ///< every ground-truth frame's error (for the success curve)
  std::vector<double> visibleErrors;  ///< every visible error of its clips

  /// found / frames over the finished clips, in [0, 1] (0 without frames).
  double foundFraction() const { return frames > 0 ? static_cast<double>(found) / frames : 0.0; }
};

/// Everything collected.
struct Collection {
  Plan plan;  ///< OUT/suite.json, outDir set to the folder collected
  std::vector<PairRow> rows;            ///< in the plan's order
  std::vector<ConfigSummary> configs;   ///< in the suite's order
  int ok = 0, failed = 0, missing = 0;  ///< rows by status

  /// True when every pair of the plan finished ok.
  bool complete() const { return failed == 0 && missing == 0; }
};

/// Reads OUT/suite.json and every pair's result. A result that cannot be read counts as missing,
/// with why in its note. @throws std::runtime_error naming the folder when it has no suite.json
///   (not a suite output folder).
Collection collectResults(const std::filesystem::path& outDir);

}  // namespace nft::eval::suite
