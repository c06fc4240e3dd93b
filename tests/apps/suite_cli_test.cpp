// `nft_eval suite` run as a user runs it: help, a bad suite, --slurm without sbatch or with an
// sbatch that refuses, a stand-in sbatch whose batch script is then run task by task (what Slurm
// does), and on ../shared/data a real run whose collected row equals nft_replay's own report.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "suite/ground_truth.h"
#include "suite/suite_files.h"
#include "suite/suite_support.h"
#include "support/test_data.h"

namespace {

namespace fs = std::filesystem;
using nft::testing::ProgramRun;
using nft::testing::quoted;
using nft::testing::writeFile;

ProgramRun runEval(const std::string& args, const std::string& environment = "") {
  return nft::testing::runProgram(NFT_EVAL_BINARY, args, environment);
}

/// A folder with a suite of 2 clips × 2 configs for the stand-in replay.
class SuiteCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = nft::testing::freshTempDir("nft_suite_cli");
    writeFile(dir_ / "v.avi", "");
    writeFile(dir_ / "t.png", "");
    nft::testing::writeFakeGroundTruth(dir_ / "gt.tsv", 10);
    writeFile(dir_ / "s.yaml",
              "clips:\n  - {name: a, video: v.avi, target: t.png, ground_truth: gt.tsv}\n"
              "  - {name: b, video: v.avi, target: t.png}\n"
              "sweep:\n  grid:\n    tracking.min_ncc: [0.6, 0.8]\n"
              "slurm:\n  partition: short\n  time: '5'\n");
    replay_ = nft::testing::writeFakeReplay(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string runArgs(const std::string& extra) const {
    return "suite run " + quoted(dir_ / "s.yaml") + " --out " + quoted(dir_ / "out") + " --replay " + quoted(replay_) +
           " " + extra;
  }

  fs::path dir_, replay_;
};

TEST(NftEvalSuiteCli, HelpListsRunAndCollectWithTheirOptions) {
  const ProgramRun r = runEval("suite --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("collect"), std::string::npos) << r.output;
  const ProgramRun run = runEval("suite run --help");
  for (const char* option : {"--out", "--jobs", "--slurm", "--partition", "--time", "--mem", "--cpus-per-task",
                             "--max-parallel", "--max-array-size", "--sbatch-arg", "--force", "--replay"})
    EXPECT_NE(run.output.find(option), std::string::npos) << option << " missing from\n" << run.output;
}

TEST_F(SuiteCliTest, ABadSuiteExitsWithItsFileAndLineAndWritesNothing) {
  writeFile(dir_ / "bad.yaml", "clips:\n  - {video: v.avi, target: t.png}\nsweep:\n  grid:\n    tracking.bogus: [1]\n");
  const ProgramRun r = runEval("suite run " + quoted(dir_ / "bad.yaml") + " --out " + quoted(dir_ / "out"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find((dir_ / "bad.yaml").string() + ":5: sweep.grid: tracking.bogus: unknown key"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(SuiteCliTest, SlurmWithoutSbatchOrWithARefusingSbatchSaysSoAndSubmitsNothing) {
  ProgramRun r = runEval(runArgs("--slurm --sbatch sbatch-not-installed-here"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("'sbatch-not-installed-here' was not found in PATH"), std::string::npos) << r.output;
  writeFile(dir_ / "refusing_sbatch.sh", "#!/bin/sh\necho 'sbatch: error: invalid partition specified: short' >&2\nexit 1\n");
  fs::permissions(dir_ / "refusing_sbatch.sh", fs::perms::owner_all);
  r = runEval(runArgs("--slurm --sbatch " + quoted(dir_ / "refusing_sbatch.sh")));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("sbatch refused the job array"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("invalid partition specified: short"), std::string::npos) << r.output;
  // Nothing is reported as complete.
  r = runEval("suite collect " + quoted(dir_ / "out"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("0 of 4 pairs finished, 0 failed, 4 missing - INCOMPLETE"), std::string::npos) << r.output;
}

TEST_F(SuiteCliTest, TheSubmittedBatchScriptRunTaskByTaskCompletesTheSuite) {
  // A stand-in sbatch: records its arguments, prints a job id as --parsable does.
  writeFile(dir_ / "sbatch.sh", "#!/bin/sh\necho \"$@\" > " + quoted(dir_ / "sbatch_args") + "\necho '4242;cluster'\n");
  fs::permissions(dir_ / "sbatch.sh", fs::perms::owner_all);
  ProgramRun r = runEval(runArgs("--slurm --sbatch " + quoted(dir_ / "sbatch.sh") + " --time 00:07:00 --sbatch-arg=--account=lab"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\n4242\n"), std::string::npos) << "the job id alone on its line:\n" << r.output;
  const std::string args = nft::eval::suite::readText(dir_ / "sbatch_args");
  EXPECT_NE(args.find("--parsable --account=lab "), std::string::npos) << args;
  const std::string scriptPath = args.substr(args.rfind(' ') + 1, args.find('\n') - args.rfind(' ') - 1);
  const std::string script = nft::eval::suite::readText(scriptPath);
  EXPECT_NE(script.find("#SBATCH --array=0-3\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=short\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --time=00:07:00\n"), std::string::npos) << script;  // the flag overrides the suite
  // What Slurm would do: run the script once per array task.
  for (int task = 0; task < 4; ++task) {
    const ProgramRun t = nft::testing::runProgram("/bin/sh", quoted(fs::path(scriptPath)),
                                                  "SLURM_ARRAY_JOB_ID=4242 SLURM_ARRAY_TASK_ID=" + std::to_string(task));
    EXPECT_EQ(t.status, 0) << t.output;
  }
  r = runEval("suite collect " + quoted(dir_ / "out"));
  EXPECT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(nft::eval::suite::readText(dir_ / "out" / "results.json"));
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["rows"][0]["success_5px"], 0.9);
  // A second --slurm has nothing to submit.
  r = runEval(runArgs("--slurm --sbatch " + quoted(dir_ / "sbatch.sh")));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("every pair is finished: nothing to submit"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("4242"), std::string::npos) << r.output;
}

TEST(NftEvalSuiteSynthetic, APresetClipsRowsEqualNftReplaysAndTheBaselinesOwnReportsAndItsGroundTruthIsTheSequences) {
  const fs::path dir = nft::testing::freshTempDir("nft_suite_preset");
  const nft::testing::RemovedAtEnd cleanup{dir};
  writeFile(dir / "s.yaml", "clips:\n  - preset: occlusion\n    size: 800x600\n    target_fraction: 0.1\n"
                            "    frames: 12\nbaselines:\n  sift: {every: 4}\n");
  ProgramRun r = runEval("suite run " + quoted(dir / "s.yaml") + " --out " + quoted(dir / "out"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = runEval("suite collect " + quoted(dir / "out"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json rows = nlohmann::json::parse(nft::eval::suite::readText(dir / "out" / "results.json"))["rows"];
  ASSERT_EQ(rows.size(), 2u);
  const nlohmann::json& row = rows[0];
  EXPECT_EQ(row["clip"], "occlusion-800x600");
  // The baseline's row: nft_eval baseline on frames 0, 4 and 8, as when run by hand.
  const nlohmann::json& sift = rows[1];
  EXPECT_EQ(sift["config"], "sift");
  EXPECT_EQ(sift["baseline"], "sift");
  EXPECT_EQ(sift["frames"], 3);
  r = runEval("baseline --synthetic-preset occlusion --synthetic-size 800x600 --synthetic-target-fraction 0.1 "
              "--synthetic-frames 12 --every 4 --report " + quoted(dir / "sift.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json siftDirect = nlohmann::json::parse(nft::eval::suite::readText(dir / "sift.json"));
  EXPECT_EQ(sift["found_fraction"], siftDirect["found_fraction"]);
  EXPECT_EQ(sift["success_5px"], siftDirect["ground_truth"]["success_5px"]);
  EXPECT_EQ(sift["median_error_px"], siftDirect["ground_truth"]["median_error_px"]);
  EXPECT_NE(nft::eval::suite::readText(dir / "out" / "results.md").find("## Baseline `sift` (`nft_eval baseline`, "
                                                                         "per-frame OpenCV on one frame in 4)"),
            std::string::npos);
  r = nft::testing::runProgram(NFT_REPLAY_BINARY,
                               "--synthetic-preset occlusion --synthetic-size 800x600 --synthetic-target-fraction 0.1 "
                               "--synthetic-frames 12 --no-render --progress 0 --report " + quoted(dir / "direct.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json direct = nlohmann::json::parse(nft::eval::suite::readText(dir / "direct.json"));
  EXPECT_EQ(row["frames"], 12);
  EXPECT_EQ(row["frames"], direct["frames"]);
  EXPECT_EQ(row["found_fraction"], direct["found_fraction"]);
  EXPECT_EQ(row["success_5px"], direct["ground_truth"]["success_5px"]);
  EXPECT_EQ(row["median_error_px"], direct["ground_truth"]["median_error_px"]);
  EXPECT_EQ(row["visible_success_5px"], direct["ground_truth"]["visible_success_5px"]);
  EXPECT_GT(row["success_5px"].get<double>(), 0.9);
  // The pair's gt.tsv is the sequence's exact ground truth (to its 4 decimals), every frame.
  nft::replay::SyntheticSequenceOptions o;
  o.preset = nft::replay::SyntheticPreset::Occlusion;
  o.frameSize = cv::Size(800, 600);
  o.targetFraction = 0.1;
  o.frames = 12;
  const std::vector<nft::replay::QuadCorners> exact = nft::replay::SyntheticSequence(o).groundTruth();
  const fs::path pair = dir / "out" / "pairs" / row["pair"].get<std::string>();
  const std::vector<nft::replay::QuadCorners> written = nft::replay::loadGroundTruth((pair / "gt.tsv").string());
  ASSERT_EQ(written.size(), exact.size());
  for (size_t i = 0; i < exact.size(); ++i)
    for (size_t k = 0; k < 4; ++k) EXPECT_LT(cv::norm(written[i][k] - exact[i][k]), 1e-3) << "frame " << i;
  // The config's overall values come from the per-frame errors against it: the same success (a
  // frame within 0.001 px of 5 px might fall the other side).
  const nlohmann::json configs =
      nlohmann::json::parse(nft::eval::suite::readText(dir / "out" / "results.json"))["configs"];
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_NEAR(configs[0]["success_5px"].get<double>(), row["success_5px"].get<double>(), 1.0 / 12 + 1e-9);
  EXPECT_EQ(configs[1]["baseline"], "sift");
  EXPECT_EQ(configs[1]["every"], 4);
  EXPECT_NEAR(configs[1]["success_5px"].get<double>(), sift["success_5px"].get<double>(), 1.0 / 3 + 1e-9);
}

TEST(NftEvalSuiteData, ARealRunsRowEqualsNftReplaysOwnReport) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const fs::path dir = nft::testing::freshTempDir("nft_suite_data");
  const nft::testing::RemovedAtEnd cleanup{dir};
  const fs::path d = nft::testing::dataDir() / "video" / "tmt_bookI";
  writeFile(dir / "s.yaml", "clips:\n  - name: bookI\n    video: " + (d / "video.mp4").string() + "\n    target: " +
                                (d / "target.png").string() + "\n    ground_truth: " + (d / "gt.tsv").string() +
                                "\n    frames: 40\nsweep:\n  grid:\n    tracking.min_ncc: [0.7, 0.8]\n");
  ProgramRun r = runEval("suite run " + quoted(dir / "s.yaml") + " --out " + quoted(dir / "out") + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.output;
  r = runEval("suite collect " + quoted(dir / "out"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json rows = nlohmann::json::parse(nft::eval::suite::readText(dir / "out" / "results.json"))["rows"];
  ASSERT_EQ(rows.size(), 2u);
  // The same replay by hand, with the pair's own config file.
  writeFile(dir / "c.yaml", "tracking:\n  min_ncc: 0.7\n");
  r = nft::testing::runProgram(NFT_REPLAY_BINARY, "--target " + quoted(d / "target.png") + " --video " +
                                                      quoted(d / "video.mp4") + " --gt " + quoted(d / "gt.tsv") +
                                                      " --config " + quoted(dir / "c.yaml") +
                                                      " --frames 40 --no-render --progress 0 --report " +
                                                      quoted(dir / "direct.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json direct = nlohmann::json::parse(nft::eval::suite::readText(dir / "direct.json"));
  const nlohmann::json& row = rows[0];
  EXPECT_EQ(row["config"], "tracking.min_ncc=0.7");
  EXPECT_EQ(row["frames"], 40);
  EXPECT_EQ(row["frames"], direct["frames"]);
  EXPECT_EQ(row["found_fraction"], direct["found_fraction"]);
  EXPECT_EQ(row["success_5px"], direct["ground_truth"]["success_5px"]);
  EXPECT_EQ(row["success_10px"], direct["ground_truth"]["success_10px"]);
  EXPECT_EQ(row["median_error_px"], direct["ground_truth"]["median_error_px"]);
  EXPECT_EQ(row["visible_success_5px"], direct["ground_truth"]["visible_success_5px"]);
  EXPECT_EQ(row["median_visible_error_px"], direct["ground_truth"]["median_visible_error_px"]);
  EXPECT_GT(row["success_5px"].get<double>(), 0.9);
  EXPECT_GT(row["visible_success_5px"].get<double>(), 0.9);
  // The config's summary, from the visible errors of the pose CSV's corners (rounded to 0.001 px:
  // one frame might fall the other side of 5 px), agrees with the row's.
  const nlohmann::json configs =
      nlohmann::json::parse(nft::eval::suite::readText(dir / "out" / "results.json"))["configs"];
  int matched = 0;
  for (const nlohmann::json& config : configs)
    if (config["config"] == row["config"]) {
      ++matched;
      EXPECT_NEAR(config["visible_success_5px"].get<double>(), row["visible_success_5px"].get<double>(), 1.0 / 40 + 1e-9);
    }
  EXPECT_EQ(matched, 1);
  EXPECT_TRUE(fs::exists(dir / "out" / "plots" / "success.png"));
}

}  // namespace
