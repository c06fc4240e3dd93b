#pragma once
// The `nft_eval suite` subcommands behind the command line (apps/nft_eval.cpp only parses it):
// `run` (locally, N at a time, or as a Slurm job array), `collect`, and `task` (one pair, what a
// Slurm array task runs).

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nft::eval::suite {

/// What `suite run` was given.
struct SuiteRunRequest {
  std::string suiteFile;
  std::string outDir;
  std::string replayBinary;  ///< "" = nft_replay beside this program
  int jobs = 1;              ///< local replays at a time
  bool slurm = false;        ///< submit a job array instead of running here
  bool force = false;        ///< run finished pairs again
  std::string sbatch = "sbatch";
  /// Flags overriding the suite file's `slurm:` section.
  std::optional<std::string> partition, time, mem;
  std::optional<int> cpusPerTask, maxParallel, maxArraySize;
  std::vector<std::string> sbatchArgs;  ///< appended to the suite's sbatch_args
};

/// `suite run`: loads and checks the suite, prepares the output folder, then runs the unfinished
/// pairs here (progress on `err`, a summary line on `out`) or submits them (the job ids on `out`,
/// one per line; nothing is submitted when every pair is finished).
/// @return 0 when every pair is finished (locally) or submitted (Slurm), 1 when a pair failed.
/// @throws std::runtime_error for a bad suite, output folder, replay program or submission.
int suiteRun(const SuiteRunRequest& request, std::ostream& out, std::ostream& err);

/// `suite collect OUT`: writes the results (suite_collect.h) and prints what it wrote and which
/// pairs are missing or failed (on `err`), and the overview table (on `out`).
/// @return 0 when every pair finished ok, 2 when some are missing or failed (the files are
///   written all the same, marked incomplete). @throws std::runtime_error for a folder that is
///   no suite output folder or cannot be written.
int suiteCollect(const std::string& outDir, std::ostream& out, std::ostream& err);

/// `suite task [--force] PLAN INDEX`: runs pair INDEX of PLAN (a Slurm array task; `force`: even
/// when it is finished). Threads from
/// SLURM_CPUS_PER_TASK, the task's start from NFT_SUITE_T0 (set by the batch script), the job
/// and task ids from SLURM_ARRAY_JOB_ID / SLURM_ARRAY_TASK_ID.
/// @return 0 when the pair is finished (now or before), 1 when it failed.
/// @throws std::runtime_error for an unreadable plan or an index outside it.
int suiteTask(const std::string& planFile, int index, bool force, std::ostream& err);

/// nft_replay beside this program (/proc/self/exe's folder). @throws std::runtime_error when
/// there is none, saying to give --replay.
std::string defaultReplayBinary();

}  // namespace nft::eval::suite
