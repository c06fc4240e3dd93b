#include "suite/suite_spec.h"

#include <opencv2/videoio.hpp>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>

#include "suite/suite_files.h"
#include "suite/suite_sweep.h"
#include "suite/suite_yaml.h"
#include "synthetic/synthetic_presets.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

// --- aliases --------------------------------------------------------------------------------

/// Finds the first alias (*name) of a map or a list in a YAML document, through yaml-cpp's event
/// API. yaml-cpp makes such an alias the anchored node itself, so one inside its own anchor
/// (`x: &a {tracking: *a}`) builds a node that contains itself, and the sweep's walks of a config
/// (suite_sweep.cpp) never ended: the stack overflowed (found writing tests/fuzz/suite_fuzzer.cpp;
/// its seed regress-alias-cycle.yaml); nested aliases of lists would also grow exponentially when
/// merged ("billion laughs"). Aliases of scalars are harmless and stay allowed.
class CollectionAliasFinder : public YAML::EventHandler {
 public:
  YAML::Mark found = YAML::Mark::null_mark();  ///< where the first such alias is

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (found.is_null() && collections_.count(anchor) > 0) found = mark;
  }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    collections_.insert(anchor);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    collections_.insert(anchor);
  }
  void OnMapEnd() override {}

 private:
  std::set<YAML::anchor_t> collections_;  // anchors of maps and lists (NullAnchor, 0, never aliased)
};

// --- clips ----------------------------------------------------------------------------------

void readFrames(const SuiteReader& r, const YAML::Node& node, const std::string& entry, ClipSpec& clip) {
  if (node.IsScalar()) {
    const int n = r.integer(node, entry, 1, 100000000);
    clip.firstFrame = 0;
    clip.lastFrame = n - 1;
    return;
  }
  if (!node.IsSequence() || node.size() != 2)
    r.fail(node, entry, "expected [FIRST, LAST] (frames from 0, inclusive) or N (the first N frames)");
  clip.firstFrame = r.integer(node[0], entry + "[0]", 0, 100000000);
  clip.lastFrame = r.integer(node[1], entry + "[1]", 0, 100000000);
  if (clip.lastFrame < clip.firstFrame)
    r.fail(node, entry, "the last frame (" + std::to_string(clip.lastFrame) + ") is before the first (" +
                            std::to_string(clip.firstFrame) + ")");
}

/// Frames a video declares (its container's count) or a folder's images; 0 when unknown.
int declaredFrames(const std::string& video) {
  if (fs::is_directory(video)) {
    int images = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(video)) images += e.is_regular_file() ? 1 : 0;
    return images;
  }
  cv::VideoCapture capture(video, cv::CAP_FFMPEG);  // FFmpeg only: no other backend's complaints on stderr
  return capture.isOpened() ? static_cast<int>(capture.get(cv::CAP_PROP_FRAME_COUNT)) : 0;
}

/// A synthetic clip (`preset:`): the preset, its frame size, target fraction and length.
void readSyntheticClip(const SuiteReader& r, const YAML::Node& c, const std::string& entry, ClipSpec& clip) {
  for (const char* key : {"video", "target", "ground_truth", "calibration"})
    if (c[key])
      r.fail(c[key], entry + "." + key,
             "a synthetic clip ('preset') brings its own frames, target, camera and ground truth: remove '" +
                 std::string(key) + "'");
  r.checkKeys(c, entry, {"name", "preset", "size", "target_fraction", "frames", "baselines"});
  clip.preset = r.string(c["preset"], entry + ".preset");
  const std::optional<replay::SyntheticPreset> preset = replay::parseSyntheticPreset(clip.preset);
  if (!preset) r.fail(c["preset"], entry + ".preset", "'" + clip.preset + "': expected one of " + replay::syntheticPresetNames());
  if (const YAML::Node size = c["size"]) {
    const std::string text = r.string(size, entry + ".size");
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w < 64 || h < 64 || w > 8192 ||
        h > 8192)
      r.fail(size, entry + ".size", "'" + text + "': expected WxH, each side in [64, 8192], e.g. 1280x720");
    clip.width = w;
    clip.height = h;
  }
  if (const YAML::Node fraction = c["target_fraction"]) {
    double f = 0;
    try {
      f = fraction.IsScalar() ? fraction.as<double>() : 0;
    } catch (const YAML::Exception&) {
      f = 0;
    }
    if (!(f > 0 && f <= 1))
      r.fail(fraction, entry + ".target_fraction", "expected a number in (0, 1]: the target's share of the frame's area");
    if (*preset == replay::SyntheticPreset::Default)
      r.fail(fraction, entry + ".target_fraction", "the default sequence keeps its own target size: give a POT preset");
    clip.targetFraction = f;
  }
  clip.firstFrame = 0;
  clip.lastFrame = replay::SyntheticSequenceOptions().frames - 1;
  if (const YAML::Node frames = c["frames"]) {
    if (!frames.IsScalar())
      r.fail(frames, entry + ".frames", "a synthetic clip starts at its first frame: give its length N, not a range");
    clip.lastFrame = r.integer(frames, entry + ".frames", 1, 100000) - 1;
  }
  clip.name = safeFileName(c["name"] ? r.string(c["name"], entry + ".name")
                                     : clip.preset + "-" + std::to_string(clip.width) + "x" + std::to_string(clip.height));
}

std::vector<ClipSpec> readClips(const SuiteReader& r, const YAML::Node& clips) {
  if (!clips) r.fail(0, "clips", "missing: the suite needs a list of clips");
  if (!clips.IsSequence() || clips.size() == 0) r.fail(clips, "clips", "expected a non-empty list of clips");
  std::vector<ClipSpec> out;
  for (size_t i = 0; i < clips.size(); ++i) {
    const YAML::Node c = clips[i];
    const std::string entry = "clips[" + std::to_string(i) + "]";
    r.requireMap(c, entry);
    ClipSpec clip;
    clip.line = lineOf(c);
    if (c["preset"]) {
      readSyntheticClip(r, c, entry, clip);
    } else {
      r.checkKeys(c, entry,
                  {"name", "video", "target", "ground_truth", "calibration", "frames", "preset", "baselines"});
      if (!c["video"]) r.fail(c, entry, "missing 'video' (a video file or a folder of frames) or 'preset'");
      if (!c["target"]) r.fail(c, entry, "missing 'target' (a target image or .nftm model)");
      clip.video = r.existingPath(c["video"], entry + ".video", true);
      clip.target = r.existingPath(c["target"], entry + ".target", false);
      if (c["ground_truth"]) clip.groundTruth = r.existingPath(c["ground_truth"], entry + ".ground_truth", false);
      if (c["calibration"]) clip.calibration = r.existingPath(c["calibration"], entry + ".calibration", false);
      if (c["frames"]) {
        readFrames(r, c["frames"], entry + ".frames", clip);
        const int count = declaredFrames(clip.video);
        if (count > 0 && clip.firstFrame >= count)
          r.fail(c["frames"], entry + ".frames",
                 "the range starts at frame " + std::to_string(clip.firstFrame) + " but '" + clip.video + "' has " +
                     std::to_string(count) + " frames (numbered from 0)");
      }
      const fs::path video(clip.video);
      const std::string defaultName = fs::is_directory(video) ? video.filename().string() : video.stem().string();
      clip.name = safeFileName(c["name"] ? r.string(c["name"], entry + ".name") : defaultName);
    }
    if (c["baselines"]) clip.baselines = r.boolean(c["baselines"], entry + ".baselines");
    for (size_t j = 0; j < out.size(); ++j)
      if (out[j].name == clip.name)
        r.fail(c, entry, "clip name '" + clip.name + "' is also clips[" + std::to_string(j) + "]'s (line " +
                             std::to_string(out[j].line) + "): give each clip its own 'name'");
    out.push_back(clip);
  }
  return out;
}

/// The `baselines:` section: a map from method to null or {every: N}; a method may not share
/// its name with a config (the tables name both the same way).
std::vector<BaselineSpec> readBaselines(const SuiteReader& r, const YAML::Node& node,
                                        const std::vector<ConfigSpec>& configs) {
  r.requireMap(node, "baselines");
  std::vector<BaselineSpec> out;
  for (const auto& kv : node) {
    BaselineSpec b;
    b.method = r.string(kv.first, "baselines");
    b.line = lineOf(kv.first);
    const std::string entry = "baselines." + b.method;
    if (b.method != "sift" && b.method != "orb")
      r.fail(kv.first, entry, "unknown baseline: expected sift or orb (nft_eval baseline --method)");
    if (!kv.second.IsNull()) {
      r.requireMap(kv.second, entry);
      r.checkKeys(kv.second, entry, {"every"});
      if (kv.second["every"]) b.every = r.integer(kv.second["every"], entry + ".every", 1, 100000);
    }
    for (const ConfigSpec& c : configs)
      if (c.name == b.method)
        r.fail(kv.first, entry, "the config '" + c.name + "' (line " + std::to_string(c.line) +
                                    ") has the baseline's name: rename the config");
    out.push_back(b);
  }
  return out;
}

void readSlurm(const SuiteReader& r, const YAML::Node& node, SlurmSpec& slurm) {
  r.requireMap(node, "slurm");
  r.checkKeys(node, "slurm",
              {"partition", "time", "mem", "cpus_per_task", "max_parallel", "max_array_size", "sbatch_args"});
  if (node["partition"]) slurm.partition = r.string(node["partition"], "slurm.partition");
  if (node["time"]) slurm.time = r.string(node["time"], "slurm.time");
  if (node["mem"]) slurm.mem = r.string(node["mem"], "slurm.mem");
  if (node["cpus_per_task"]) slurm.cpusPerTask = r.integer(node["cpus_per_task"], "slurm.cpus_per_task", 1, 1024);
  if (node["max_parallel"]) slurm.maxParallel = r.integer(node["max_parallel"], "slurm.max_parallel", 0, 1000000);
  if (node["max_array_size"])
    slurm.maxArraySize = r.integer(node["max_array_size"], "slurm.max_array_size", 1, 4000000);
  if (const YAML::Node args = node["sbatch_args"]) {
    if (!args.IsSequence()) r.fail(args, "slurm.sbatch_args", "expected a list of sbatch options");
    for (size_t i = 0; i < args.size(); ++i)
      slurm.extraArgs.push_back(r.string(args[i], "slurm.sbatch_args[" + std::to_string(i) + "]"));
  }
}

}  // namespace

std::string ClipSpec::identity() const {
  std::string id = "video=" + video + "\ntarget=" + target + "\nground_truth=" + groundTruth +
                   "\ncalibration=" + calibration + "\nframes=" + std::to_string(firstFrame) + ".." +
                   std::to_string(lastFrame) + "\n";
  if (!preset.empty()) {  // (a video clip's identity stays as it was: its finished pairs are kept)
    char fraction[32];
    std::snprintf(fraction, sizeof fraction, "%.17g", targetFraction);
    id += "preset=" + preset + "\nsize=" + std::to_string(width) + "x" + std::to_string(height) +
          "\ntarget_fraction=" + fraction + "\n";
  }
  return id;
}

std::string BaselineSpec::identity() const {
  return "baseline=" + method + "\nevery=" + std::to_string(every) + "\n";
}

std::string BaselineSpec::hash() const { return stableHash(identity()); }

SuiteSpec loadSuite(const std::string& path) {
  const std::string file = fs::absolute(path).lexically_normal().string();
  if (!fs::is_regular_file(file)) throw std::runtime_error("suite file '" + path + "' does not exist");
  YAML::Node root;
  CollectionAliasFinder aliases;
  try {
    root = YAML::LoadFile(file);
    std::ifstream in(file);
    YAML::Parser parser(in);
    parser.HandleNextDocument(aliases);  // the document LoadFile read (the first)
  } catch (const YAML::Exception& e) {
    const std::string where = e.mark.is_null() ? file
                                               : file + ":" + std::to_string(e.mark.line + 1) + ":" +
                                                     std::to_string(e.mark.column + 1);
    throw std::runtime_error(where + ": not valid YAML: " + e.msg);
  }
  const SuiteReader r(file);
  if (!aliases.found.is_null())
    r.fail(aliases.found.line + 1, "alias",
           "an alias (*name) of a map or a list is not supported in a suite file: write the entries out");
  if (!root.IsMap()) r.fail(root, "suite", "expected a map with 'clips' and optionally 'sweep', 'name', ...");
  r.checkKeys(root, "", {"name", "base_config", "clips", "sweep", "baselines", "replay", "slurm"});

  SuiteSpec suite;
  suite.source = file;
  suite.name = root["name"] ? safeFileName(r.string(root["name"], "name")) : safeFileName(fs::path(file).stem().string());
  suite.clips = readClips(r, root["clips"]);
  suite.configs = readSweep(r, root["base_config"], root["sweep"], suite.sweptKeys);
  if (const YAML::Node baselines = root["baselines"]) suite.baselines = readBaselines(r, baselines, suite.configs);

  if (const YAML::Node replay = root["replay"]) {
    r.requireMap(replay, "replay");
    r.checkKeys(replay, "replay", {"render"});
    if (replay["render"]) suite.render = r.boolean(replay["render"], "replay.render");
  }
  if (const YAML::Node slurm = root["slurm"]) readSlurm(r, slurm, suite.slurm);
  return suite;
}

}  // namespace nft::eval::suite
