#pragma once
// One pair of a suite run: its replay (nft_replay as a child process) and its outputs, written
// into a temporary folder beside the final one and moved into place whole:
//
//   OUT/pairs/<id>/result.json   what happened (see PairResult; "status": "ok" | "failed")
//   OUT/pairs/<id>/report.json   nft_replay --report
//   OUT/pairs/<id>/poses.csv     nft_replay --poses
//   OUT/pairs/<id>/replay.log    everything nft_replay printed
//   OUT/pairs/<id>/gt.tsv        a synthetic clip's ground truth (its exact corners), which its
//                                per-frame errors are scored against
//
// A pair is finished when OUT/pairs/<id>/result.json says "ok"; a failed pair is recorded the
// same way with its error and exit status, and is run again by the next `suite run`. A clip's
// frame range that starts after frame 0 is cut out first (its frames as lossless PNG and its
// ground-truth lines, in the temporary folder, removed afterwards), so the replay starts cold at
// the range's first frame.

#include <optional>
#include <string>

#include "suite/suite_plan.h"

namespace nft::eval::suite {

/// How a pair's replay is run.
struct TaskOptions {
  /// Threads each replay may use (OPENCV_FOR_THREADS_NUM and LP_NUM_THREADS of the child); 0:
  /// leave the environment as it is.
  int threads = 0;
  /// When the task started, seconds since the epoch (a Slurm batch script's first command);
  /// 0: when runPair() is called. task_s in result.json counts from it.
  double startEpoch = 0;
  std::string slurmJobId;   ///< recorded in result.json when run by Slurm
  std::string slurmTaskId;  ///< the array task id
  /// Run the pair even when it is finished.
  bool force = false;
};

/// What runPair() did.
struct PairOutcome {
  /// Ok: replayed and recorded; Failed: recorded as failed (see error); Skipped: finished before.
  enum class Status { Ok, Failed, Skipped };
  Status status = Status::Failed;
  std::string error;      ///< for Failed: why
  double replaySeconds = 0;  ///< the replay's own wall time (its process, start to exit)
  double prepareSeconds = 0; ///< cutting out the clip's frame range (0 for a range from frame 0)
  double taskSeconds = 0;    ///< the whole task (from TaskOptions::startEpoch)
};

/// True when OUT/pairs/<id>/result.json exists and says "ok".
bool pairFinished(const Plan& plan, const Pair& pair);

/// Runs pair `pair` of `plan` unless finished (Skipped), records its result and moves its folder
/// into place. A failing replay (missing input, bad value, crash) is recorded as failed, with its
/// exit status and its error message, not thrown.
/// @throws std::runtime_error naming the path only when the output folder cannot be written.
PairOutcome runPair(const Plan& plan, const Pair& pair, const TaskOptions& options);

}  // namespace nft::eval::suite
