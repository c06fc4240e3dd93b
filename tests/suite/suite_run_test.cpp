// Running and collecting a suite (suite/suite_task, suite_local, suite_collect, suite_plot,
// suite_slurm's script, suite_frame_errors, suite_clip_range) with a stand-in replay program:
// failures are recorded and do not stop the others, reruns skip finished pairs and retry failed
// ones, N replays overlap, the tables aggregate as documented, frame ranges are cut exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "suite/suite_clip_range.h"
#include "suite/suite_collect.h"
#include "suite/suite_files.h"
#include "suite/suite_frame_errors.h"
#include "suite/suite_local.h"
#include "suite/suite_plan.h"
#include "suite/suite_report.h"
#include "suite/suite_slurm.h"
#include "suite/suite_spec.h"
#include "suite/suite_support.h"
#include "suite/suite_task.h"

namespace {

namespace fs = std::filesystem;
using namespace nft::eval::suite;
using nft::testing::writeFile;

/// A suite of three clips ("good" with ground truth, "broken" whose target fails, "other") × two
/// configs, planned into dir/out with the fake replay.
class SuiteRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = nft::testing::freshTempDir("nft_suite_run");
    writeFile(dir_ / "v.avi", "a video the fake replay does not read");
    writeFile(dir_ / "good.png", "");
    writeFile(dir_ / "fail.png", "");
    nft::testing::writeFakeGroundTruth(dir_ / "gt.tsv", 10);
    writeFile(dir_ / "s.yaml",
              "clips:\n"
              "  - {name: good, video: v.avi, target: good.png, ground_truth: gt.tsv}\n"
              "  - {name: broken, video: v.avi, target: fail.png}\n"
              "  - {name: other, video: v.avi, target: good.png, frames: 4}\n"
              "sweep:\n  grid:\n    tracking.min_ncc: [0.6, 0.8]\n");
    suite_ = loadSuite((dir_ / "s.yaml").string());
    plan_ = makePlan(suite_, (dir_ / "out").string(), nft::testing::writeFakeReplay(dir_).string());
    prepareOutDir(plan_, suite_);
    ::setenv("FAKE_REPLAY_LOG", (dir_ / "replay_times.log").c_str(), 1);
    ::setenv("FAKE_REPLAY_FIXED", (dir_ / "fixed").c_str(), 1);
    ::setenv("FAKE_REPLAY_SLEEP", "0", 1);
  }
  void TearDown() override {
    ::unsetenv("FAKE_REPLAY_LOG");
    ::unsetenv("FAKE_REPLAY_FIXED");
    ::unsetenv("FAKE_REPLAY_SLEEP");
    fs::remove_all(dir_);
  }

  fs::path dir_;
  SuiteSpec suite_;
  Plan plan_;
};

TEST_F(SuiteRunTest, AFailedPairIsRecordedAndTheOthersRunThenARerunSkipsFinishedAndRetriesFailed) {
  std::ostringstream log;
  LocalRunSummary s = runLocal(plan_, 2, false, log);
  EXPECT_EQ(s.ran, 6);
  EXPECT_EQ(s.failed, 2);
  EXPECT_EQ(s.skipped, 0);
  EXPECT_NE(log.str().find("broken x tracking.min_ncc=0.6: FAILED (cannot read target"), std::string::npos) << log.str();
  for (const Pair& p : plan_.pairs) {
    const nlohmann::json r = nlohmann::json::parse(readText(plan_.pairDir(p) / "result.json"));
    EXPECT_EQ(r["status"], p.clip == "broken" ? "failed" : "ok") << p.id;
    if (p.clip == "broken") {
      EXPECT_EQ(r["exit_status"], 3);
      EXPECT_EQ(r["error"], "cannot read target '" + (dir_ / "fail.png").string() + "'");
    }
    EXPECT_EQ(pairFinished(plan_, p), p.clip != "broken");
  }
  // No temporary folder is left behind.
  for (const fs::directory_entry& e : fs::directory_iterator(dir_ / "out" / "pairs"))
    EXPECT_EQ(e.path().filename().string().rfind(".tmp-", 0), std::string::npos) << e.path();

  s = runLocal(plan_, 2, false, log);  // still broken: retried, still failed
  EXPECT_EQ(s.skipped, 4);
  EXPECT_EQ(s.ran, 2);
  EXPECT_EQ(s.failed, 2);
  writeFile(dir_ / "fixed", "");  // the cause is fixed: the rerun completes the suite
  s = runLocal(plan_, 1, false, log);
  EXPECT_EQ(s.skipped, 4);
  EXPECT_EQ(s.ran, 2);
  EXPECT_EQ(s.failed, 0);
  EXPECT_TRUE(collectResults(dir_ / "out").complete());
}

TEST_F(SuiteRunTest, JobsTwoRunsTwoReplaysAtOnce) {
  ::setenv("FAKE_REPLAY_SLEEP", "0.4", 1);
  std::ostringstream log;
  writeFile(dir_ / "fixed", "");
  runLocal(plan_, 2, false, log);
  // Each replay logged its start and end: with --jobs 2 some replay starts before another ended.
  std::vector<std::pair<double, double>> spans;
  std::istringstream lines(readText(dir_ / "replay_times.log"));
  std::vector<double> starts, ends;
  for (std::string word; lines >> word;) {
    double t = 0;
    if (word == "start") {
      lines >> t >> word;
      starts.push_back(t);
    } else if (word == "end") {
      lines >> t;
      ends.push_back(t);
    }
  }
  ASSERT_EQ(starts.size(), 6u);
  ASSERT_EQ(ends.size(), 6u);
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  EXPECT_LT(starts[1], ends[0]) << "the second replay started only after the first ended";
  // Never more than two at once: the third starts after the first end.
  EXPECT_GE(starts[2], ends[0]);
}

TEST_F(SuiteRunTest, AReplayKilledByASignalIsRecordedWithIt) {
  writeFile(dir_ / "kill.png", "");
  writeFile(dir_ / "k.yaml", "clips:\n  - {video: v.avi, target: kill.png}\n");
  const SuiteSpec s = loadSuite((dir_ / "k.yaml").string());
  const Plan plan = makePlan(s, (dir_ / "k_out").string(), plan_.replayBinary);
  prepareOutDir(plan, s);
  const PairOutcome o = runPair(plan, plan.pairs[0], {});
  EXPECT_EQ(o.status, PairOutcome::Status::Failed);
  EXPECT_NE(o.error.find("nft_replay ended with killed by signal 9"), std::string::npos) << o.error;
  EXPECT_EQ(o.error.find("trained"), std::string::npos) << "an information line is no error: " << o.error;
  const Collection c = collectResults(dir_ / "k_out");
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].status, "failed");
  EXPECT_EQ(c.rows[0].ending(), "killed by signal 9");
}

TEST_F(SuiteRunTest, ABaselinesPairWithoutAnEvalProgramInThePlanFailsSayingSo) {
  writeFile(dir_ / "b.yaml", "clips:\n  - {name: good, video: v.avi, target: good.png}\nbaselines:\n  sift: null\n");
  const SuiteSpec s = loadSuite((dir_ / "b.yaml").string());
  const Plan plan = makePlan(s, (dir_ / "b_out").string(), plan_.replayBinary);  // no nft_eval
  prepareOutDir(plan, s);
  ASSERT_EQ(plan.pairs.size(), 2u);
  EXPECT_EQ(runPair(plan, plan.pairs[0], {}).status, PairOutcome::Status::Ok);
  const PairOutcome outcome = runPair(plan, plan.pairs[1], {});
  EXPECT_EQ(outcome.status, PairOutcome::Status::Failed);
  EXPECT_NE(outcome.error.find("the plan names no nft_eval program to run the baseline 'sift'"), std::string::npos)
      << outcome.error;
}

TEST_F(SuiteRunTest, CollectAggregatesPerClipAndOverallAndSaysWhatIsMissingOrFailed) {
  std::ostringstream log;
  runLocal(plan_, 2, false, log);
  // One finished pair removed and one "running" (its temporary folder): missing.
  const Pair& removed = plan_.pairs[4];  // other × 0.6
  fs::remove_all(plan_.pairDir(removed));
  fs::create_directories(dir_ / "out" / "pairs" / (".tmp-" + plan_.pairs[5].id + "-host-1-2"));
  fs::remove_all(plan_.pairDir(plan_.pairs[5]));
  const Collection c = collectResults(dir_ / "out");
  EXPECT_EQ(c.ok, 2);
  EXPECT_EQ(c.failed, 2);
  EXPECT_EQ(c.missing, 2);
  EXPECT_FALSE(c.complete());
  ASSERT_EQ(c.configs.size(), 2u);
  const ConfigSummary& first = c.configs[0];
  EXPECT_EQ(first.clips, 3);
  EXPECT_EQ(first.finished, 1);  // good only: broken failed, other missing
  EXPECT_EQ(first.frames, 10);
  EXPECT_EQ(first.found, 9);
  ASSERT_TRUE(first.success5.has_value());
  EXPECT_DOUBLE_EQ(*first.success5, 0.9);  // frame 0 not found, frames 1..9 exact
  EXPECT_DOUBLE_EQ(*first.medianErrorPx, 0.0);
  ASSERT_TRUE(first.visibleSuccess5.has_value());  // the visible errors the task computed (frame_size 64x48)
  EXPECT_DOUBLE_EQ(*first.visibleSuccess5, 0.9);
  EXPECT_DOUBLE_EQ(*first.medianVisibleErrorPx, 0.0);
  EXPECT_DOUBLE_EQ(first.trackerFps, 100.0);
  const PairRow& good = c.rows[0];
  ASSERT_EQ(good.errors.size(), 10u);
  EXPECT_TRUE(std::isinf(good.errors[0]));
  EXPECT_DOUBLE_EQ(good.errors[1], 0.0);
  ASSERT_EQ(good.visibleErrors.size(), 10u);
  EXPECT_TRUE(std::isinf(good.visibleErrors[0]));
  EXPECT_DOUBLE_EQ(good.visibleErrors[1], 0.0);
  EXPECT_DOUBLE_EQ(*good.visibleSuccess5, 0.9);  // the report's own
  EXPECT_FALSE(good.visibleSuccess10.has_value());  // not in the (stand-in replay's) report

  const std::string csv = resultsCsv(c);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7) << csv;
  EXPECT_NE(csv.find("clip,config,pair,status,frames,found_fraction,success_5px,success_10px,median_error_px,"
                     "visible_success_5px,visible_success_10px,median_visible_error_px,tracker_fps,replay_s,task_s,"
                     "exit_status,error,tracking.min_ncc\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("good,tracking.min_ncc=0.6," + plan_.pairs[0].id +
                     ",ok,10,0.900000,0.900000,0.900000,0.0000,0.900000,,0.0000,100.0,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",failed,,,,,,,"), std::string::npos) << csv;
  const std::string md = resultsMarkdown(c);
  EXPECT_NE(md.find("2 of 6 pairs finished — INCOMPLETE (2 failed, 2 missing)"), std::string::npos) << md;
  EXPECT_NE(md.find("| good | 10 | 90.0 % | 90.0 % | 90.0 % | 0.00 | 90.0 % | 0.00 | 100 |"), std::string::npos) << md;
  EXPECT_NE(md.find("(exit status 3)"), std::string::npos) << md;
  EXPECT_NE(md.find("running or interrupted (.tmp-" + plan_.pairs[5].id), std::string::npos) << md;
  EXPECT_NE(md.find("(`pairs/" + removed.id + "`): not run"), std::string::npos) << md;
  const nlohmann::json j = resultsJson(c);
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["rows"].size(), 6u);
  EXPECT_EQ(j["rows"][2]["status"], "failed");
  EXPECT_EQ(j["rows"][2]["exit_status"], 3);
  EXPECT_TRUE(j["rows"][2]["success_5px"].is_null());

  const std::vector<std::string> files = writeCollection(c);
  EXPECT_EQ(files.size(), 5u);
  for (const char* plot : {"success.png", "accuracy_speed.png"}) {
    const cv::Mat image = cv::imread((dir_ / "out" / "plots" / plot).string());
    ASSERT_FALSE(image.empty()) << plot;
    // Something was drawn in the first config's colour (tab10 blue, BGR 180,119,31).
    cv::Mat mask;
    cv::inRange(image, cv::Scalar(170, 109, 21), cv::Scalar(190, 129, 41), mask);
    EXPECT_GT(cv::countNonZero(mask), 20) << plot;
  }
}

TEST(SuiteFrameErrors, CornersAgainstGroundTruthWithNotFoundAsInfinity) {
  const fs::path dir = nft::testing::freshTempDir("nft_suite_errors");
  const nft::testing::RemovedAtEnd cleanup{dir};
  writeFile(dir / "gt.tsv", "h\nf0 0 0 10 0 10 10 0 10\n\nf1 0 0 10 0 10 10 0 10\nf2 0 0 10 0 10 10 0 10\n");
  writeFile(dir / "poses.csv", std::string(nft::testing::kFakePoseHeader) +
                                   "\n0,tracking,0,0,10,0,10,10,0,10,0,0,0,0,0,1,9,0.1,1\n"
                                   "1,tracking,3,4,13,4,13,14,3,14,0,0,0,0,0,1,9,0.1,1\n"
                                   "2,lost,,,,,,,,,,,,,,,,,1\n3,tracking,0,0,10,0,10,10,0,10,0,0,0,0,0,1,9,0.1,1\n");
  const std::vector<double> e = frameErrors((dir / "poses.csv").string(), (dir / "gt.tsv").string());
  ASSERT_EQ(e.size(), 3u);  // frame 3 has no ground truth
  // A baseline's frame not run (nft_eval baseline --every) is not scored, by either error.
  writeFile(dir / "every.csv", std::string(nft::testing::kFakePoseHeader) +
                                   "\n0,detecting,0,0,10,0,10,10,0,10,,,,,,,9,,1\n1,skipped,,,,,,,,,,,,,,,,,\n"
                                   "2,lost,,,,,,,,,,,,,,,,,1\n");
  const std::vector<double> every = frameErrors((dir / "every.csv").string(), (dir / "gt.tsv").string());
  ASSERT_EQ(every.size(), 2u);
  EXPECT_DOUBLE_EQ(every[0], 0.0);
  EXPECT_TRUE(std::isinf(every[1]));
  EXPECT_EQ(frameVisibleErrors((dir / "every.csv").string(), (dir / "gt.tsv").string(), {64, 48}).size(), 2u);
  EXPECT_DOUBLE_EQ(e[0], 0.0);
  EXPECT_DOUBLE_EQ(e[1], 5.0);
  EXPECT_TRUE(std::isinf(e[2]));
  EXPECT_DOUBLE_EQ(successAt(e, 5.0), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(successAt(e, 4.99), 1.0 / 3.0);
  // The visible error: frame 1 is shifted by (3, 4) everywhere, 5 px; in a 5 × 5 frame only the
  // grid's points x, y < 5 count, the same 5 px; in a frame left of the target none (not scored).
  const std::vector<double> v = frameVisibleErrors((dir / "poses.csv").string(), (dir / "gt.tsv").string(), {64, 48});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_NEAR(v[0], 0.0, 1e-9);
  EXPECT_NEAR(v[1], 5.0, 1e-6);
  EXPECT_TRUE(std::isinf(v[2]));
  EXPECT_NEAR(frameVisibleErrors((dir / "poses.csv").string(), (dir / "gt.tsv").string(), {5, 5})[1], 5.0, 1e-6);
  writeFile(dir / "far.tsv", "h\nf0 100 0 110 0 110 10 100 10\n");
  EXPECT_TRUE(frameVisibleErrors((dir / "poses.csv").string(), (dir / "far.tsv").string(), {64, 48}).empty());
  EXPECT_THROW(frameVisibleErrors((dir / "poses.csv").string(), (dir / "gt.tsv").string(), {0, 0}), std::invalid_argument);
  writeFile(dir / "bad.csv", "frame,state\n");
  try {
    frameErrors((dir / "bad.csv").string(), (dir / "gt.tsv").string());
    FAIL();
  } catch (const std::runtime_error& ex) {
    EXPECT_NE(std::string(ex.what()).find("pose CSV '" + (dir / "bad.csv").string() + "': expected the header"),
              std::string::npos)
        << ex.what();
  }
}

TEST(SuiteClipRange, AVideoRangeBecomesTheVeryFramesDecodedAndItsGroundTruthLines) {
  const fs::path dir = nft::testing::freshTempDir("nft_suite_cut");
  const nft::testing::RemovedAtEnd cleanup{dir};
  nft::testing::writeTinyVideo(dir / "v.avi", 12);
  std::string gt = "header\n";
  for (int i = 0; i < 12; ++i) gt += "f" + std::to_string(i) + " " + std::to_string(i) + " 0 1 0 1 1 0 1\n" + (i == 2 ? "\n" : "");
  writeFile(dir / "gt.tsv", gt);
  const CutClip cut = cutClipRange((dir / "v.avi").string(), (dir / "gt.tsv").string(), 4, 7, dir / "cut");
  EXPECT_EQ(cut.frames, 4);
  cv::VideoCapture capture((dir / "v.avi").string());
  cv::Mat frame;
  for (int i = 0; i < 4; ++i) capture.read(frame);
  for (int i = 0; i < 4; ++i) {
    capture.read(frame);
    char name[32];
    std::snprintf(name, sizeof name, "%06d.png", i);
    const cv::Mat written = cv::imread((fs::path(cut.video) / name).string(), cv::IMREAD_COLOR);
    ASSERT_FALSE(written.empty()) << name;
    EXPECT_EQ(cv::norm(written, frame, cv::NORM_INF), 0.0) << "frame " << 4 + i << " changed";
  }
  EXPECT_FALSE(fs::exists(fs::path(cut.video) / "000004.png"));
  EXPECT_EQ(readText(cut.groundTruth), "header\nf4 4 0 1 0 1 1 0 1\nf5 5 0 1 0 1 1 0 1\nf6 6 0 1 0 1 1 0 1\nf7 7 0 1 0 1 1 0 1\n");
  try {
    cutClipRange((dir / "v.avi").string(), "", 30, -1, dir / "cut2");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("video '" + (dir / "v.avi").string() + "' has 12 frames: the range starts at frame 30"),
              std::string::npos)
        << e.what();
  }
}

TEST(SuiteClipRange, AFolderRangeLinksItsImagesInNameOrder) {
  const fs::path dir = nft::testing::freshTempDir("nft_suite_cut_folder");
  const nft::testing::RemovedAtEnd cleanup{dir};
  for (int i = 0; i < 5; ++i) writeFile(dir / "frames" / ("img" + std::to_string(i) + ".png"), std::to_string(i));
  writeFile(dir / "frames" / "notes.txt", "not an image");
  const CutClip cut = cutClipRange((dir / "frames").string(), "", 3, -1, dir / "cut");
  EXPECT_EQ(cut.frames, 2);
  EXPECT_EQ(readText(fs::path(cut.video) / "000000.png"), "3");
  EXPECT_EQ(readText(fs::path(cut.video) / "000001.png"), "4");
}

TEST(SuiteSlurm, TheBatchScriptHoldsTheArrayTheResourcesAndTheTaskCommand) {
  Plan plan;
  plan.suite = "sweep";
  plan.source = "/data/sweep.yaml";
  SlurmOptions o;
  o.spec.partition = "batch";
  o.spec.time = "00:30:00";
  o.spec.mem = "2G";
  o.spec.cpusPerTask = 2;
  o.spec.maxParallel = 3;
  o.evalBinary = "/opt/nft's/nft_eval";
  const std::string s = batchScript(plan, o, "/shared/out/slurm/ab/plan.json", "/shared/out/slurm/ab", 1000, 10);
  for (const char* line : {"#!/bin/sh\n", "#SBATCH --job-name=nft-suite-sweep\n", "#SBATCH --array=0-9%3\n",
                           "#SBATCH --output=/shared/out/slurm/ab/task-%A_%a.log\n", "#SBATCH --cpus-per-task=2\n",
                           "#SBATCH --partition=batch\n", "#SBATCH --time=00:30:00\n", "#SBATCH --mem=2G\n",
                           "NFT_SUITE_T0=$(date +%s.%N)\nexport NFT_SUITE_T0\n",
                           "exec '/opt/nft'\\''s/nft_eval' suite task '/shared/out/slurm/ab/plan.json' \"$((1000 + "
                           "SLURM_ARRAY_TASK_ID))\"\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << " missing from\n" << s;
  // #SBATCH lines must come before the first command.
  EXPECT_LT(s.rfind("#SBATCH"), s.find("NFT_SUITE_T0="));
  o.force = true;  // suite run --force --slurm: the tasks run finished pairs again
  EXPECT_NE(batchScript(plan, o, "/p.json", "/l", 0, 1).find("suite task --force '/p.json'"), std::string::npos);
}

TEST(SuiteSlurm, TheJobIdIsReadFromParsableOutput) {
  EXPECT_EQ(parseJobId("123\n"), "123");
  EXPECT_EQ(parseJobId("sbatch: warning: something\n456;cluster\n"), "456");
  EXPECT_THROW(parseJobId("sbatch: error: Batch job submission failed\n"), std::runtime_error);
}

}  // namespace
