#pragma once
// `nft_eval suite run --slurm`: the unfinished pairs of a plan as one Slurm job array (sbatch
// --array, one task per pair). Each task runs `nft_eval suite task PLAN INDEX` on a compute node,
// which replays its pair exactly as the local runner does (suite_task.h). The data, the output
// folder and the programs must be on a filesystem every node sees at the same path.
//
// A submission lives in OUT/slurm/<hash>/: plan.json (the pairs it holds, immutable, so a later
// `suite run` may rewrite OUT/suite.json while the array runs), array-<k>.sbatch (the batch
// script, resubmittable by hand) and task-<job>_<task>.log (each task's output).

#include <string>
#include <vector>

#include "suite/suite_plan.h"

namespace nft::eval::suite {

/// How to submit.
struct SlurmOptions {
  SlurmSpec spec;                  ///< resources and array limits (suite file, then flags)
  std::string sbatch = "sbatch";   ///< the sbatch program (PATH lookup)
  std::string evalBinary;          ///< nft_eval as the tasks run it, absolute
  bool force = false;              ///< the tasks run their pairs even when finished (suite run --force)
};

/// What was submitted.
struct SlurmSubmission {
  std::vector<std::string> jobIds;  ///< one per array (several when the pairs exceed maxArraySize)
  size_t tasks = 0;                 ///< pairs submitted
  std::string folder;               ///< OUT/slurm/<hash>
};

/// The batch script of one array: tasks `offset`..`offset + count - 1` of `planFile`, with the
/// spec's resources as #SBATCH lines. Its first command records the task's start time
/// (NFT_SUITE_T0) so that result.json's task_s covers the whole task.
std::string batchScript(const Plan& plan, const SlurmOptions& options, const std::string& planFile,
                        const std::string& logFolder, size_t offset, size_t count);

/// The job id in `sbatch --parsable` output ("123" or "123;cluster", maybe after warnings).
/// @throws std::runtime_error quoting the output when it holds no job id.
std::string parseJobId(const std::string& sbatchOutput);

/// Submits the pairs `pending` (indexes into plan.pairs; not empty) as job arrays of at most
/// spec.maxArraySize tasks. @throws std::runtime_error when sbatch is missing ("'sbatch' was not
///   found in PATH ..."), refuses a job (its exit status and message; arrays submitted before
///   are named), or the submission folder cannot be written.
SlurmSubmission submitSlurm(const Plan& plan, const std::vector<size_t>& pending, const SlurmOptions& options);

}  // namespace nft::eval::suite
