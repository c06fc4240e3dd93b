// The suite file (suite/suite_spec.h) and the plan made from it (suite_plan.h): clips and
// grids expand as documented, configs are checked by the config schema with the suite's line,
// equal configs hash equally, and an output folder of another suite is refused.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "suite/suite_files.h"
#include "suite/suite_plan.h"
#include "suite/suite_spec.h"
#include "suite/suite_support.h"
#include "support/test_data.h"

namespace {

namespace fs = std::filesystem;
using namespace nft::eval::suite;
using nft::testing::writeFile;

/// A folder with a 20-frame video, a target and a gt.tsv, and suite files written into it.
class SuiteSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = nft::testing::freshTempDir("nft_suite_spec");
    nft::testing::writeTinyVideo(dir_ / "clip.avi", 20);
    writeFile(dir_ / "target.png", "not read by loadSuite");
    nft::testing::writeFakeGroundTruth(dir_ / "gt.tsv", 20);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path suite(const std::string& text, const std::string& name = "s.yaml") {
    writeFile(dir_ / name, text);
    return dir_ / name;
  }
  /// loadSuite's error message for `text` ("" when it loads).
  std::string errorOf(const std::string& text) {
    try {
      loadSuite(suite(text).string());
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

const char* kClip = "clips:\n  - video: clip.avi\n    target: target.png\n";

TEST_F(SuiteSpecTest, ClipsResolveAgainstTheSuiteFolderAndTheGridExpandsInOrder) {
  const SuiteSpec s = loadSuite(suite(std::string(kClip) +
                                      "    ground_truth: gt.tsv\n"
                                      "    frames: 5\n"
                                      "  - name: late\n    video: clip.avi\n    target: target.png\n    frames: [10, 14]\n"
                                      "sweep:\n  grid:\n    tracking.min_ncc: [0.6, 0.8]\n"
                                      "    ransac.threshold_px: [2, 3, 4]\n")
                                    .string());
  ASSERT_EQ(s.clips.size(), 2u);
  EXPECT_EQ(s.name, "s");
  EXPECT_EQ(s.clips[0].name, "clip");  // the video's name
  EXPECT_EQ(s.clips[0].video, (dir_ / "clip.avi").string());
  EXPECT_EQ(s.clips[0].groundTruth, (dir_ / "gt.tsv").string());
  EXPECT_EQ(s.clips[0].firstFrame, 0);
  EXPECT_EQ(s.clips[0].lastFrame, 4);
  EXPECT_EQ(s.clips[1].name, "late");
  EXPECT_EQ(s.clips[1].firstFrame, 10);
  EXPECT_EQ(s.clips[1].lastFrame, 14);
  ASSERT_EQ(s.configs.size(), 6u);
  EXPECT_EQ(s.configs[0].name, "tracking.min_ncc=0.6 ransac.threshold_px=2");
  EXPECT_EQ(s.configs[1].name, "tracking.min_ncc=0.6 ransac.threshold_px=3");
  EXPECT_EQ(s.configs[5].name, "tracking.min_ncc=0.8 ransac.threshold_px=4");
  EXPECT_EQ(s.configs[5].params.at("ransac.threshold_px"), "4");
  EXPECT_EQ(s.sweptKeys, (std::vector<std::string>{"tracking.min_ncc", "ransac.threshold_px"}));
  // The complete config carries the swept values.
  EXPECT_NE(s.configs[5].yaml.find("min_ncc: 0.8"), std::string::npos) << s.configs[5].yaml;
  EXPECT_NE(s.configs[5].yaml.find("threshold_px: 4"), std::string::npos) << s.configs[5].yaml;
}

TEST_F(SuiteSpecTest, WithoutASweepTheSuiteHasTheDefaultConfig) {
  const SuiteSpec s = loadSuite(suite(kClip).string());
  ASSERT_EQ(s.configs.size(), 1u);
  EXPECT_EQ(s.configs[0].name, "default");
  EXPECT_TRUE(s.sweptKeys.empty());
}

TEST_F(SuiteSpecTest, BadEntriesAreRefusedNamingTheSuiteFileAndLine) {
  const std::string file = (dir_ / "s.yaml").string();
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {std::string(kClip) + "colour: red\n", file + ":4: colour: unknown key"},
      {"name: x\n", file + ": clips: missing"},
      {"clips:\n  - video: nope.mp4\n    target: target.png\n",
       file + ":2: clips[0].video '" + (dir_ / "nope.mp4").string() + "': no such file or folder"},
      {"clips:\n  - video: clip.avi\n", file + ":2: clips[0]: missing 'target'"},
      {std::string(kClip) + "sweep:\n  grid:\n    tracking.min_nc: [0.7]\n",
       file + ":6: sweep.grid: tracking.min_nc: unknown key"},
      {std::string(kClip) + "sweep:\n  grid:\n    tracking.min_ncc:\n      - 0.7\n      - 1.5\n",
       file + ":8: sweep.grid: tracking.min_ncc = 1.5: expected a number in [-1, 1]"},
      {std::string(kClip) + "sweep:\n  configs:\n    a: {tracking: {min_ncc: \"0.5\"}}\n",
       file + ":6: sweep.configs.a: tracking.min_ncc = \"0.5\": expected a number"},
      {std::string(kClip) + "    frames: [5, 3]\n", file + ":4: clips[0].frames: the last frame (3) is before the first (5)"},
      {std::string(kClip) + "    frames: [50, 60]\n", "clips[0].frames: the range starts at frame 50 but"},
      {std::string(kClip) + "    frames: many\n", file + ":4: clips[0].frames: expected an integer"},
      {std::string(kClip) + "  - video: clip.avi\n    target: target.png\n",
       file + ":4: clips[1]: clip name 'clip' is also clips[0]'s (line 2)"},
      {std::string(kClip) + "sweep:\n  configs:\n    a: null\n    b: {tracking: {min_ncc: 0.7}}\n",
       file + ":7: sweep: config 'b' is the same configuration as 'a' (line 6)"},
      {std::string(kClip) + "sweep:\n  grid: {tracking.min_ncc: [1]}\n  configs: {a: null}\n",
       "sweep: give either 'grid' or 'configs', not both"},
      {"clips: [a, {b: 1]\n", file + ":1:17: not valid YAML"},
      {std::string(kClip) + "slurm:\n  cpus_per_task: 0\n", file + ":5: slurm.cpus_per_task = 0: expected an integer in [1, 1024]"},
      // An alias of a map inside its own anchor made a node that contains itself: the sweep's walk
      // overflowed the stack (found by tests/fuzz/suite_fuzzer.cpp).
      {std::string(kClip) + "sweep:\n  configs:\n    x: &a {tracking: *a}\n",
       file + ":6: alias: an alias (*name) of a map or a list is not supported"},
  };
  for (const Case& c : cases) {
    const std::string error = errorOf(c.text);
    EXPECT_NE(error.find(c.expected), std::string::npos) << "suite:\n" << c.text << "\nerror: " << error;
  }
}

TEST_F(SuiteSpecTest, ASyntheticClipIsAPresetWithItsSizeTargetFractionAndLength) {
  const SuiteSpec s = loadSuite(suite("clips:\n  - preset: scale\n"
                                      "  - name: hd_blur\n    preset: motion_blur\n    size: 1280x720\n"
                                      "    target_fraction: 0.0625\n    frames: 40\n"
                                      "  - preset: bent_page\n    size: 1280x720\n")
                                    .string());
  ASSERT_EQ(s.clips.size(), 3u);
  EXPECT_EQ(s.clips[0].name, "scale-640x480");  // the preset's name and size
  EXPECT_EQ(s.clips[0].preset, "scale");
  EXPECT_EQ(s.clips[0].width, 640);
  EXPECT_EQ(s.clips[0].height, 480);
  EXPECT_EQ(s.clips[0].targetFraction, 0.0);
  EXPECT_EQ(s.clips[0].lastFrame, 299);  // the synthetic sequence's default length, 300
  EXPECT_TRUE(s.clips[0].video.empty());
  EXPECT_TRUE(s.clips[0].groundTruth.empty());
  EXPECT_EQ(s.clips[1].name, "hd_blur");
  EXPECT_EQ(s.clips[1].width, 1280);
  EXPECT_EQ(s.clips[1].height, 720);
  EXPECT_EQ(s.clips[1].targetFraction, 0.0625);
  EXPECT_EQ(s.clips[1].firstFrame, 0);
  EXPECT_EQ(s.clips[1].lastFrame, 39);
  EXPECT_EQ(s.clips[2].name, "bent_page-1280x720");
  // The plan carries them, and the size and fraction are part of the pair's identity.
  const Plan plan = makePlan(s, (dir_ / "out").string(), "/bin/true");
  ASSERT_EQ(plan.pairs.size(), 3u);
  EXPECT_EQ(plan.pairs[1].preset, "motion_blur");
  EXPECT_EQ(plan.pairs[1].width, 1280);
  EXPECT_EQ(plan.pairs[1].targetFraction, 0.0625);
  const Plan back = loadPlan([&] {
    writeFile(dir_ / "plan.json", planToJson(plan).dump());
    return dir_ / "plan.json";
  }());
  EXPECT_EQ(back.pairs[1].preset, "motion_blur");
  EXPECT_EQ(back.pairs[1].height, 720);
  EXPECT_EQ(back.pairs[1].targetFraction, 0.0625);
  EXPECT_EQ(back.pairs[1].lastFrame, 39);
  ClipSpec other = s.clips[1];
  other.targetFraction = 0.125;
  EXPECT_NE(other.identity(), s.clips[1].identity());
  other = s.clips[1];
  other.width = 1920;
  EXPECT_NE(other.identity(), s.clips[1].identity());
  // A video clip's identity is what it was before synthetic clips existed (finished pairs are kept).
  ClipSpec video;
  video.video = "v.mp4";
  video.target = "t.png";
  EXPECT_EQ(video.identity(), "video=v.mp4\ntarget=t.png\nground_truth=\ncalibration=\nframes=0..-1\n");

  const std::string file = (dir_ / "s.yaml").string();
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"clips:\n  - preset: blur\n", file + ":2: clips[0].preset: 'blur': expected one of default, scale"},
      {"clips:\n  - preset: scale\n    size: 1280\n", file + ":3: clips[0].size: '1280': expected WxH"},
      {"clips:\n  - preset: scale\n    size: 32x32\n", "expected WxH, each side in [64, 8192]"},
      {"clips:\n  - preset: scale\n    target_fraction: 2\n", file + ":3: clips[0].target_fraction: expected a number in (0, 1]"},
      {"clips:\n  - preset: default\n    target_fraction: 0.1\n", "the default sequence keeps its own target size"},
      {"clips:\n  - preset: scale\n    frames: [10, 20]\n", file + ":3: clips[0].frames: a synthetic clip starts at its first frame"},
      {"clips:\n  - preset: scale\n    video: clip.avi\n",
       file + ":3: clips[0].video: a synthetic clip ('preset') brings its own frames, target, camera and ground truth"},
      {"clips:\n  - preset: scale\n    seed: 3\n", file + ":3: clips[0].seed: unknown key: expected one of name, preset"},
      {"clips:\n  - preset: scale\n  - preset: scale\n", ":3: clips[1]: clip name 'scale-640x480' is also clips[0]'s"},
  };
  for (const Case& c : cases) {
    const std::string error = errorOf(c.text);
    EXPECT_NE(error.find(c.expected), std::string::npos) << "suite:\n" << c.text << "\nerror: " << error;
  }
}

TEST_F(SuiteSpecTest, BaselinesRunBesideTheConfigsOnEveryClipThatDoesNotOptOut) {
  const SuiteSpec s = loadSuite(suite(std::string(kClip) + "    ground_truth: gt.tsv\n"
                                                           "  - {preset: scale, frames: 30, baselines: false}\n"
                                                           "  - {name: late, video: clip.avi, target: target.png, "
                                                           "frames: [10, 14]}\n"
                                                           "sweep:\n  grid:\n    tracking.min_ncc: [0.6, 0.8]\n"
                                                           "baselines:\n  sift: {every: 5}\n  orb: null\n")
                                    .string());
  ASSERT_EQ(s.baselines.size(), 2u);
  EXPECT_EQ(s.baselines[0].method, "sift");
  EXPECT_EQ(s.baselines[0].every, 5);
  EXPECT_EQ(s.baselines[1].method, "orb");
  EXPECT_EQ(s.baselines[1].every, 1);
  EXPECT_TRUE(s.clips[0].baselines);
  EXPECT_FALSE(s.clips[1].baselines);
  const Plan plan = makePlan(s, (dir_ / "out").string(), "/bin/true", "/usr/bin/nft_eval");
  EXPECT_EQ(plan.evalBinary, "/usr/bin/nft_eval");
  // clip: 2 configs + 2 baselines; scale: 2 configs; late: 2 configs + 2 baselines.
  ASSERT_EQ(plan.pairs.size(), 10u);
  const Pair& sift = plan.pairs[2];
  EXPECT_EQ(sift.clip, "clip");
  EXPECT_EQ(sift.config, "sift");
  EXPECT_EQ(sift.baseline, "sift");
  EXPECT_EQ(sift.every, 5);
  EXPECT_EQ(sift.configHash, s.baselines[0].hash());
  EXPECT_TRUE(sift.configFile.empty());
  EXPECT_EQ(sift.groundTruth, (dir_ / "gt.tsv").string());
  EXPECT_EQ(plan.pairs[3].config, "orb");
  EXPECT_EQ(plan.pairs[4].clip, "scale-640x480");
  EXPECT_EQ(plan.pairs[5].clip, "scale-640x480");
  EXPECT_TRUE(plan.pairs[5].baseline.empty());
  EXPECT_EQ(plan.pairs[8].clip, "late");
  EXPECT_EQ(plan.pairs[8].baseline, "sift");
  EXPECT_EQ(plan.pairs[8].firstFrame, 10);
  EXPECT_NE(plan.pairs[8].id, sift.id);  // the clip's identity is in the id
  // Round trip; "every" is part of the identity.
  prepareOutDir(plan, s);
  const Plan back = loadPlan(dir_ / "out" / "suite.json");
  EXPECT_EQ(back.evalBinary, "/usr/bin/nft_eval");
  EXPECT_EQ(back.pairs[2].baseline, "sift");
  EXPECT_EQ(back.pairs[2].every, 5);
  EXPECT_EQ(back.pairs[2].id, sift.id);
  BaselineSpec often = s.baselines[0];
  often.every = 1;
  EXPECT_NE(often.hash(), s.baselines[0].hash());

  const std::string file = (dir_ / "s.yaml").string();
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {std::string(kClip) + "baselines:\n  brisk: null\n", file + ":5: baselines.brisk: unknown baseline: expected sift or orb"},
      {std::string(kClip) + "baselines:\n  sift: {every: 0}\n", file + ":5: baselines.sift.every = 0: expected an integer in [1, 100000]"},
      {std::string(kClip) + "baselines:\n  sift: {often: 2}\n", file + ":5: baselines.sift.often: unknown key"},
      {std::string(kClip) + "baselines: [sift]\n", file + ":4: baselines: expected a map"},
      {std::string(kClip) + "    baselines: maybe\n", file + ":4: clips[0].baselines: expected true or false"},
      {std::string(kClip) + "sweep:\n  configs:\n    sift: {tracking: {min_ncc: 0.7}}\nbaselines:\n  sift: null\n",
       file + ":8: baselines.sift: the config 'sift' (line 6) has the baseline's name"},
  };
  for (const Case& c : cases) {
    const std::string error = errorOf(c.text);
    EXPECT_NE(error.find(c.expected), std::string::npos) << "suite:\n" << c.text << "\nerror: " << error;
  }
}

TEST_F(SuiteSpecTest, AnErrorInANamedConfigFileNamesThatFileAndLine) {
  writeFile(dir_ / "bad.yaml", "tracking:\n  min_ncc: 7\n");
  const std::string error = errorOf(std::string(kClip) + "sweep:\n  configs:\n    bad: bad.yaml\n");
  EXPECT_NE(error.find("s.yaml:6: sweep.configs.bad '" + (dir_ / "bad.yaml").string() + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("bad.yaml:2: tracking.min_ncc = 7"), std::string::npos) << error;
}

TEST_F(SuiteSpecTest, EqualConfigsHashEquallyHoweverWrittenAndPairIdsFollowTheClipsInputs) {
  writeFile(dir_ / "c.yaml", "tracking:\n  min_ncc: 0.8\n");
  const SuiteSpec grid = loadSuite(suite(std::string(kClip) + "sweep:\n  grid:\n    tracking.min_ncc: [0.8]\n", "a.yaml").string());
  const SuiteSpec named =
      loadSuite(suite(std::string(kClip) + "sweep:\n  configs:\n    x: {tracking: {min_ncc: 0.80}}\n", "b.yaml").string());
  const SuiteSpec file = loadSuite(suite(std::string(kClip) + "sweep:\n  configs:\n    y: c.yaml\n", "e.yaml").string());
  EXPECT_EQ(grid.configs[0].hash, named.configs[0].hash);
  EXPECT_EQ(grid.configs[0].hash, file.configs[0].hash);
  EXPECT_NE(grid.configs[0].hash, loadSuite(suite(kClip, "d.yaml").string()).configs[0].hash);
  const Plan a = makePlan(grid, (dir_ / "out").string(), "/bin/true");
  const Plan b = makePlan(named, (dir_ / "out").string(), "/bin/true");
  EXPECT_EQ(a.pairs[0].id, b.pairs[0].id);
  EXPECT_EQ(a.pairs[0].id.rfind("clip-", 0), 0u) << a.pairs[0].id;
  const SuiteSpec shorter = loadSuite(suite(std::string(kClip) + "    frames: 5\nsweep:\n  grid:\n    tracking.min_ncc: [0.8]\n", "c2.yaml").string());
  EXPECT_NE(makePlan(shorter, (dir_ / "out").string(), "/bin/true").pairs[0].id, a.pairs[0].id);
}

TEST_F(SuiteSpecTest, ARelativeCalibrationInAConfigIsMadeAbsoluteFromItsFolder) {
  writeFile(dir_ / "cfg" / "cam.yaml", "%YAML:1.0\n");
  writeFile(dir_ / "cfg" / "with_cam.yaml", "camera:\n  calibration: cam.yaml\n");
  const SuiteSpec s = loadSuite(suite(std::string(kClip) + "sweep:\n  configs:\n    file: cfg/with_cam.yaml\n"
                                                             "    inline: {camera: {calibration: cfg/cam.yaml}, tracking: {min_ncc: 0.6}}\n")
                                    .string());
  ASSERT_EQ(s.configs.size(), 2u);
  for (const ConfigSpec& c : s.configs)
    EXPECT_NE(c.yaml.find((dir_ / "cfg" / "cam.yaml").string()), std::string::npos) << c.yaml;
}

TEST_F(SuiteSpecTest, ThePlanRoundTripsThroughItsJson) {
  const SuiteSpec s = loadSuite(suite(std::string(kClip) + "    ground_truth: gt.tsv\n    frames: [2, 9]\n"
                                                             "sweep:\n  grid:\n    tracking.min_ncc: [0.6, 0.8]\n")
                                    .string());
  const Plan plan = makePlan(s, (dir_ / "out").string(), "/bin/true");
  prepareOutDir(plan, s);
  const Plan back = loadPlan(dir_ / "out" / "suite.json");
  ASSERT_EQ(back.pairs.size(), 2u);
  EXPECT_EQ(back.suite, "s");
  EXPECT_EQ(back.pairs[1].id, plan.pairs[1].id);
  EXPECT_EQ(back.pairs[1].params, plan.pairs[1].params);
  EXPECT_EQ(back.pairs[1].firstFrame, 2);
  EXPECT_EQ(back.pairs[1].lastFrame, 9);
  EXPECT_EQ(back.pairs[1].groundTruth, (dir_ / "gt.tsv").string());
  EXPECT_TRUE(fs::is_regular_file(back.pairs[1].configFile));
  EXPECT_EQ(readText(back.pairs[1].configFile), s.configs[1].yaml);
}

TEST_F(SuiteSpecTest, AnOutputFolderOfAnotherSuiteOrNoSuiteIsRefused) {
  const SuiteSpec a = loadSuite(suite(kClip, "a.yaml").string());
  const SuiteSpec b = loadSuite(suite(kClip, "b.yaml").string());
  const std::string out = (dir_ / "out").string();
  prepareOutDir(makePlan(a, out, "/bin/true"), a);
  prepareOutDir(makePlan(a, out, "/bin/true"), a);  // the same suite again: fine
  try {
    prepareOutDir(makePlan(b, out, "/bin/true"), b);
    FAIL() << "another suite's folder was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds the results of suite 'a', not of 'b'"), std::string::npos) << e.what();
  }
  writeFile(dir_ / "foreign" / "notes.txt", "mine");
  try {
    prepareOutDir(makePlan(b, (dir_ / "foreign").string(), "/bin/true"), b);
    FAIL() << "a foreign folder was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not empty and holds no suite.json"), std::string::npos) << e.what();
  }
}

TEST(SuiteFiles, StableHashIsFnv1a64AndNamesAreSafe) {
  EXPECT_EQ(stableHash(""), "cbf29ce484222325");  // FNV-1a 64 offset basis
  EXPECT_EQ(stableHash("a"), "af63dc4c8601ec8c");  // published FNV-1a 64 test vector
  EXPECT_EQ(safeFileName("tmt bookI/1"), "tmt_bookI_1");
  EXPECT_EQ(safeFileName(""), "_");
}

// The suite file the guide shows (tests/suite/guide_suite.yaml, included by
// docs/programs/nft_eval_suite.md), with its ../shared/data pointed at the data folder: it loads,
// with the clips, the 2 x 2 grid and the Slurm settings the page describes.
TEST(GuideSuite, TheGuidesSuiteFileLoadsAsThePageDescribesIt) {
  NFT_REQUIRE_DATA("video/tmt_bookI");
  NFT_REQUIRE_DATA("video/cmu_book");
  std::ifstream in(std::string(NFT_SOURCE_DIR) + "/tests/suite/guide_suite.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string relative = "../shared/data";
  const std::string data = fs::absolute(nft::testing::dataDir()).lexically_normal().string();
  for (size_t at = 0; (at = yaml.find(relative, at)) != std::string::npos; at += data.size())
    yaml.replace(at, relative.size(), data);
  const fs::path dir = fs::temp_directory_path() / ("nft-guide-suite-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  writeFile(dir / "guide_suite.yaml", yaml);
  const SuiteSpec s = loadSuite((dir / "guide_suite.yaml").string());
  fs::remove_all(dir);
  EXPECT_EQ(s.name, "tmt-sweep");
  ASSERT_EQ(s.clips.size(), 2u);
  EXPECT_EQ(s.clips[0].name, "bookI");
  EXPECT_EQ(s.clips[1].name, "book");  // the video's name
  EXPECT_FALSE(s.clips[0].groundTruth.empty());
  ASSERT_EQ(s.configs.size(), 4u);
  EXPECT_EQ(s.configs[0].name, "tracking.max_patches=25 tracking.patch_size=8");
  EXPECT_EQ(s.configs[3].name, "tracking.max_patches=100 tracking.patch_size=16");
  EXPECT_FALSE(s.render);
  EXPECT_EQ(s.slurm.partition, "batch");
  EXPECT_EQ(s.slurm.time, "00:30:00");
  EXPECT_EQ(s.slurm.mem, "2G");
}

}  // namespace
