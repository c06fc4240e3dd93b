// nft_replay run as a user runs it (NFT_REPLAY_BINARY): help, every bad input ending with a
// clear message and exit status 1 while what was written stays valid, the built-in synthetic
// default run with its accuracy report, and — with ../shared/data — the real videos: tmt_bookI
// against its ground truth, cmu_book's found fraction, a truncated copy of book.mp4.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "support/program_run.h"
#include "synthetic/synthetic_sequence.h"
#include "support/test_data.h"

namespace {

using nft::testing::ProgramRun;
using nft::testing::quoted;
using nft::testing::readLines;

namespace fs = std::filesystem;

ProgramRun runReplay(const std::string& args) { return nft::testing::runProgram(NFT_REPLAY_BINARY, args); }

fs::path tempDir(const std::string& name) { return nft::testing::freshTempDir("nft_replay_cli_" + name); }

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

int videoFrames(const fs::path& path) {
  cv::VideoCapture video(path.string());
  if (!video.isOpened()) return -1;
  int n = 0;
  for (cv::Mat f; video.read(f);) ++n;
  return n;
}

/// Every CSV row has the header's 19 fields.
void expectCompleteRows(const std::vector<std::string>& lines) {
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "frame,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms");
  for (size_t i = 1; i < lines.size(); ++i)
    EXPECT_EQ(std::count(lines[i].begin(), lines[i].end(), ','), 18) << "row " << i << ": " << lines[i];
}

const std::string kGraf = "/usr/share/doc/opencv-doc/examples/data/graf1.png";

TEST(NftReplayCli, HelpListsTheOptions) {
  const ProgramRun r = runReplay("--help");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* option : {"--target", "--video", "--config", "--calib", "--out", "--poses", "--report",
                             "--no-render", "--gt", "--print-config"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option << " missing from\n" << r.output;
}

TEST(NftReplayCli, PrintConfigShowsTheConfigInEffect) {
  const fs::path dir = tempDir("print");
  { std::ofstream(dir / "c.yaml") << "tracking:\n  redetect_every: 12\n"; }
  const ProgramRun r = runReplay("--print-config --config " + quoted(dir / "c.yaml"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("redetect_every: 12"), std::string::npos) << r.output;
}

TEST(NftReplayCli, AMissingVideoIsNamed) {
  const ProgramRun r = runReplay("--target " + kGraf + " --video /no/such/video.mp4");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("video '/no/such/video.mp4' does not exist"), std::string::npos) << r.output;
}

TEST(NftReplayCli, AnUnreadableVideoIsNamed) {
  const fs::path dir = tempDir("badvideo");
  { std::ofstream(dir / "clip.mp4") << "not a video at all"; }
  const ProgramRun r = runReplay("--target " + kGraf + " --video " + quoted(dir / "clip.mp4"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot open video '" + (dir / "clip.mp4").string() + "'"), std::string::npos) << r.output;
}

TEST(NftReplayCli, AMissingOrUnreadableTargetIsNamed) {
  const fs::path dir = tempDir("target");
  cv::imwrite((dir / "f0.png").string(), cv::Mat(48, 64, CV_8UC3, cv::Scalar(1, 2, 3)));
  ProgramRun r = runReplay("--target /no/such/cover.jpg --video " + quoted(dir));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("target '/no/such/cover.jpg' does not exist"), std::string::npos) << r.output;
  { std::ofstream(dir / "cover.jpg") << "not an image"; }
  r = runReplay("--target " + quoted(dir / "cover.jpg") + " --video " + quoted(dir));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot read target '" + (dir / "cover.jpg").string() + "'"), std::string::npos) << r.output;
}

TEST(NftReplayCli, ATargetWithTooFewKeypointsIsRefusedNamingIt) {
  const fs::path dir = tempDir("plain");
  cv::imwrite((dir / "plain.png").string(), cv::Mat(200, 300, CV_8UC1, cv::Scalar(128)));
  cv::imwrite((dir / "f0.png").string(), cv::Mat(48, 64, CV_8UC3, cv::Scalar(1, 2, 3)));
  const ProgramRun r = runReplay("--target " + quoted(dir / "plain.png") + " --video " + quoted(dir));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("target '" + (dir / "plain.png").string() + "' has only 0 keypoints"), std::string::npos)
      << r.output;
}

TEST(NftReplayCli, AMissingCalibrationIsNamed) {
  const ProgramRun r = runReplay("--calib /no/such/camera.yaml --no-render");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("calibration file '/no/such/camera.yaml' does not exist"), std::string::npos) << r.output;
}

TEST(NftReplayCli, ABrokenCalibrationFileIsNamedWithTheKey) {
  const fs::path dir = tempDir("calib");
  { std::ofstream(dir / "camera.yaml") << "%YAML:1.0\n---\nimage_width: 640\nimage_height: 480\n"; }
  const ProgramRun r = runReplay("--calib " + quoted(dir / "camera.yaml") + " --no-render --synthetic-frames 2");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("camera.yaml"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("camera_matrix"), std::string::npos) << r.output;
}

TEST(NftReplayCli, ConfigErrorsNameTheFileAndLine) {
  const fs::path dir = tempDir("config");
  { std::ofstream(dir / "c.yaml") << "# comment\ntracking:\n  min_ncc: 1.5\n"; }
  ProgramRun r = runReplay("--config " + quoted(dir / "c.yaml") + " --no-render");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find((dir / "c.yaml").string() + ":3: tracking.min_ncc = 1.5"), std::string::npos) << r.output;
  r = runReplay("--config /no/such/c.yaml");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot read config file '/no/such/c.yaml'"), std::string::npos) << r.output;
  { std::ofstream(dir / "cpu.yaml") << "matcher:\n  backend: quantum\n"; }
  r = runReplay("--config " + quoted(dir / "cpu.yaml") + " --no-render");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("matcher.backend"), std::string::npos) << r.output;
}

// Issue 22: the detection backends are chosen (auto: by the renderer), printed and reported.
TEST(NftReplayCli, TheDetectionBackendsArePrintedAndReported) {
  const fs::path dir = tempDir("backends");
  { std::ofstream(dir / "b.yaml") << "descriptor:\n  backend: gpu\nmatcher:\n  backend: cpu\n  cross_check: true\n"; }
  ProgramRun r = runReplay("--config " + quoted(dir / "b.yaml") + " --no-render --synthetic-frames 3 --report " +
                           quoted(dir / "b.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("detection backends: descriptor gpu (gpu), matcher cpu (cpu)"), std::string::npos)
      << r.output;
  nlohmann::json report = readJson(dir / "b.json");
  EXPECT_EQ(report["detection_backends"]["descriptor"], "gpu");
  EXPECT_EQ(report["detection_backends"]["matcher"], "cpu");
  EXPECT_EQ(report["detection_backends"]["matcher_requested"], "cpu");
  r = runReplay("--no-render --synthetic-frames 3 --report " + quoted(dir / "a.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  report = readJson(dir / "a.json");
  const bool software = report["detection_backends"]["software_renderer"].get<bool>();
  EXPECT_EQ(software, report["renderer"].get<std::string>().find("llvmpipe") != std::string::npos ||
                          report["renderer"].get<std::string>().find("SwiftShader") != std::string::npos ||
                          report["renderer"].get<std::string>().find("softpipe") != std::string::npos);
  EXPECT_EQ(report["detection_backends"]["descriptor_requested"], "auto");
  EXPECT_EQ(report["detection_backends"]["descriptor"], software ? "cpu" : "gpu");
  EXPECT_EQ(report["detection_backends"]["matcher"], software ? "cpu" : "gpu");
}

TEST(NftReplayCli, AFrameOfAnotherSizeStopsTheRunAndTheOutputsStayValid) {
  const fs::path dir = tempDir("resize");
  const fs::path frames = dir / "frames";
  fs::create_directories(frames);
  for (int i = 0; i < 3; ++i)
    cv::imwrite((frames / ("f" + std::to_string(i) + ".png")).string(),
                cv::Mat(i < 2 ? 96 : 120, 128, CV_8UC3, cv::Scalar(30.0 * i, 40, 50)));
  const ProgramRun r = runReplay("--target " + kGraf + " --video " + quoted(frames) + " --poses " +
                                 quoted(dir / "p.csv") + " --report " + quoted(dir / "r.json") + " --out " +
                                 quoted(dir / "o.avi"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("frame 2 of '" + frames.string() + "' is 128x120 but the replay started at 128x96"),
            std::string::npos)
      << r.output;
  const auto lines = readLines(dir / "p.csv");
  EXPECT_EQ(lines.size(), 3u);  // header + frames 0 and 1
  expectCompleteRows(lines);
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_FALSE(report["completed"].get<bool>());
  EXPECT_EQ(report["frames"], 2);
  EXPECT_EQ(videoFrames(dir / "o.avi"), 2);  // finalised: readable, both frames in it
}

TEST(NftReplayCli, ACorruptFrameIsNamedAndTheRowsBeforeItStay) {
  const fs::path dir = tempDir("corrupt");
  const fs::path frames = dir / "frames";
  fs::create_directories(frames);
  cv::imwrite((frames / "f0.png").string(), cv::Mat(96, 128, CV_8UC3, cv::Scalar(30, 40, 50)));
  { std::ofstream(frames / "f1.png") << "\x89PNG truncated"; }
  const ProgramRun r = runReplay("--target " + kGraf + " --video " + quoted(frames) + " --poses " +
                                 quoted(dir / "p.csv") + " --no-render");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("frame 1: cannot read image '" + (frames / "f1.png").string() + "'"), std::string::npos)
      << r.output;
  const auto lines = readLines(dir / "p.csv");
  EXPECT_EQ(lines.size(), 2u);
  expectCompleteRows(lines);
}

TEST(NftReplayCli, TheSyntheticDefaultRunReportsItsAccuracy) {
  const fs::path dir = tempDir("synthetic");
  const ProgramRun r = runReplay("--no-render --progress 100 --report " + quoted(dir / "r.json") + " --poses " +
                                 quoted(dir / "p.csv"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("frame 100/300"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("accuracy over 300 ground-truth frames: success"), std::string::npos) << r.output;
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_TRUE(report["completed"].get<bool>());
  EXPECT_EQ(report["frames"], 300);
  EXPECT_EQ(report["ground_truth"]["frames"], 300);
  EXPECT_GE(report["ground_truth"]["success_5px"].get<double>(), 0.9) << report.dump(2);
  EXPECT_GE(report["ground_truth"]["success_10px"].get<double>(), 0.9) << report.dump(2);
  // The visible error beside the corner error: the built-in target is always in view, every frame scored.
  EXPECT_NE(r.output.find("by the visible error (300 frames): "), std::string::npos) << r.output;
  EXPECT_EQ(report["ground_truth"]["visible_frames"], 300);
  EXPECT_GE(report["ground_truth"]["visible_success_5px"].get<double>(), 0.9) << report.dump(2);
  EXPECT_LT(report["ground_truth"]["median_visible_error_px"].get<double>(), 2.0) << report.dump(2);
  EXPECT_FALSE(report["renderer"].get<std::string>().empty());
  EXPECT_NE(report["config"].get<std::string>().find("detector:"), std::string::npos);
  for (const char* stage : {"convert", "detect", "describe", "match", "ransac", "pose", "tracking_pyramid",
                            "tracking_coarse", "tracking_fine", "tracking_pose", "total"})
    EXPECT_TRUE(report["median_ms"].contains(stage)) << stage;
  const nlohmann::json& p = report["process_ms"];
  EXPECT_GT(p["p50"].get<double>(), 0.0);
  EXPECT_LE(p["p50"].get<double>(), p["p90"].get<double>());
  EXPECT_LE(p["p90"].get<double>(), p["p99"].get<double>());
  EXPECT_LE(p["p99"].get<double>(), p["max"].get<double>());
  EXPECT_NE(r.output.find("process() time p50 "), std::string::npos) << r.output;
  const auto lines = readLines(dir / "p.csv");
  EXPECT_EQ(lines.size(), 301u);
  expectCompleteRows(lines);
}

TEST(NftReplayCli, AsyncDelayFramesAppliesEachDetectionThatManyFramesLater) {
  const fs::path dir = tempDir("async_delay");
  // The state column of each frame's row (frame,state,ulx,...): the synchronous replay finds the
  // synthetic target on frame 0; with --async-delay-frames 3 that detection is applied on frame 3.
  const auto states = [&](const std::string& extra) {
    const ProgramRun r = runReplay("--synthetic-frames 8 --progress 0 --no-render --poses " + quoted(dir / "p.csv") + " " +
                                   extra);
    EXPECT_EQ(r.status, 0) << r.output;
    std::vector<std::string> out;
    const auto lines = readLines(dir / "p.csv");
    for (size_t i = 1; i < lines.size(); ++i) {
      const size_t a = lines[i].find(','), b = lines[i].find(',', a + 1);
      out.push_back(lines[i].substr(a + 1, b - a - 1) + (lines[i].substr(b + 1, 1) == "," ? " not found" : " found"));
    }
    return out;
  };
  const std::vector<std::string> sync = states("");
  ASSERT_EQ(sync.size(), 8u);
  EXPECT_EQ(sync[0], "detecting found");
  const std::vector<std::string> delayed = states("--async-delay-frames 3");
  ASSERT_EQ(delayed.size(), 8u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(delayed[i], "detecting not found") << "frame " << i;
  EXPECT_EQ(delayed[3], "detecting found");
  for (size_t i = 4; i < 8; ++i) EXPECT_EQ(delayed[i], "tracking found") << "frame " << i;
  EXPECT_NE(runReplay("--synthetic-frames 2 --async-delay-frames -1").status, 0);
}

TEST(NftReplayCli, ADetectionCarriedIntoABlurredFrameModelsItsBlur) {
  // The motion_blur preset, seed 3, each detection applied a frame later: in its fast stretch
  // (frames 215-224) the target is lost and each carried detection must be found in a blurred
  // frame. Measured, success at 5 px: 96.7 % when the carry searched with sharp templates (lost
  // for 8 frames), 99.0 % with the blur of the motion it finds (Tracker::initialise's
  // framesBefore); 99.7 % in process().
  const fs::path dir = tempDir("carried_blur");
  const ProgramRun r = runReplay("--synthetic-preset motion_blur --synthetic-seed 3 --async-delay-frames 1 --progress 0 "
                                 "--no-render --report " + quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_GE(report["ground_truth"]["success_5px"].get<double>(), 0.985) << r.output;
}

TEST(NftReplayCli, TheBentPageIsFollowedWhereItIsSeen) {
  // The bent page (issue 45): a page bent around a cylinder, hand-held, partly out of view;
  // scored by the visible error against the best homography of its points in view. A floor
  // below what the tracker measures (100 % within 5 px over its 300 frames, median 0.85 px;
  // docs/results.md), on its first 120 frames.
  const fs::path dir = tempDir("bent_page");
  const ProgramRun r = runReplay("--synthetic-preset bent_page --synthetic-frames 120 --no-render --progress 0 --report " +
                                 quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json gt = readJson(dir / "r.json")["ground_truth"];
  EXPECT_EQ(gt["frames"], 120);
  EXPECT_EQ(gt["visible_frames"], 120);  // never wholly out of view
  EXPECT_GE(gt["visible_success_5px"].get<double>(), 0.95) << gt.dump(2);
  EXPECT_LT(gt["median_visible_error_px"].get<double>(), 2.0) << gt.dump(2);
}

TEST(NftReplayCli, ACurvedLabelsSequenceIsTrackedOnItsSurface) {
  // Issue 47: --synthetic-geometry replays a can's label (synthetic/curved_sequence.h), trained as
  // a cylinder, turning about its axis; scored by its projected corners (the first 20 frames, the
  // label turned up to 90°: every frame within 5 px, median under a pixel; measured 0.3 px).
  const fs::path dir = tempDir("curved");
  const ProgramRun r = runReplay("--synthetic-geometry cylinder --synthetic-frames 20 --no-render --progress 0 --report " +
                                 quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("synthetic can (" + std::string(nft::replay::kOpencvDocData) +
                          "/graf1.png over 180 degrees, motion turn, 20 frames 640x480"),
            std::string::npos)
      << r.output;
  const nlohmann::json report = readJson(dir / "r.json");
  const nlohmann::json gt = report["ground_truth"];
  EXPECT_EQ(gt["frames"], 20);
  EXPECT_GE(gt["success_5px"].get<double>(), 1.0) << gt.dump(2);
  EXPECT_LT(gt["median_error_px"].get<double>(), 1.0) << gt.dump(2);
  EXPECT_GE(report["states"]["tracking"].get<int>(), 15) << "detected once, then followed on the surface";
  const ProgramRun bad = runReplay("--synthetic-preset turn --synthetic-frames 5");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("--synthetic-preset turn is a curved label's motion: give --synthetic-geometry"),
            std::string::npos)
      << bad.output;
}

TEST(NftReplayCli, RealtimeRunsTheDetectionWorkerAtTheInputsFrameRate) {
  const fs::path dir = tempDir("realtime");
  const ProgramRun r = runReplay("--synthetic-frames 15 --progress 0 --no-render --realtime --report " +
                                 quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_EQ(report["frames"], 15);
  EXPECT_EQ(report["states"]["detecting"].get<int>() + report["states"]["tracking"].get<int>() +
                report["states"]["lost"].get<int>(),
            15);
  EXPECT_GE(report["wall_s"].get<double>(), 14.0 / 30.0) << "15 frames at 30 frames/s take 14/30 s at least";
  EXPECT_NE(report["config"].get<std::string>().find("async_detection: on"), std::string::npos);
}

TEST(NftReplayCli, AShortRenderedRunWritesEveryFrame) {
  const fs::path dir = tempDir("rendered");
  const ProgramRun r = runReplay("--synthetic-frames 20 --progress 0 --out " + quoted(dir / "o.mp4") + " --report " +
                                 quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(videoFrames(dir / "o.mp4"), 20);
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_TRUE(report["rendered"].get<bool>());
  EXPECT_GT(report["median_ms"]["render"].get<double>(), 0.0);
}

TEST(NftReplayData, TmtBookIMeetsTheAccuracyGoals) {
  NFT_REQUIRE_DATA("video/tmt_bookI/gt.tsv");
  const fs::path data = nft::testing::dataDir() / "video/tmt_bookI";
  const fs::path dir = tempDir("tmt");
  const ProgramRun r = runReplay("--target " + quoted(data / "target.png") + " --video " + quoted(data / "video.mp4") +
                                 " --gt " + quoted(data / "gt.tsv") + " --no-render --progress 0 --report " +
                                 quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json gt = readJson(dir / "r.json")["ground_truth"];
  EXPECT_EQ(gt["frames"], 531);
  EXPECT_GE(gt["success_5px"].get<double>(), 0.75) << gt.dump(2);
  EXPECT_GE(gt["success_10px"].get<double>(), 0.85) << gt.dump(2);
}

TEST(NftReplayCli, InitQuadRefusesATargetAndAQuadOfOtherThanEightNumbers) {
  const ProgramRun withTarget = runReplay("--init-quad 10,10,200,10,200,200,10,200 --target " + kGraf);
  EXPECT_EQ(withTarget.status, 1) << withTarget.output;
  EXPECT_NE(withTarget.output.find("--init-quad makes the target from the first frame's quad: give no --target"),
            std::string::npos)
      << withTarget.output;
  const ProgramRun seven = runReplay("--init-quad 10,10,200,10,200,200,10");
  EXPECT_EQ(seven.status, 1) << seven.output;
  EXPECT_NE(seven.output.find("--init-quad has 7 numbers: expected 8"), std::string::npos) << seven.output;
  const ProgramRun outside = runReplay("--synthetic-frames 3 --init-quad 10,10,900,10,200,200,10,200");
  EXPECT_EQ(outside.status, 1) << outside.output;
  EXPECT_NE(outside.output.find("quad corner 1 (upper-right) (900, 10) is outside the 640x480 frame"), std::string::npos)
      << outside.output;
}

TEST(NftReplayData, TmtBookIFromTheFirstFramesQuadAsPotStartsATracker) {
  // The target is frame 1's region inside gt.tsv's first quad (not target.png): tracked from
  // there on every frame, without a detection.
  NFT_REQUIRE_DATA("video/tmt_bookI/gt.tsv");
  const fs::path data = nft::testing::dataDir() / "video/tmt_bookI";
  const auto gtLines = readLines(data / "gt.tsv");
  ASSERT_GE(gtLines.size(), 2u);
  std::istringstream first(gtLines[1]);
  std::string name, quad;
  first >> name;
  for (int i = 0; i < 8; ++i) {
    std::string v;
    first >> v;
    quad += (i ? "," : "") + v;
  }
  const fs::path dir = tempDir("tmt_init_quad");
  const ProgramRun r = runReplay("--init-quad " + quad + " --video " + quoted(data / "video.mp4") + " --gt " +
                                 quoted(data / "gt.tsv") + " --no-render --progress 0 --report " +
                                 quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_EQ(report["ground_truth"]["frames"], 531);
  EXPECT_EQ(report["ground_truth"]["success_5px"].get<double>(), 1.0) << report.dump(2);
  EXPECT_NE(r.output.find("(detecting 0, tracking 531, lost 0)"), std::string::npos) << r.output;
}

TEST(NftReplayData, CmuBookFindsTheCoverInNinetyPercentOfFrames) {
  NFT_REQUIRE_DATA("video/cmu_book/book.mp4");
  const fs::path data = nft::testing::dataDir() / "video/cmu_book";
  const fs::path dir = tempDir("cmu");
  const ProgramRun r = runReplay("--target " + quoted(data / "cv_cover.jpg") + " --video " + quoted(data / "book.mp4") +
                                 " --no-render --progress 0 --report " + quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_EQ(report["frames"], 641);
  EXPECT_GE(report["found_fraction"].get<double>(), 0.9) << report.dump(2);
}

TEST(NftReplayData, ATruncatedVideoStopsWithAMessageAndValidOutputs) {
  NFT_REQUIRE_DATA("video/cmu_book/book.mp4");
  const fs::path data = nft::testing::dataDir() / "video/cmu_book";
  const fs::path dir = tempDir("truncated");
  {  // The first half of book.mp4 (its index comes first, so the copy opens and stops midway).
    std::ifstream in(data / "book.mp4", std::ios::binary);
    std::vector<char> bytes(900000);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::ofstream(dir / "book.mp4", std::ios::binary).write(bytes.data(), in.gcount());
  }
  const ProgramRun r = runReplay("--target " + quoted(data / "cv_cover.jpg") + " --video " + quoted(dir / "book.mp4") +
                                 " --progress 0 --poses " + quoted(dir / "p.csv") + " --out " + quoted(dir / "o.mp4") +
                                 " --report " + quoted(dir / "r.json"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("video '" + (dir / "book.mp4").string() + "': decoding stopped at frame"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("truncated or corrupt"), std::string::npos) << r.output;
  const auto lines = readLines(dir / "p.csv");
  expectCompleteRows(lines);
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_FALSE(report["completed"].get<bool>());
  const int frames = report["frames"].get<int>();
  EXPECT_GT(frames, 100);
  EXPECT_EQ(static_cast<int>(lines.size()) - 1, frames);
  EXPECT_EQ(videoFrames(dir / "o.mp4"), frames);
}

}  // namespace
