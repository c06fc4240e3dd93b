#include "suite/suite_commands.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "suite/suite_collect.h"
#include "suite/suite_local.h"
#include "suite/suite_plan.h"
#include "suite/suite_process.h"
#include "suite/suite_report.h"
#include "suite/suite_slurm.h"
#include "suite/suite_spec.h"
#include "suite/suite_task.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string executable(const std::string& path, const std::string& what) {
  const std::string absolute = fs::absolute(path).lexically_normal().string();
  if (!fs::is_regular_file(absolute) || ::access(absolute.c_str(), X_OK) != 0)
    throw std::runtime_error(what + " '" + absolute + "' is not an executable file");
  return absolute;
}

SlurmSpec slurmSpec(const SlurmSpec& fromSuite, const SuiteRunRequest& r) {
  SlurmSpec s = fromSuite;
  if (r.partition) s.partition = *r.partition;
  if (r.time) s.time = *r.time;
  if (r.mem) s.mem = *r.mem;
  if (r.cpusPerTask) s.cpusPerTask = *r.cpusPerTask;
  if (r.maxParallel) s.maxParallel = *r.maxParallel;
  if (r.maxArraySize) s.maxArraySize = *r.maxArraySize;
  s.extraArgs.insert(s.extraArgs.end(), r.sbatchArgs.begin(), r.sbatchArgs.end());
  return s;
}

}  // namespace

std::string defaultReplayBinary() {
  const fs::path beside = fs::path(selfExecutable()).parent_path() / "nft_replay";
  if (!fs::is_regular_file(beside))
    throw std::runtime_error("nft_replay was not found beside this program ('" + beside.string() +
                             "'): give its path with --replay");
  return beside.string();
}

int suiteRun(const SuiteRunRequest& request, std::ostream& out, std::ostream& err) {
  if (request.jobs < 1) throw std::invalid_argument("--jobs " + std::to_string(request.jobs) + ": expected at least 1");
  const SuiteSpec suite = loadSuite(request.suiteFile);
  const std::string replay =
      executable(request.replayBinary.empty() ? defaultReplayBinary() : request.replayBinary, "replay program");
  const Plan plan = makePlan(suite, request.outDir, replay, selfExecutable());  // nft_eval runs the baselines
  prepareOutDir(plan, suite);
  err << "nft_eval: suite '" << plan.suite << "': " << suite.clips.size() << " clips x " << suite.configs.size()
      << " configs" << (suite.baselines.empty() ? "" : " and " + std::to_string(suite.baselines.size()) + " baselines")
      << " = " << plan.pairs.size() << " pairs, results in " << plan.outDir << "\n";

  if (!request.slurm) {
    const LocalRunSummary s = runLocal(plan, request.jobs, request.force, err);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", s.seconds);
    out << "suite '" << plan.suite << "': " << s.ran << " pairs run (" << s.failed << " failed), " << s.skipped
        << " finished before; " << seconds << " s with --jobs " << request.jobs << "\n";
    if (s.failed > 0) err << "nft_eval: " << s.failed << " pairs failed: `nft_eval suite collect " << plan.outDir << "` lists them\n";
    return s.failed > 0 ? 1 : 0;
  }

  std::vector<size_t> pending;
  for (size_t i = 0; i < plan.pairs.size(); ++i)
    if (request.force || !pairFinished(plan, plan.pairs[i])) pending.push_back(i);
  if (pending.empty()) {
    err << "nft_eval: every pair is finished: nothing to submit\n";
    return 0;
  }
  SlurmOptions options;
  options.spec = slurmSpec(suite.slurm, request);
  options.sbatch = request.sbatch;
  options.evalBinary = selfExecutable();
  options.force = request.force;
  const SlurmSubmission submission = submitSlurm(plan, pending, options);
  for (const std::string& id : submission.jobIds) out << id << "\n";
  err << "nft_eval: submitted " << submission.tasks << " pairs as " << submission.jobIds.size()
      << " Slurm job array(s); task logs in " << submission.folder << "; when they end: nft_eval suite collect "
      << plan.outDir << "\n";
  return 0;
}

int suiteCollect(const std::string& outDir, std::ostream& out, std::ostream& err) {
  const Collection c = collectResults(outDir);
  for (const std::string& file : writeCollection(c)) err << "nft_eval: wrote " << file << "\n";
  for (const PairRow& r : c.rows) {
    if (r.status == "failed")
      err << "nft_eval: FAILED " << r.pair.clip << " x " << r.pair.config << " (" << r.pair.id << "): " << r.error
          << " (" << r.ending() << ")\n";
    if (r.status == "missing")
      err << "nft_eval: MISSING " << r.pair.clip << " x " << r.pair.config << " (" << r.pair.id << ")"
          << (r.note.empty() ? std::string() : ": " + r.note) << "\n";
  }
  out << "suite '" << c.plan.suite << "': " << c.ok << " of " << c.rows.size() << " pairs finished, " << c.failed
      << " failed, " << c.missing << " missing" << (c.complete() ? "" : " - INCOMPLETE") << "\n";
  return c.complete() ? 0 : 2;
}

int suiteTask(const std::string& planFile, int index, bool force, std::ostream& err) {
  const Plan plan = loadPlan(planFile);
  if (index < 0 || static_cast<size_t>(index) >= plan.pairs.size())
    throw std::runtime_error("suite plan '" + planFile + "' has " + std::to_string(plan.pairs.size()) +
                             " pairs: no pair " + std::to_string(index));
  TaskOptions options;
  options.threads = std::atoi(env("SLURM_CPUS_PER_TASK").c_str());
  options.startEpoch = std::atof(env("NFT_SUITE_T0").c_str());
  options.slurmJobId = env("SLURM_ARRAY_JOB_ID");
  options.slurmTaskId = env("SLURM_ARRAY_TASK_ID");
  options.force = force;
  const Pair& pair = plan.pairs[static_cast<size_t>(index)];
  const PairOutcome outcome = runPair(plan, pair, options);
  err << "nft_eval: " << pair.clip << " x " << pair.config << " (" << pair.id << "): "
      << (outcome.status == PairOutcome::Status::Ok       ? "ok"
          : outcome.status == PairOutcome::Status::Skipped ? "finished before, skipped"
                                                           : "FAILED: " + outcome.error)
      << "\n";
  return outcome.status == PairOutcome::Status::Failed ? 1 : 0;
}

}  // namespace nft::eval::suite
