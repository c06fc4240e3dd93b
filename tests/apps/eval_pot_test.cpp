// `nft_eval pot` (apps/eval/pot_sequence.h, pot_eval.h): POT's files read as the benchmark writes
// them (8 zeros = no annotation, flags 1-3 not scored, one flag per frame or per annotated frame,
// the files in, beside or under annotation/ beside the sequence), bad files refused naming the
// line, and the protocol run on POT-format sequences written here from the synthetic presets
// (exact ground truth): every method started from the first quad, unannotated and flagged frames
// left out of the scores, precision per sequence and per category. NFT_EVAL_BINARY is the program.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "apps/eval/pot_eval.h"
#include "apps/eval/pot_sequence.h"
#include "suite/ground_truth.h"
#include "support/program_run.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::eval {
namespace {

namespace fs = std::filesystem;

void writeText(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string quadLine(const replay::QuadCorners& q) {
  std::ostringstream s;
  s.precision(9);
  for (size_t k = 0; k < 4; ++k) s << (k ? " " : "") << q[k].x << " " << q[k].y;
  return s.str();
}

/// Writes frames 0..frames−1 of a synthetic preset as a POT sequence folder `root/name`:
/// PNG frames, every other frame annotated (8 zeros on the others), and flags — frames
/// `flagged` flagged 3 (blurred) with their ground truth moved 50 px off, so that scoring one
/// of them would fail it.
void writePotSequence(const fs::path& root, const std::string& name, replay::SyntheticPreset preset, int frames,
                      const std::vector<int>& flagged) {
  replay::SyntheticSequenceOptions o;
  o.preset = preset;
  o.frames = frames;
  const replay::SyntheticSequence sequence(o);
  const fs::path folder = root / name;
  fs::create_directories(folder);
  std::ofstream gt(folder / (name + "_gt_points.txt")), flags(folder / (name + "_flag.txt"));
  for (int i = 0; i < frames; ++i) {
    char file[32];
    std::snprintf(file, sizeof file, "%04d.png", i + 1);
    cv::imwrite((folder / file).string(), sequence.render(i));
    const bool isFlagged = std::find(flagged.begin(), flagged.end(), i) != flagged.end();
    replay::QuadCorners q = sequence.corners(i);
    if (isFlagged)
      for (cv::Point2f& p : q) p.x += 50;
    gt << (i % 2 == 0 ? quadLine(q) : "0 0 0 0 0 0 0 0") << "\n";
    flags << (isFlagged ? 3 : 0) << "\n";
  }
}

TEST(PotSequence, CategoriesComeFromTheName) {
  EXPECT_EQ(potCategoryOf("V01_1"), PotCategory::Scale);
  EXPECT_EQ(potCategoryOf("V210_7"), PotCategory::Unconstrained);
  EXPECT_EQ(toString(*potCategoryOf("V07_4")), "motion_blur");
  EXPECT_FALSE(potCategoryOf("V07_8"));
  EXPECT_FALSE(potCategoryOf("book"));
  EXPECT_FALSE(potCategoryOf("V07_4x"));
}

TEST(PotSequence, ReadsAnnotationsFlagsAndWhereTheFilesLie) {
  const fs::path root = testing::freshTempDir("nft_pot_read");
  const std::string quad = "10 10 100 10 100 90 10 90";
  fs::create_directories(root / "V02_3");
  fs::create_directories(root / "annotation");
  // The files under annotation/ beside the sequence; flags one per annotated frame.
  writeText(root / "annotation" / "V02_3_gt_points.txt", quad + "\n0 0 0 0 0 0 0 0\n" + quad + "\n" + quad + "\n");
  writeText(root / "annotation" / "V02_3_flag.txt", "0\n2\n0\n");
  const PotSequence s = loadPotSequence(root / "V02_3/");
  EXPECT_EQ(s.name, "V02_3");
  EXPECT_EQ(s.category, PotCategory::Perspective);
  ASSERT_EQ(s.truth.size(), 4u);
  EXPECT_EQ(s.annotated, 3);
  EXPECT_EQ(s.flagged, 1);
  EXPECT_TRUE(replay::annotated(s.truth[0]));
  EXPECT_FALSE(replay::annotated(s.truth[1]));  // 8 zeros
  EXPECT_FALSE(replay::annotated(s.truth[2]));  // flagged out of view
  EXPECT_TRUE(replay::annotated(s.truth[3]));
  EXPECT_FLOAT_EQ(s.truth[3][2].x, 100.0f);
  // One flag per frame works too; without a flag file nothing is flagged.
  writeText(root / "annotation" / "V02_3_flag.txt", "0\n0\n0\n1\n");
  EXPECT_EQ(loadPotSequence(root / "V02_3").flagged, 1);
  EXPECT_FALSE(replay::annotated(loadPotSequence(root / "V02_3").truth[3]));
  fs::remove(root / "annotation" / "V02_3_flag.txt");
  EXPECT_EQ(loadPotSequence(root / "V02_3").flagged, 0);
  EXPECT_EQ(findPotSequences(root), std::vector<fs::path>{root / "V02_3"});
}

TEST(PotSequence, BadFilesAreRefusedNamingTheLine) {
  const fs::path root = testing::freshTempDir("nft_pot_bad");
  fs::create_directories(root / "V01_1");
  const auto message = [&] {
    try {
      (void)loadPotSequence(root / "V01_1");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message().find("no ground truth V01_1_gt_points.txt (looked for"), std::string::npos) << message();
  const fs::path gt = root / "V01_1" / "V01_1_gt_points.txt";
  writeText(gt, "1 2 3 4 5 6 7 8\n1 2 3 4 5 6 7\n");
  EXPECT_NE(message().find("V01_1_gt_points.txt' line 2: expected 8 finite numbers"), std::string::npos) << message();
  writeText(gt, "1 2 3 4 5 6 7 8\n1 2 3 1e60 5 6 7 8\n");  // finite, but not as a float
  EXPECT_NE(message().find("V01_1_gt_points.txt' line 2: expected 8 finite numbers"), std::string::npos) << message();
  writeText(gt, "0 0 0 0 0 0 0 0\n1 2 3 4 5 6 7 8\n");
  EXPECT_NE(message().find("line 1: the first frame has no annotation"), std::string::npos) << message();
  writeText(gt, "1 2 3 4 5 6 7 8\n1 2 3 4 5 6 7 8\n");
  writeText(root / "V01_1" / "V01_1_flag.txt", "0\n7\n");
  EXPECT_NE(message().find("V01_1_flag.txt' line 2: expected one flag 0"), std::string::npos) << message();
  writeText(root / "V01_1" / "V01_1_flag.txt", "0\n0\n0\n");
  EXPECT_NE(message().find("has 3 flags: expected one per frame (2) or per annotated frame (2)"), std::string::npos)
      << message();
  EXPECT_THROW(findPotSequences(root / "nothing"), std::runtime_error);
  fs::create_directories(root / "empty");
  EXPECT_THROW(findPotSequences(root / "empty"), std::runtime_error);
}

TEST(PotEval, ScoresTheAnnotatedUnflaggedFramesOfEachSequenceAndCategory) {
  const fs::path root = testing::freshTempDir("nft_pot_eval");
  // Frames 10 and 20 flagged (their ground truth 50 px off): scoring them would fail them.
  writePotSequence(root, "V01_1", replay::SyntheticPreset::Scale, 24, {10, 20});
  writePotSequence(root, "V01_2", replay::SyntheticPreset::Rotation, 24, {});
  PotRequest request;
  request.paths = {root.string()};
  request.baselines = {BaselineKind::Orb};
  const PotReport report = evaluatePot(request);
  ASSERT_EQ(report.sequences.size(), 2u);
  EXPECT_EQ(report.methods, (std::vector<std::string>{"ours", "orb"}));
  const PotSequenceResult& scale = report.sequences[0];
  EXPECT_EQ(scale.sequence.name, "V01_1");
  EXPECT_EQ(scale.sequence.category, PotCategory::Scale);
  // 24 frames, 12 annotated (even ones), 2 of them flagged, the first not scored: 9.
  EXPECT_EQ(scale.sequence.annotated, 12);
  EXPECT_EQ(scale.sequence.flagged, 2);
  EXPECT_EQ(scale.report.scored, 9);
  EXPECT_EQ(report.sequences[1].report.scored, 11);
  for (const PotSequenceResult& s : report.sequences) {
    EXPECT_EQ(s.report.frames, 24) << s.sequence.name;
    for (const MethodResult& m : s.report.methods) EXPECT_EQ(m.scored(), s.report.scored) << m.method;
    // Ours from the first quad: every scored frame within 5 px (the flagged ones left out).
    EXPECT_DOUBLE_EQ(s.report.methods[0].successRate(5.0), 1.0) << s.sequence.name;
    EXPECT_EQ(s.report.methods[0].found, 24) << s.sequence.name;
  }
  // Groups: all, then each category present; the group's precision is the sequences' mean.
  const auto groups = potGroups(report);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].first, "all");
  EXPECT_EQ(groups[1].first, "scale");
  EXPECT_EQ(groups[2].first, "rotation");
  const double orbAll = potPrecision(groups[0].second, 1, 5.0);
  EXPECT_DOUBLE_EQ(orbAll, 0.5 * (report.sequences[0].report.methods[1].successRate(5.0) +
                                   report.sequences[1].report.methods[1].successRate(5.0)));
}

TEST(PotEval, TheProgramWritesCurvesAndAReport) {
  const fs::path root = testing::freshTempDir("nft_pot_cli");
  writePotSequence(root, "V03_4", replay::SyntheticPreset::MotionBlur, 20, {});
  const testing::ProgramRun r = testing::runProgram(
      NFT_EVAL_BINARY, "pot " + testing::quoted(root / "V03_4") + " --baselines sift --curve " +
                           testing::quoted(root / "curves.csv") + " --report " + testing::quoted(root / "pot.json") +
                           " --out-dir " + testing::quoted(root));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("V03_4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("motion_blur"), std::string::npos) << r.output;
  std::ifstream in(root / "pot.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["sequences"][0]["scored"], 9);  // 10 annotated, the first not scored
  EXPECT_EQ(j["sequences"][0]["category"], "motion_blur");
  for (const char* m : {"ours", "sift"})
    EXPECT_GE(j["sequences"][0]["methods"][m]["p99_ms"].get<double>(),
              j["sequences"][0]["methods"][m]["median_ms"].get<double>())
        << m;
  EXPECT_NE(r.output.find("ms/frame, p99 ms (ours)"), std::string::npos) << r.output;
  EXPECT_TRUE(j["groups"]["motion_blur"]["precision_5px"].contains("sift"));
  // The curve: 21 thresholds per method and group (all, motion_blur, V03_4).
  std::ifstream curve(root / "curves.csv");
  std::string line;
  int rows = -1;
  while (std::getline(curve, line)) ++rows;
  EXPECT_EQ(rows, 2 * 3 * 21);
  EXPECT_TRUE(fs::is_regular_file(root / "V03_4.csv"));
  // A folder without a sequence is refused, naming it.
  const testing::ProgramRun bad = testing::runProgram(NFT_EVAL_BINARY, "pot " + testing::quoted(root / "nothing"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("is not a folder"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace nft::eval
