#pragma once
// The plan of a suite run: every (clip, config) pair with what its replay needs, as written into
// the output folder (OUT/suite.json) where the local runner, the Slurm array tasks (on other
// hosts, through a shared filesystem) and `suite collect` read it.
//
// Output folder layout:
//   OUT/suite.json             the plan of the last `suite run` (the suite's name and file, pairs)
//   OUT/configs/<hash>.yaml    every config, complete (nft_replay --config)
//   OUT/pairs/<pair id>/       a finished pair (moved into place whole, see suite_task.h)
//   OUT/slurm/<plan hash>/     a Slurm submission: its plan, batch script and task logs
//   OUT/results.{csv,json,md}, OUT/plots/   what `suite collect` writes

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/suite_spec.h"

namespace nft::eval::suite {

/// One (clip, config) pair: a replay. Paths absolute.
struct Pair {
  std::string id;      ///< "<clip>-<12 hex digits>": the clip's name and a hash of its config and inputs
  std::string clip;    ///< the clip's name
  std::string config;  ///< the config's name
  std::string configHash;                     ///< ConfigSpec::hash
  std::map<std::string, std::string> params;  ///< the grid values (ConfigSpec::params)
  std::string video, target, groundTruth, calibration;  ///< as in ClipSpec
  int firstFrame = 0;
  int lastFrame = -1;
  std::string configFile;  ///< OUT/configs/<hash>.yaml
  /// A synthetic clip (ClipSpec::preset, "" for a video) and its frame size and target fraction.
  std::string preset;
  int width = 640, height = 480;
  double targetFraction = 0;
  /// A baseline's pair (BaselineSpec): its method ("sift", "orb"; "" for a config's pair, the
  /// replay's) and one frame in `every` run; config is then the method, configFile "".
  std::string baseline;
  int every = 1;
};

/// Everything a runner needs.
struct Plan {
  std::string suite;         ///< the suite's name (identifies the output folder)
  std::string source;        ///< the suite file
  std::string outDir;        ///< the output folder, absolute
  std::string replayBinary;  ///< nft_replay, absolute
  std::string evalBinary;    ///< nft_eval, absolute, which runs the baselines' pairs ("" when none)
  bool render = false;       ///< replays render as well as track
  std::vector<std::string> sweptKeys;
  std::vector<Pair> pairs;   ///< clips in the suite's order, each with every config

  /// OUT/pairs/<id> for pair `p`.
  std::filesystem::path pairDir(const Pair& p) const;
};

/// The plan for `suite` written into `outDir` (made absolute): per clip a pair per config, then
/// (unless the clip says `baselines: false`) a pair per baseline. Pair ids hash the config's YAML
/// (a baseline's identity()) and the clip's identity(), so editing a clip's inputs or frames gives
/// new pairs. `evalBinary`: the nft_eval that runs the baselines (`nft_eval baseline`).
Plan makePlan(const SuiteSpec& suite, const std::string& outDir, const std::string& replayBinary,
              const std::string& evalBinary = "");

/// The plan as JSON: {"suite", "source", "out_dir", "replay", "eval", "render", "swept_keys",
/// "pairs": [{"id", "clip", "config", "config_hash", "params", "video", "target", "ground_truth",
/// "calibration", "first_frame", "last_frame", "config_file", "preset", "size": [W, H],
/// "target_fraction", "baseline", "every"}]} (a plan written before synthetic clips and baselines,
/// without these and "eval", reads as video clips and configs' pairs).
nlohmann::json planToJson(const Plan& plan);

/// Reads a plan written by planToJson(). @throws std::runtime_error naming the file for a file
/// that cannot be read, is not JSON, or lacks a field.
Plan loadPlan(const std::filesystem::path& file);

/// Prepares `plan.outDir` for the plan's suite: creates it when missing and writes the configs of
/// `suite` (OUT/configs/<hash>.yaml) and suite.json, each atomically. Finished pairs stay.
/// @throws std::runtime_error naming the folder when it belongs to another suite (its suite.json
///   names another), is a non-empty folder that is no suite output folder, or cannot be written.
void prepareOutDir(const Plan& plan, const SuiteSpec& suite);

}  // namespace nft::eval::suite
