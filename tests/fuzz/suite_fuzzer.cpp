// libFuzzer target: the suite-file loader of `nft_eval suite` (suite/suite_spec.h, loadSuite) on
// arbitrary text, through a scratch suite file.
//
// loadSuite checks that every file a suite names exists, so the harness writes the suite into a
// scratch folder of its own that also holds the files the seeds (corpus/suite/) name by relative
// paths — a folder of frames, a video, a target, a gt.tsv, a calibration, config files: the seeds
// load on every machine, and the fuzzer reaches the frame ranges, names and sweeps behind the
// path checks. The loader only checks that they exist and counts a clip's frames (the files of a
// folder; a video's container count, 0 = unknown for a file FFmpeg cannot open), never decodes
// them, so they hold placeholder bytes; `video` has no extension, so FFmpeg refuses it silently
// instead of logging a complaint for each input. (One seed also names opencv-doc's Megamind.avi,
// which scripts/install-deps.sh installs, for a real frame count.) The config files are real
// partial configs, which the loader parses.
// Contract: std::runtime_error whose message names the suite file — never another exception, a
// crash, a hang or a sanitizer report — or a SuiteSpec that keeps the header's promises: a name
// and clip names of [A-Za-z0-9._-] only, clip names unique; at least one clip, whose video exists
// (file or folder) and whose target, ground truth and calibration are existing files or ""; frame
// ranges from 0 with last >= first (or -1: to the end); 1..10000 configs of distinct hashes, each
// the stableHash of its complete YAML, which the config schema parses back to the same text; a
// grid's swept keys on every config's params; Slurm values in their documented ranges.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "config/config.h"
#include "suite/suite_files.h"
#include "suite/suite_spec.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace fs = std::filesystem;
using nft::fuzz::contractBroken;

constexpr const char* kTarget = "suite_fuzzer";

/// The scratch folder (TMPDIR, named with the process id) with the files the seeds name;
/// removed at exit.
class SuiteFolder {
 public:
  SuiteFolder() : folder_(fs::temp_directory_path() / ("nft_fuzz_suite_" + std::to_string(::getpid()))) {
    fs::remove_all(folder_);
    fs::create_directories(folder_ / "frames");
    fs::create_directories(folder_ / "cfg");
    for (const char* frame : {"000.png", "001.png", "002.png"}) write("frames/" + std::string(frame), "placeholder");
    write("video", "placeholder");
    write("target.png", "placeholder");
    write("gt.tsv", "placeholder");
    write("camera.yml", "placeholder");
    write("base.yaml", "tracking:\n  max_patches: 50\n");
    write("strict.yaml", "tracking:\n  min_ncc: 0.85\n");
    write("cfg/with_camera.yaml", "camera:\n  calibration: ../camera.yml\n");
    // Absolute and normalised, as loadSuite names the file in its messages and SuiteSpec::source.
    suite_ = fs::absolute(folder_ / "suite.yaml").lexically_normal().string();
  }
  ~SuiteFolder() {
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }
  SuiteFolder(const SuiteFolder&) = delete;
  SuiteFolder& operator=(const SuiteFolder&) = delete;

  /// Writes (replaces) a file of the folder; aborts if it cannot (a broken set-up, not a finding).
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(folder_ / name, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::perror((folder_ / name).c_str());
      std::abort();
    }
  }
  const std::string& suite() const { return suite_; }

 private:
  fs::path folder_;
  std::string suite_;
};

bool safeName(const std::string& name) {
  if (name.empty()) return false;
  for (const char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

/// An absolute path to an existing regular file (or also a folder where `folderOk`).
bool existing(const std::string& path, bool folderOk) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  return !ec && fs::path(path).is_absolute() && (fs::is_regular_file(st) || (folderOk && fs::is_directory(st)));
}

void checkPromises(const nft::eval::suite::SuiteSpec& s, const std::string& file) {
  if (!safeName(s.name)) contractBroken(kTarget, "suite name '" + s.name + "' is not a safe file name");
  if (s.source != file) contractBroken(kTarget, "source '" + s.source + "' is not the suite file");
  if (s.clips.empty()) contractBroken(kTarget, "loaded a suite without clips");
  std::set<std::string> names;
  for (const nft::eval::suite::ClipSpec& c : s.clips) {
    if (!safeName(c.name) || !names.insert(c.name).second)
      contractBroken(kTarget, "clip name '" + c.name + "' is unsafe or repeated");
    if (!existing(c.video, true) || !existing(c.target, false) ||
        (!c.groundTruth.empty() && !existing(c.groundTruth, false)) ||
        (!c.calibration.empty() && !existing(c.calibration, false)))
      contractBroken(kTarget, "clip '" + c.name + "' names a file that does not exist:\n" + c.identity());
    if (c.firstFrame < 0 || (c.lastFrame != -1 && c.lastFrame < c.firstFrame) || (c.lastFrame == -1 && c.firstFrame != 0))
      contractBroken(kTarget, "clip '" + c.name + "' has the frame range " + std::to_string(c.firstFrame) + ".." +
                                  std::to_string(c.lastFrame));
    if (c.line < 1) contractBroken(kTarget, "clip '" + c.name + "' has no line");
  }
  if (s.configs.empty() || s.configs.size() > 10000)
    contractBroken(kTarget, std::to_string(s.configs.size()) + " configs, expected 1..10000");
  std::set<std::string> hashes;
  for (const nft::eval::suite::ConfigSpec& c : s.configs) {
    if (c.name.empty()) contractBroken(kTarget, "a config without a name");
    if (c.hash != nft::eval::suite::stableHash(c.yaml) || !hashes.insert(c.hash).second)
      contractBroken(kTarget, "config '" + c.name + "': hash " + c.hash + " is not its YAML's or is repeated");
    std::string again;
    try {
      again = nft::config::toYaml(nft::config::parseConfig(c.yaml, "<suite config>"));
    } catch (const nft::config::ConfigError& e) {
      contractBroken(kTarget, "config '" + c.name + "' does not parse: " + e.what() + "\n" + c.yaml);
    }
    if (again != c.yaml) contractBroken(kTarget, "config '" + c.name + "' is not its schema's complete YAML");
    std::set<std::string> keys;
    for (const auto& [key, value] : c.params) keys.insert(key);
    if (keys != std::set<std::string>(s.sweptKeys.begin(), s.sweptKeys.end()))
      contractBroken(kTarget, "config '" + c.name + "': its params are not the swept keys");
  }
  const nft::eval::suite::SlurmSpec& slurm = s.slurm;
  if (slurm.cpusPerTask < 1 || slurm.cpusPerTask > 1024 || slurm.maxParallel < 0 || slurm.maxParallel > 1000000 ||
      slurm.maxArraySize < 1 || slurm.maxArraySize > 4000000)
    contractBroken(kTarget, "Slurm values out of range");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const SuiteFolder folder;
  folder.write("suite.yaml", std::string(reinterpret_cast<const char*>(data), size));
  nft::eval::suite::SuiteSpec suite;
  try {
    suite = nft::eval::suite::loadSuite(folder.suite());
  } catch (const std::runtime_error& e) {
    // Refused with a message: fine, if the message says which suite file.
    if (std::string(e.what()).find(folder.suite()) == std::string::npos)
      contractBroken(kTarget, std::string("error without the suite file's name: ") + e.what());
    return 0;
  } catch (const std::exception& e) {
    contractBroken(kTarget, std::string("not a std::runtime_error: ") + e.what());
  }
  checkPromises(suite, folder.suite());
  return 0;
}
