#include "suite/suite_task.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "suite/ground_truth.h"
#include "suite/suite_clip_range.h"
#include "suite/suite_files.h"
#include "suite/suite_frame_errors.h"
#include "suite/suite_process.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

/// The replay's error: its report's "error"; else a sanitizer's report line; else, for nft_replay's
/// (or a baseline's nft_eval's) own error exit (a non-zero status), its last "nft_replay: " (or
/// "nft_eval: ") line; else (a signal) how it ended.
std::string replayError(const fs::path& folder, const ProcessExit& exit) {
  try {
    const nlohmann::json report = nlohmann::json::parse(readText(folder / "report.json"));
    if (report.contains("error") && report["error"].is_string()) return report["error"].get<std::string>();
  } catch (const std::exception&) {
    // no report (the replay stopped before writing one): look at what it printed
  }
  std::ifstream log(folder / "replay.log");
  std::string line, lastOwn, sanitizer;
  while (std::getline(log, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    for (const std::string program : {"nft_replay: ", "nft_eval: "})  // (a baseline's pair runs nft_eval)
      if (line.rfind(program, 0) == 0 && line.find("warning") == std::string::npos) lastOwn = line.substr(program.size());
    if (sanitizer.empty() && (line.find("runtime error:") != std::string::npos ||
                              line.find("ERROR: AddressSanitizer") != std::string::npos ||
                              line.find("ERROR: LeakSanitizer") != std::string::npos))
      sanitizer = line;
  }
  if (!sanitizer.empty()) return sanitizer;
  if (exit.exitStatus > 0 && !lastOwn.empty()) return lastOwn;
  return "nft_replay ended with " + exit.describe() + " (its output: replay.log)";
}

/// Replaces `final` (a failed result, or nothing) with `temporary`; when `final` is a finished
/// pair already (another runner got there first), `temporary` is discarded.
void moveIntoPlace(const fs::path& temporary, const fs::path& final, const Plan& plan, const Pair& pair) {
  std::error_code ec;
  fs::rename(temporary, final, ec);
  if (!ec) return;
  if (pairFinished(plan, pair)) {  // a concurrent run finished it: keep that one
    fs::remove_all(temporary, ec);
    return;
  }
  const fs::path old = final.string() + ".old-" + hostAndPid();
  fs::rename(final, old, ec);
  if (ec) throw std::runtime_error("cannot replace '" + final.string() + "': " + ec.message());
  fs::rename(temporary, final, ec);
  if (ec) throw std::runtime_error("cannot move '" + temporary.string() + "' to '" + final.string() + "': " + ec.message());
  fs::remove_all(old, ec);
}

nlohmann::json nullIfEmpty(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

bool pairFinished(const Plan& plan, const Pair& pair) {
  const fs::path result = plan.pairDir(pair) / "result.json";
  std::error_code ec;
  if (!fs::exists(result, ec)) return false;
  try {
    return nlohmann::json::parse(readText(result)).at("status").get<std::string>() == "ok";
  } catch (const std::exception&) {
    return false;  // unreadable: not finished, run again
  }
}

PairOutcome runPair(const Plan& plan, const Pair& pair, const TaskOptions& options) {
  PairOutcome outcome;
  const double started = epochSeconds();
  const double startEpoch = options.startEpoch > 0 ? options.startEpoch : started;
  if (!options.force && pairFinished(plan, pair)) {
    outcome.status = PairOutcome::Status::Skipped;
    return outcome;
  }
  const fs::path final = plan.pairDir(pair);
  const fs::path temporary = final.parent_path() / (".tmp-" + pair.id + "-" + hostAndPid() + "-" +
                                                    std::to_string(static_cast<long long>(started * 1e6)));
  std::error_code ec;
  fs::create_directories(temporary, ec);
  if (ec) throw std::runtime_error("cannot create folder '" + temporary.string() + "': " + ec.message());

  nlohmann::json result = {{"pair", pair.id},
                           {"clip", pair.clip},
                           {"config", pair.config},
                           {"config_hash", pair.configHash},
                           {"params", pair.params},
                           {"host", hostAndPid()},
                           {"slurm_job_id", nullIfEmpty(options.slurmJobId)},
                           {"slurm_array_task_id", nullIfEmpty(options.slurmTaskId)},
                           {"started", started}};
  std::string video = pair.video, groundTruth = pair.groundTruth, error;
  ProcessExit exit;
  try {
    // Our tracker's pair: nft_replay with the config; a baseline's: nft_eval baseline, given the
    // same input flags.
    std::vector<std::string> argv = {plan.replayBinary, "--config", pair.configFile};
    if (!pair.baseline.empty()) {
      if (plan.evalBinary.empty())
        throw std::runtime_error("the plan names no nft_eval program to run the baseline '" + pair.baseline +
                                 "' (a plan of an older nft_eval): run `nft_eval suite run` again");
      argv = {plan.evalBinary, "baseline", "--method", pair.baseline, "--every", std::to_string(pair.every)};
    }
    if (!pair.preset.empty()) {
      // A synthetic clip: nft_replay renders it and scores it by its own exact ground truth; the
      // same corners, written into the pair's folder, give the per-frame errors.
      replay::SyntheticSequenceOptions o;
      o.preset = *replay::parseSyntheticPreset(pair.preset);  // checked when the suite was loaded
      o.frameSize = cv::Size(pair.width, pair.height);
      o.targetFraction = pair.targetFraction;
      o.frames = pair.lastFrame + 1;
      groundTruth = (temporary / "gt.tsv").string();
      replay::saveGroundTruth(groundTruth, replay::SyntheticSequence(o).groundTruth());
      argv.insert(argv.end(), {"--synthetic-preset", pair.preset, "--synthetic-size",
                               std::to_string(pair.width) + "x" + std::to_string(pair.height), "--synthetic-frames",
                               std::to_string(o.frames)});
      if (pair.targetFraction > 0) {
        char fraction[32];
        std::snprintf(fraction, sizeof fraction, "%.17g", pair.targetFraction);
        argv.insert(argv.end(), {"--synthetic-target-fraction", fraction});
      }
    } else {
      argv.insert(argv.end(), {"--target", pair.target});
      if (pair.firstFrame > 0) {
        const double cutStart = epochSeconds();
        const CutClip cut =
            cutClipRange(pair.video, pair.groundTruth, pair.firstFrame, pair.lastFrame, temporary / "input");
        video = cut.video;
        groundTruth = cut.groundTruth;
        outcome.prepareSeconds = epochSeconds() - cutStart;
      } else if (pair.lastFrame >= 0) {
        argv.insert(argv.end(), {"--frames", std::to_string(pair.lastFrame + 1)});
      }
      argv.insert(argv.end(), {"--video", video});
      if (!groundTruth.empty()) argv.insert(argv.end(), {"--gt", groundTruth});
    }
    if (pair.baseline.empty()) {
      if (!pair.calibration.empty()) argv.insert(argv.end(), {"--calib", pair.calibration});
      if (!plan.render) argv.push_back("--no-render");
    }
    argv.insert(argv.end(), {"--report", (temporary / "report.json").string(), "--poses",
                             (temporary / "poses.csv").string(), "--progress", "0"});
    std::vector<std::string> environment;
    if (options.threads > 0)
      environment = {"OPENCV_FOR_THREADS_NUM=" + std::to_string(options.threads),
                     "LP_NUM_THREADS=" + std::to_string(options.threads)};
    exit = runLogged(argv, (temporary / "replay.log").string(), environment);
    outcome.replaySeconds = exit.seconds;
    if (!exit.succeeded()) error = replayError(temporary, exit);
    if (error.empty() && !groundTruth.empty()) {
      nlohmann::json errors = nlohmann::json::array();
      for (const double e : frameErrors((temporary / "poses.csv").string(), groundTruth))
        errors.push_back(std::isfinite(e) ? nlohmann::json(e) : nlohmann::json(nullptr));
      result["errors_px"] = errors;
      // The visible errors need the frames' size: the replay's report gives it.
      const nlohmann::json report = nlohmann::json::parse(readText(temporary / "report.json"));
      if (report.contains("frame_size") && report["frame_size"].is_array() && report["frame_size"].size() == 2) {
        const cv::Size size(report["frame_size"][0].get<int>(), report["frame_size"][1].get<int>());
        nlohmann::json visible = nlohmann::json::array();
        for (const double e : frameVisibleErrors((temporary / "poses.csv").string(), groundTruth, size))
          visible.push_back(std::isfinite(e) ? nlohmann::json(e) : nlohmann::json(nullptr));
        result["visible_errors_px"] = visible;
      }
    }
  } catch (const std::exception& e) {
    error = e.what();  // an input that cannot be cut, a replay that cannot start: the pair fails
  }
  fs::remove_all(temporary / "input", ec);
  outcome.status = error.empty() ? PairOutcome::Status::Ok : PairOutcome::Status::Failed;
  outcome.error = error;
  const double finished = epochSeconds();
  outcome.taskSeconds = finished - startEpoch;
  result["status"] = error.empty() ? "ok" : "failed";
  result["error"] = nullIfEmpty(error);
  result["exit_status"] = exit.exitStatus;
  result["signal"] = exit.signal;
  result["replay_s"] = outcome.replaySeconds;
  result["prepare_s"] = outcome.prepareSeconds;
  result["task_s"] = outcome.taskSeconds;
  result["task_started"] = startEpoch;
  result["finished"] = finished;
  if (!result.contains("errors_px")) result["errors_px"] = nullptr;
  if (!result.contains("visible_errors_px")) result["visible_errors_px"] = nullptr;
  writeTextAtomically(temporary / "result.json", result.dump(1) + "\n");
  moveIntoPlace(temporary, final, plan, pair);
  return outcome;
}

}  // namespace nft::eval::suite
