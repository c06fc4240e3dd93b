// `nft_eval tracking` (apps/eval/tracking_eval.h, feature_baseline.h): the scores on hand-made
// errors, the OpenCV baselines on a synthetic view with a known homography, the CLI's errors;
// `nft_eval baseline` (apps/eval/baseline_run.h): one frame in N of a preset scored as the tracking
// evaluation scores SIFT there, a folder of frames with gt.tsv giving what its preset gives; and
// on real data the first 60 frames of tmt_bookI (ours ≥ 90% within 5 px; the baselines run and
// give a row per frame). NFT_EVAL_BINARY is the built program.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "apps/bench_program_run.h"
#include "apps/eval/baseline_run.h"
#include "apps/eval/feature_baseline.h"
#include "apps/eval/tracking_eval.h"
#include "suite/ground_truth.h"
#include "suite/pose_csv.h"
#include "suite/suite_frame_errors.h"
#include "synthetic/synthetic_sequence.h"
#include "support/program_run.h"
#include "support/test_data.h"

namespace nft::eval {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

MethodResult method(std::vector<double> errors) {
  MethodResult m;
  m.method = "m";
  for (double e : errors) m.found += std::isfinite(e) ? 1 : 0;
  m.ms.assign(errors.size(), 1.0);
  m.errorPx = std::move(errors);
  return m;
}

TEST(EvalTrackingScores, SuccessRateCountsFailuresAsInfiniteError) {
  const MethodResult m = method({0.5, 4.0, 5.0, 7.0, kInf});
  EXPECT_DOUBLE_EQ(m.successRate(5.0), 3.0 / 5.0);  // e <= threshold
  EXPECT_DOUBLE_EQ(m.successRate(10.0), 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(m.trackedFraction(), 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(m.medianErrorPx(), 5.0);
  EXPECT_TRUE(std::isinf(method({1.0, kInf, kInf}).medianErrorPx()));  // more than half fail
  EXPECT_DOUBLE_EQ(method({1.0, 3.0}).medianErrorPx(), 2.0);
  EXPECT_TRUE(std::isnan(method({}).medianErrorPx()));
  EXPECT_DOUBLE_EQ(method({}).successRate(5.0), 0.0);
}

TEST(EvalTrackingScores, TheVisibleErrorIsScoredOverItsOwnFrames) {
  MethodResult m = method({1.0, 8.0, 3.0, kInf});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  m.visibleErrorPx = {1.0, 4.0, nan, kInf};  // frame 3: nothing of the grid in the frame
  EXPECT_DOUBLE_EQ(m.successRate(5.0), 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(m.visibleSuccessRate(5.0), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.medianVisibleErrorPx(), 4.0);  // of 1, 4, inf
  EXPECT_TRUE(std::isnan(method({}).medianVisibleErrorPx()));
  EXPECT_DOUBLE_EQ(method({}).visibleSuccessRate(5.0), 0.0);
}

TEST(EvalTrackingScores, SubsetCountsFramesFromOne) {
  const MethodResult m = method({1.0, 20.0, 3.0, kInf, 2.0});
  EXPECT_EQ(m.successIn(2, 4, 10.0), 1);   // frames 2..4: 20, 3, inf
  EXPECT_EQ(m.successIn(1, 99, 10.0), 3);  // clamped to the 5 frames
  EXPECT_EQ(m.successIn(7, 9, 10.0), 0);
}

TEST(EvalTrackingScores, CurveGoesFromZeroToTheLargestThreshold) {
  const MethodResult m = method({0.4, 1.2, 2.0, kInf});
  const auto curve = successCurve(m, 2.0, 0.5);
  ASSERT_EQ(curve.size(), 5u);  // 0, 0.5, 1, 1.5, 2
  EXPECT_DOUBLE_EQ(curve[0].first, 0.0);
  EXPECT_DOUBLE_EQ(curve[0].second, 0.0);
  EXPECT_DOUBLE_EQ(curve[1].second, 0.25);
  EXPECT_DOUBLE_EQ(curve[4].first, 2.0);
  EXPECT_DOUBLE_EQ(curve[4].second, 0.75);
  EXPECT_THROW(successCurve(m, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(successCurve(m, 1.0, 2.0), std::invalid_argument);
}

TEST(EvalTrackingBaselines, ListsParseAndUnknownNamesAreNamed) {
  EXPECT_EQ(parseBaselineList("orb,sift"), (std::vector<BaselineKind>{BaselineKind::Orb, BaselineKind::Sift}));
  EXPECT_TRUE(parseBaselineList("none").empty());
  EXPECT_TRUE(parseBaselineList("").empty());
  try {
    parseBaselineList("orb,surf");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown baseline 'surf'"), std::string::npos) << e.what();
  }
}

TEST(EvalTrackingBaselines, OrbAndSiftFindAWarpedTarget) {
  cv::Mat target(260, 200, CV_8UC1);
  cv::RNG rng(9);
  rng.fill(target, cv::RNG::UNIFORM, 0, 256);
  cv::GaussianBlur(target, target, {0, 0}, 2.0);
  cv::equalizeHist(target, target);
  const cv::Matx33d H(1.1, 0.15, 180.0, -0.1, 1.05, 90.0, 0.0002, 0.0001, 1.0);
  cv::Mat frame(480, 640, CV_8UC1, cv::Scalar(128));
  cv::warpPerspective(target, frame, H, frame.size(), cv::INTER_LINEAR, cv::BORDER_TRANSPARENT);
  std::vector<cv::Point2f> truth;
  cv::perspectiveTransform(std::vector<cv::Point2f>{{0, 0}, {200, 0}, {200, 260}, {0, 260}}, truth, H);
  for (BaselineKind kind : {BaselineKind::Orb, BaselineKind::Sift}) {
    FeatureBaseline baseline(kind, target);
    EXPECT_GT(baseline.targetKeypoints(), 50) << baseline.name();
    const FrameOutcome o = baseline.find(frame);
    ASSERT_TRUE(o.found) << baseline.name();
    ASSERT_EQ(o.corners.size(), 4u);
    for (size_t i = 0; i < 4; ++i) EXPECT_LT(cv::norm(o.corners[i] - truth[i]), 3.0) << baseline.name() << " " << i;
    EXPECT_GT(o.ms, 0.0);
    EXPECT_FALSE(baseline.find(cv::Mat(480, 640, CV_8UC1, cv::Scalar(0))).found) << baseline.name();
  }
  EXPECT_THROW(FeatureBaseline(BaselineKind::Orb, cv::Mat()), std::invalid_argument);
}

// --- nft_eval baseline: a per-frame baseline with nft_replay's inputs and outputs -----------------

testing::ProgramResult runEval(const std::string& args);

/// A fresh temporary folder, removed at the end of the scope.
struct TempFolder {
  std::filesystem::path path;
  explicit TempFolder(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::vector<std::string> csvLines(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(EvalBaselineRun, EveryNthFrameOfAPresetIsRunAndScoredAsTheTrackingEvaluationScoresIt) {
  const TempFolder dir("nft_eval_baseline_run");
  BaselineRunRequest r;
  r.preset = "perspective";
  r.syntheticFrames = 7;
  r.every = 3;
  r.threads = 1;
  r.posesCsv = (dir.path / "poses.csv").string();
  r.reportJson = (dir.path / "report.json").string();
  const nlohmann::json report = runBaseline(r);
  EXPECT_EQ(report["method"], "sift");
  EXPECT_EQ(report["every"], 3);
  EXPECT_EQ(report["frames"], 3);  // frames 0, 3 and 6
  EXPECT_EQ(report["frames_read"], 7);
  EXPECT_EQ(report["frame_size"], nlohmann::json::array({640, 480}));
  ASSERT_TRUE(report["ground_truth"].is_object());
  EXPECT_EQ(report["ground_truth"]["frames"], 3);
  EXPECT_TRUE(std::filesystem::exists(r.reportJson));
  // The pose CSV: nft_replay's header, every frame, the frames not run 'skipped' with no corners.
  const std::vector<std::string> lines = csvLines(r.posesCsv);
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[0], replay::kPoseCsvHeader);
  for (int i : {1, 2, 4, 5}) EXPECT_EQ(lines[static_cast<size_t>(i) + 1], std::to_string(i) + ",skipped,,,,,,,,,,,,,,,,,");
  for (int i : {0, 3, 6}) EXPECT_EQ(lines[static_cast<size_t>(i) + 1].rfind(std::to_string(i) + ",detecting,", 0), 0u);
  // The suite's per-frame errors of that CSV (the skipped frames left out) are nft_eval tracking's
  // SIFT errors on the same frames.
  replay::SyntheticSequenceOptions o;
  o.preset = replay::SyntheticPreset::Perspective;
  o.frames = 7;
  replay::saveGroundTruth((dir.path / "gt.tsv").string(), replay::SyntheticSequence(o).groundTruth());
  const std::vector<double> errors = suite::frameErrors(r.posesCsv, (dir.path / "gt.tsv").string());
  TrackingRequest t;
  t.preset = "perspective";
  t.syntheticFrames = 7;
  t.baselines = {BaselineKind::Sift};
  t.progressEvery = 0;
  const TrackingReport tracking = evaluateTracking(t);
  ASSERT_EQ(tracking.methods.size(), 2u);
  ASSERT_EQ(errors.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(errors[k], tracking.methods[1].errorPx[3 * k], 0.01) << "frame " << 3 * k;
  EXPECT_NE(baselineSummary(report).find("sift on one frame in 3 of synthetic (640x480, seed 8, preset perspective): "
                                         "3 of 7 frames run"),
            std::string::npos)
      << baselineSummary(report);
  r.every = 0;
  EXPECT_THROW(runBaseline(r), std::invalid_argument);
  BaselineRunRequest both = r;
  both.every = 1;
  both.video = "v.mp4";
  EXPECT_THROW(runBaseline(both), std::invalid_argument);  // a clip and a preset
}

TEST(EvalBaselineCli, AVideoWithGroundTruthGivesTheSameAsThePresetItWasWrittenFrom) {
  const TempFolder dir("nft_eval_baseline_cli");
  replay::SyntheticSequenceOptions o;
  o.preset = replay::SyntheticPreset::Scale;
  o.frames = 4;
  const replay::SyntheticSequence sequence(o);
  std::filesystem::create_directories(dir.path / "frames");
  for (int i = 0; i < o.frames; ++i)
    cv::imwrite((dir.path / "frames" / ("frame" + std::to_string(i) + ".png")).string(), sequence.render(i));
  replay::saveGroundTruth((dir.path / "gt.tsv").string(), sequence.groundTruth());
  auto r = runEval("baseline --video " + (dir.path / "frames").string() + " --target " + o.targetPath + " --gt " +
                   (dir.path / "gt.tsv").string() + " --every 2 --report " + (dir.path / "video.json").string() +
                   " --poses " + (dir.path / "video.csv").string());
  ASSERT_EQ(r.exitCode, 0) << r.text;
  EXPECT_NE(r.text.find("nft_eval: sift on one frame in 2 of"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("2 of 4 frames run"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("accuracy over 2 ground-truth frames: success 100.0% at 5 px"), std::string::npos) << r.text;
  r = runEval("baseline --synthetic-preset scale --synthetic-frames 4 --every 2 --report " +
              (dir.path / "preset.json").string());
  ASSERT_EQ(r.exitCode, 0) << r.text;
  const auto load = [](const std::filesystem::path& file) {
    std::ifstream in(file);
    return nlohmann::json::parse(in);
  };
  const nlohmann::json video = load(dir.path / "video.json"), preset = load(dir.path / "preset.json");
  EXPECT_EQ(video["frames"], preset["frames"]);
  EXPECT_EQ(video["found"], preset["found"]);
  EXPECT_EQ(video["ground_truth"]["success_5px"], preset["ground_truth"]["success_5px"]);
  // (the target image read as grey by imread, the preset's converted from BGR: a grey level apart
  // here and there, so SIFT's keypoints differ a little)
  EXPECT_NEAR(video["ground_truth"]["median_error_px"].get<double>(),
              preset["ground_truth"]["median_error_px"].get<double>(), 0.1);
  EXPECT_EQ(csvLines(dir.path / "video.csv").size(), 5u);
  // Errors, each before any work.
  r = runEval("baseline --target t.png");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("give --target and --video (and --gt), or --synthetic-preset alone"), std::string::npos)
      << r.text;
  r = runEval("baseline --method brisk --synthetic-preset scale");
  EXPECT_NE(r.exitCode, 0) << r.text;
  EXPECT_NE(r.text.find("brisk"), std::string::npos) << r.text;
  r = runEval("baseline --target /no/such/t.png --video " + (dir.path / "frames").string());
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("target '/no/such/t.png' does not exist"), std::string::npos) << r.text;
  r = runEval("baseline --synthetic-preset blur");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("unknown preset 'blur'"), std::string::npos) << r.text;
  r = runEval("baseline --help");
  for (const char* option : {"--method", "--every", "--target", "--video", "--gt", "--frames", "--synthetic-preset",
                             "--synthetic-size", "--synthetic-target-fraction", "--poses", "--report"})
    EXPECT_NE(r.text.find(option), std::string::npos) << option << " missing from\n" << r.text;
}

// --- the program -------------------------------------------------------------------------------

testing::ProgramResult runEval(const std::string& args) {
  return testing::runProgramCapturing(NFT_EVAL_BINARY, args);
}

TEST(EvalTrackingCli, HelpListsTheOptions) {
  const auto r = runEval("tracking --help");
  EXPECT_EQ(r.exitCode, 0) << r.text;
  for (const char* option : {"--target", "--video", "--gt", "--config", "--calib", "--baselines", "--out", "--curve",
                             "--frames", "--subset", "--max-threshold", "--step"})
    EXPECT_NE(r.text.find(option), std::string::npos) << option << " missing from\n" << r.text;
}

TEST(EvalTrackingCli, AMissingGroundTruthFileIsNamed) {
  const auto r = runEval("tracking --target /no/target.png --video /no/video.mp4 --gt /no/such/gt.tsv");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("cannot read ground-truth file '/no/such/gt.tsv'"), std::string::npos) << r.text;
}

TEST(EvalTrackingCli, AMissingVideoOrTargetIsNamed) {
  const std::filesystem::path gt = std::filesystem::temp_directory_path() / "nft_eval_tracking_cli_gt.tsv";
  std::ofstream(gt) << "frame\tulx\tuly\turx\tury\tlrx\tlry\tllx\tlly\nf1\t0\t0\t1\t0\t1\t1\t0\t1\n";
  auto r = runEval("tracking --target /no/target.png --video /no/such/video.mp4 --gt " + gt.string());
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("/no/such/video.mp4"), std::string::npos) << r.text;
  // A readable input (a folder with one frame) and a missing target.
  const std::filesystem::path frames = std::filesystem::temp_directory_path() / "nft_eval_tracking_cli_frames";
  std::filesystem::create_directories(frames);
  cv::imwrite((frames / "frame1.png").string(), cv::Mat(48, 64, CV_8UC1, cv::Scalar(90)));
  r = runEval("tracking --target /no/such/target.png --video " + frames.string() + " --gt " + gt.string());
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("target '/no/such/target.png' does not exist"), std::string::npos) << r.text;
  std::filesystem::remove_all(frames);
  std::filesystem::remove(gt);
}

TEST(EvalTrackingCli, BadOptionsAreRefusedBeforeAnyWork) {
  auto r = runEval("tracking --target t.png --video v.mp4 --gt g.tsv --baselines orb,brisk");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("unknown baseline 'brisk'"), std::string::npos) << r.text;
  r = runEval("tracking --target t.png --video v.mp4 --gt g.tsv --subset 300-200");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("--subset '300-200'"), std::string::npos) << r.text;
  r = runEval("tracking --target t.png --video v.mp4 --gt g.tsv --curve /no/such/folder/curve.csv");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("folder '/no/such/folder'"), std::string::npos) << r.text;
}

// --- real data ---------------------------------------------------------------------------------

TEST(EvalTrackingTmtBookI, First60FramesOursAbove90PercentAndBaselinesRun) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const std::filesystem::path folder = testing::dataDir() / "video/tmt_bookI";
  const std::filesystem::path frames = std::filesystem::temp_directory_path() / "nft_eval_tracking_frames.csv";
  TrackingRequest request;
  request.target = (folder / "target.png").string();
  request.video = (folder / "video.mp4").string();
  request.groundTruth = (folder / "gt.tsv").string();
  request.baselines = {BaselineKind::Orb, BaselineKind::Sift};
  request.maxFrames = 60;
  request.progressEvery = 0;
  request.perFrameCsv = frames.string();
  const TrackingReport report = evaluateTracking(request);
  EXPECT_EQ(report.frames, 60);
  ASSERT_EQ(report.methods.size(), 3u);
  EXPECT_EQ(report.methods[0].method, "ours");
  EXPECT_GE(report.methods[0].successRate(5.0), 0.9);
  // The book is in view on these frames: the visible error scores every one, and it is within 5 px
  // where the corner error is (for a map close to affine the grid's mean distance is at most the
  // corners' mean distance, itself at most their root mean square, the corner error).
  EXPECT_GE(report.methods[0].visibleSuccessRate(5.0), report.methods[0].successRate(5.0));
  for (const MethodResult& m : report.methods) {
    EXPECT_EQ(m.frames(), 60) << m.method;
    EXPECT_EQ(m.ms.size(), 60u) << m.method;
    EXPECT_GT(m.medianMs(), 0.0) << m.method;
    ASSERT_EQ(m.visibleErrorPx.size(), 60u) << m.method;
    EXPECT_EQ(std::count_if(m.visibleErrorPx.begin(), m.visibleErrorPx.end(), [](double e) { return std::isnan(e); }), 0)
        << m.method;
  }
  EXPECT_EQ(report.methods[1].method, "orb");
  EXPECT_EQ(report.methods[2].method, "sift");
  std::ifstream in(frames);
  std::string line;
  int rows = 0;
  std::getline(in, line);
  // visible_error_px appended: the columns before it are where they were.
  EXPECT_EQ(line, "frame,method,found,error_px,ms,ulx,uly,urx,ury,lrx,lry,llx,lly,visible_error_px");
  while (std::getline(in, line)) {
    ++rows;
    if (rows == 1) {  // frame 1, ours: the last field is its visible error
      ASSERT_EQ(std::count(line.begin(), line.end(), ','), 13) << line;
      EXPECT_NEAR(std::stod(line.substr(line.rfind(',') + 1)), report.methods[0].visibleErrorPx[0], 1e-4) << line;
    }
  }
  EXPECT_EQ(rows, 3 * 60);
  std::filesystem::remove(frames);
}

TEST(EvalTrackingTmtBookI, ADatabaseTargetIsScoredByName) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const std::filesystem::path data = testing::dataDir();
  const std::filesystem::path dir = testing::freshTempDir("nft_eval_db");
  {
    std::ofstream list(dir / "targets.txt");
    list << "cover " << (data / "video/cmu_book/cv_cover.jpg").string() << " 0.187\n"
         << "book " << (data / "video/tmt_bookI/target.png").string() << "\n";
  }
  const testing::ProgramRun train = testing::runProgram(
      NFT_TRAIN_BINARY, "--database " + (dir / "two.nftdb").string() + " --list " + (dir / "targets.txt").string());
  ASSERT_EQ(train.status, 0) << train.output;
  TrackingRequest request;
  request.targetDatabase = (dir / "two.nftdb").string();
  request.target = "book";
  request.video = (data / "video/tmt_bookI/video.mp4").string();
  request.groundTruth = (data / "video/tmt_bookI/gt.tsv").string();
  request.maxFrames = 40;
  request.progressEvery = 0;
  const TrackingReport report = evaluateTracking(request);
  ASSERT_EQ(report.methods.size(), 1u);
  EXPECT_EQ(report.frames, 40);
  EXPECT_GE(report.methods[0].successRate(5.0), 0.9);

  request.target = "cover";  // in the database, never in these frames: scored, never found
  EXPECT_EQ(evaluateTracking(request).methods[0].found, 0);
  request.target = "poster";
  try {
    evaluateTracking(request);
    FAIL() << "no error for a name the database does not have";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'poster' is neither a file nor a target of the database"), std::string::npos)
        << e.what();
  }
  request.target = "book";
  request.baselines = {BaselineKind::Orb};
  EXPECT_THROW(evaluateTracking(request), std::runtime_error);  // the baselines need the image
  std::filesystem::remove_all(dir);
}

TEST(EvalTrackingTmtBookI, TheProgramWritesTheCurveAndTheTable) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const std::filesystem::path folder = testing::dataDir() / "video/tmt_bookI";
  const std::filesystem::path curve = std::filesystem::temp_directory_path() / "nft_eval_tracking_curve.csv";
  const auto r = runEval("tracking --target '" + (folder / "target.png").string() + "' --video '" +
                         (folder / "video.mp4").string() + "' --gt '" + (folder / "gt.tsv").string() +
                         "' --baselines orb --frames 10 --progress 5 --curve '" + curve.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.text;
  EXPECT_NE(r.text.find("frame 5/10"), std::string::npos) << r.text;  // the progress line
  EXPECT_NE(r.text.find("ours "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("orb "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("median err  vis<=5px   vis median"), std::string::npos) << r.text;
  std::ifstream in(curve);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "method,threshold_px,success_rate");
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 2 * 41);  // 0, 0.5 .. 20 px for ours and orb
  std::filesystem::remove(curve);
}

}  // namespace
}  // namespace nft::eval
