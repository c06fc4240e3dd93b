#include "suite/suite_plan.h"

#include <stdexcept>

#include "suite/suite_files.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

fs::path Plan::pairDir(const Pair& p) const { return fs::path(outDir) / "pairs" / p.id; }

Plan makePlan(const SuiteSpec& suite, const std::string& outDir, const std::string& replayBinary,
              const std::string& evalBinary) {
  Plan plan;
  plan.suite = suite.name;
  plan.source = suite.source;
  plan.outDir = fs::absolute(outDir).lexically_normal().string();
  while (plan.outDir.size() > 1 && plan.outDir.back() == '/') plan.outDir.pop_back();
  plan.replayBinary = fs::absolute(replayBinary).lexically_normal().string();
  if (!evalBinary.empty()) plan.evalBinary = fs::absolute(evalBinary).lexically_normal().string();
  plan.render = suite.render;
  plan.sweptKeys = suite.sweptKeys;
  const auto clipInputs = [](const ClipSpec& clip, Pair& p) {
    p.clip = clip.name;
    p.video = clip.video;
    p.target = clip.target;
    p.groundTruth = clip.groundTruth;
    p.calibration = clip.calibration;
    p.firstFrame = clip.firstFrame;
    p.lastFrame = clip.lastFrame;
    p.preset = clip.preset;
    p.width = clip.width;
    p.height = clip.height;
    p.targetFraction = clip.targetFraction;
  };
  for (const ClipSpec& clip : suite.clips) {
    for (const ConfigSpec& config : suite.configs) {
      Pair p;
      clipInputs(clip, p);
      p.config = config.name;
      p.configHash = config.hash;
      p.params = config.params;
      // Rendering changes what is measured (fps with rendering): part of the identity too.
      p.id = clip.name + "-" +
             stableHash(config.yaml + "\n" + clip.identity() + (suite.render ? "render\n" : "")).substr(0, 12);
      p.configFile = (fs::path(plan.outDir) / "configs" / (config.hash + ".yaml")).string();
      plan.pairs.push_back(p);
    }
    if (!clip.baselines) continue;
    for (const BaselineSpec& baseline : suite.baselines) {
      Pair p;
      clipInputs(clip, p);
      p.config = baseline.method;
      p.configHash = baseline.hash();
      p.id = clip.name + "-" + stableHash(baseline.identity() + clip.identity()).substr(0, 12);
      p.baseline = baseline.method;
      p.every = baseline.every;
      plan.pairs.push_back(p);
    }
  }
  return plan;
}

nlohmann::json planToJson(const Plan& plan) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const Pair& p : plan.pairs)
    pairs.push_back({{"id", p.id},
                     {"clip", p.clip},
                     {"config", p.config},
                     {"config_hash", p.configHash},
                     {"params", p.params},
                     {"video", p.video},
                     {"target", p.target},
                     {"ground_truth", p.groundTruth},
                     {"calibration", p.calibration},
                     {"first_frame", p.firstFrame},
                     {"last_frame", p.lastFrame},
                     {"config_file", p.configFile},
                     {"preset", p.preset},
                     {"size", {p.width, p.height}},
                     {"target_fraction", p.targetFraction},
                     {"baseline", p.baseline},
                     {"every", p.every}});
  return {{"suite", plan.suite},         {"source", plan.source}, {"out_dir", plan.outDir},
          {"replay", plan.replayBinary}, {"eval", plan.evalBinary}, {"render", plan.render},
          {"swept_keys", plan.sweptKeys},   {"pairs", pairs}};
}

Plan loadPlan(const fs::path& file) {
  const std::string text = readText(file);
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    Plan plan;
    plan.suite = j.at("suite").get<std::string>();
    plan.source = j.at("source").get<std::string>();
    plan.outDir = j.at("out_dir").get<std::string>();
    plan.replayBinary = j.at("replay").get<std::string>();
    plan.evalBinary = j.value("eval", std::string());
    plan.render = j.at("render").get<bool>();
    plan.sweptKeys = j.at("swept_keys").get<std::vector<std::string>>();
    for (const nlohmann::json& q : j.at("pairs")) {
      Pair p;
      p.id = q.at("id").get<std::string>();
      p.clip = q.at("clip").get<std::string>();
      p.config = q.at("config").get<std::string>();
      p.configHash = q.at("config_hash").get<std::string>();
      p.params = q.at("params").get<std::map<std::string, std::string>>();
      p.video = q.at("video").get<std::string>();
      p.target = q.at("target").get<std::string>();
      p.groundTruth = q.at("ground_truth").get<std::string>();
      p.calibration = q.at("calibration").get<std::string>();
      p.firstFrame = q.at("first_frame").get<int>();
      p.lastFrame = q.at("last_frame").get<int>();
      p.configFile = q.at("config_file").get<std::string>();
      p.preset = q.value("preset", std::string());
      if (q.contains("size")) {
        p.width = q.at("size").at(0).get<int>();
        p.height = q.at("size").at(1).get<int>();
      }
      p.targetFraction = q.value("target_fraction", 0.0);
      p.baseline = q.value("baseline", std::string());
      p.every = q.value("every", 1);
      plan.pairs.push_back(p);
    }
    return plan;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("suite plan '" + file.string() + "' cannot be read: " + e.what());
  }
}

void prepareOutDir(const Plan& plan, const SuiteSpec& suite) {
  const fs::path out(plan.outDir);
  const fs::path manifest = out / "suite.json";
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out)) throw std::runtime_error("output folder '" + plan.outDir + "' is a file");
    if (fs::exists(manifest)) {
      std::string previous;
      try {
        previous = nlohmann::json::parse(readText(manifest)).at("suite").get<std::string>();
      } catch (const std::exception& e) {
        throw std::runtime_error("output folder '" + plan.outDir + "': its suite.json cannot be read (" + e.what() +
                                 "): is it a suite output folder?");
      }
      if (previous != plan.suite)
        throw std::runtime_error("output folder '" + plan.outDir + "' holds the results of suite '" + previous +
                                 "', not of '" + plan.suite + "' (" + plan.source +
                                 "): give another --out, or the suite the same 'name'");
    } else if (!fs::is_empty(out)) {
      throw std::runtime_error("output folder '" + plan.outDir +
                               "' is not empty and holds no suite.json: not a suite output folder; give another --out");
    }
  }
  for (const char* sub : {"configs", "pairs"}) {
    fs::create_directories(out / sub, ec);
    if (ec) throw std::runtime_error("cannot create folder '" + (out / sub).string() + "': " + ec.message());
  }
  for (const ConfigSpec& c : suite.configs) {
    const fs::path file = out / "configs" / (c.hash + ".yaml");
    if (!fs::exists(file)) writeTextAtomically(file, c.yaml);
  }
  writeTextAtomically(manifest, planToJson(plan).dump(2) + "\n");
}

}  // namespace nft::eval::suite
