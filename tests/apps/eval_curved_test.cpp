// `nft_eval tracking --geometry` (apps/eval/curved_eval.h, issue 47 item 6): the scores on the
// exact pose (zero), on a pose turned 2 degrees (that angle, pixels off) and for a flat model of
// the curved label (its ends far off); the summaries on hand-made frames (reacquisition, false
// finds, failures as +inf); and the program on the first frames of a can turning: the curved
// model within 5 px on the frames the label is in view, far ahead of the flat one; a fast shake of
// the cup followed; and the CLI's refusals. NFT_EVAL_BINARY is the built program.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>

#include "apps/bench_program_run.h"
#include "apps/eval/curved_eval.h"
#include "synthetic/curved_sequence.h"

namespace nft::eval {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

replay::CurvedSequence can(double coverageDeg = 180) {
  replay::CurvedSequenceOptions o;
  o.coverageDeg = coverageDeg;
  o.frames = 100;
  return replay::CurvedSequence(o);
}

Pose poseOf(const replay::SyntheticSequence::TargetPose& p) {
  Pose pose;
  pose.R = p.R;
  pose.t = p.t;
  return pose;
}

TEST(EvalCurvedScores, TheExactPoseScoresZeroAndATurnedOneItsAngle) {
  const replay::CurvedSequence s = can();
  const int index = 12;
  const CurvedFrameScore exact = scoreCurvedFrame(s, index, s.surface(), true, poseOf(s.targetPose(index)));
  ASSERT_TRUE(exact.scored);
  EXPECT_GT(exact.visiblePoints, 40);
  EXPECT_GE(exact.visiblePoints, exact.frontalPoints);
  EXPECT_LT(exact.visibleErrorPx, 1e-3);
  EXPECT_LT(exact.rotationDeg, 1e-3);
  EXPECT_LT(exact.translationPct, 1e-6);
  // The object turned 2 more degrees about its axis.
  Pose turned = poseOf(s.targetPose(index));
  cv::Matx33d turn;
  cv::Rodrigues(s.surface().axisDirection() * (2 * M_PI / 180), turn);
  const cv::Point3d a = s.surface().axisPoint();
  const cv::Vec3d axis(a.x, a.y, a.z);
  turned.t = turned.R * (axis - turn * axis) + turned.t;
  turned.R = turned.R * turn;
  const CurvedFrameScore off = scoreCurvedFrame(s, index, s.surface(), true, turned);
  EXPECT_NEAR(off.rotationDeg, 2.0, 1e-6);
  EXPECT_GT(off.visibleErrorPx, 2.0) << "2 degrees of a 3.3 cm can about 0.19 m away: several pixels";
  // The label as a flat print under the exact pose: its middle where it is, its ends far off.
  const detection::LabelSurface flat(detection::TargetGeometry{}, s.labelWidthM(), s.labelImage().size());
  const CurvedFrameScore planar = scoreCurvedFrame(s, 0, flat, true, poseOf(s.targetPose(0)));
  EXPECT_GT(planar.visibleErrorPx, 10.0);
  const CurvedFrameScore lost = scoreCurvedFrame(s, index, s.surface(), false, Pose{});
  EXPECT_TRUE(std::isinf(lost.visibleErrorPx) && std::isinf(lost.rotationDeg));
}

TEST(EvalCurvedScores, ALabelOutOfViewIsNotScored) {
  const replay::CurvedSequence s = can(120);  // turned 170 degrees at frame 60: all of it behind
  const CurvedFrameScore away = scoreCurvedFrame(s, 60, s.surface(), false, Pose{});
  EXPECT_FALSE(away.scored);
  EXPECT_EQ(away.visiblePoints, 0);
  EXPECT_TRUE(std::isnan(away.visibleErrorPx));
}

CurvedFrameScore frame(bool scored, bool found, double errorPx, int visible = 50) {
  CurvedFrameScore f;
  f.scored = scored;
  f.found = found;
  f.visiblePoints = scored ? 50 : visible;
  f.frontalPoints = scored ? 50 : 0;
  f.visibleErrorPx = scored ? errorPx : std::numeric_limits<double>::quiet_NaN();
  f.rotationDeg = f.translationPct = f.visibleErrorPx;
  f.ms = 2;
  return f;
}

TEST(EvalCurvedScores, SummariesCountReturnsFailuresAndFalseFinds) {
  CurvedModelResult m;
  m.frames = {frame(true, true, 1), frame(true, true, 3), frame(false, true, 0, 0), frame(false, false, 0, 10),
              frame(true, false, kInf), frame(true, true, 8), frame(true, true, 2), frame(false, false, 0, 0),
              frame(true, true, 0.5)};
  EXPECT_EQ(m.scored(), 6);
  EXPECT_DOUBLE_EQ(m.visibleSuccessRate(5), 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.foundFraction(), 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.medianVisibleErrorPx(), 2.5);
  EXPECT_EQ(m.falseFinds(), 1) << "found with none of the label seen";
  EXPECT_EQ(m.returns(), 2);
  EXPECT_EQ(m.worstReacquisitionFrames(), 2) << "back at frame 4, within 5 px at frame 6";
  m.frames.push_back(frame(false, false, 0, 0));
  m.frames.push_back(frame(true, false, kInf));
  EXPECT_EQ(m.worstReacquisitionFrames(), -1) << "the last return never found";
  EXPECT_DOUBLE_EQ(m.medianMs(), 2);
}

TEST(EvalCurvedCli, TheCanIsTrackedWithItsCurvedModelAndNotWithAFlatOne) {
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "nft_eval_curved_test.csv";
  const testing::ProgramResult r = testing::runProgramCapturing(
      NFT_EVAL_BINARY, "tracking --preset turn --geometry cylinder --synthetic-frames 16 --progress 0 --out '" +
                           csv.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.text;
  EXPECT_NE(r.text.find("can r = 3.3 cm, label 180 deg, motion turn, 640x480: 16 frames, 16 with the label in view"),
            std::string::npos)
      << r.text;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "frame,model,found,visible_points,frontal_points,visible_error_px,rotation_deg,translation_pct,ms");
  int curvedWithin5 = 0, planarWithin5 = 0, rows = 0;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::vector<std::string> c;
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    ASSERT_EQ(c.size(), 9u) << line;
    ++rows;
    const double e = c[5] == "inf" ? kInf : std::stod(c[5]);
    (c[1] == "curved" ? curvedWithin5 : planarWithin5) += e <= 5 ? 1 : 0;
  }
  std::filesystem::remove(csv);
  EXPECT_EQ(rows, 32);
  // Measured: 16 and 1 of 16 (the flat model's label ends are 10 px and more off).
  EXPECT_GE(curvedWithin5, 15);
  EXPECT_LE(planarWithin5, 6);
  EXPECT_NE(r.text.find("curved / planar time per frame"), std::string::npos) << r.text;
}

/// The curved model's rows of `nft_eval tracking --out`: visible error and rotation error per frame
/// the label is scored on (+inf where it was not found).
struct CurvedRows {
  std::vector<int> frame;  ///< from 1, as the CSV numbers them
  std::vector<double> visiblePx, rotationDeg;
};

CurvedRows curvedRowsOf(const std::filesystem::path& csv) {
  CurvedRows rows;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::vector<std::string> c;
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    if (c.size() != 9 || c[1] != "curved" || c[5] == "nan") continue;
    rows.frame.push_back(std::stoi(c[0]));
    rows.visiblePx.push_back(c[5] == "inf" ? kInf : std::stod(c[5]));
    rows.rotationDeg.push_back(c[6] == "inf" ? kInf : std::stod(c[6]));
  }
  return rows;
}

double medianOf(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Issue 47, item 4: the final refinement as dense alignment on the label's surface
// (tracker/curved_refiner.h), in the Session as nft_eval runs it, on the first 150 frames of the
// can's motion_blur preset (streaks of up to 20 px): with it the pose is markedly closer than the
// tracking lane's alone.
TEST(EvalCurvedCli, TheFinalRefinementAlignsABlurredCanOnItsSurface) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nft_eval_curved_refinement";
  std::filesystem::create_directories(dir);
  {
    std::ofstream config(dir / "off.yaml");
    config << "tracking: {final_refinement: false}\n";
  }
  const auto run = [&](const std::string& name, const std::string& extra) {
    const std::filesystem::path csv = dir / (name + ".csv");
    const testing::ProgramResult r = testing::runProgramCapturing(
        NFT_EVAL_BINARY,
        "tracking --preset motion_blur --geometry cylinder --synthetic-frames 150 --no-planar-model --progress 0 "
        "--out '" + csv.string() + "'" + extra);
    EXPECT_EQ(r.exitCode, 0) << r.text;
    // --no-planar-model: no flat model's run, in the table or the per-frame rows.
    EXPECT_EQ(r.text.find("  planar "), std::string::npos) << r.text;
    std::ifstream in(csv);
    EXPECT_EQ(std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'), 151)
        << "a header and 150 curved rows";
    return curvedRowsOf(csv);
  };
  const CurvedRows refined = run("refined", "");
  const CurvedRows lane = run("lane", " --config '" + (dir / "off.yaml").string() + "'");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(refined.visiblePx.size(), 150u);
  ASSERT_EQ(lane.visiblePx.size(), 150u);
  const double refinedPx = medianOf(refined.visiblePx), lanePx = medianOf(lane.visiblePx);
  const double refinedDeg = medianOf(refined.rotationDeg), laneDeg = medianOf(lane.rotationDeg);
  std::printf("median visible error %.2f px (lane alone %.2f), rotation %.2f deg (%.2f)\n", refinedPx, lanePx,
              refinedDeg, laneDeg);
  // Measured: 0.70 px and 1.00° with it, 1.28 px and 1.93° without.
  EXPECT_LT(refinedDeg, 0.7 * laneDeg);
  EXPECT_LT(refinedPx, 0.7 * lanePx);
  EXPECT_LT(refinedDeg, 1.3);
}

// Issue 47: a fast shake of the cup (its unconstrained preset at 1280 × 720, frames 111-120), where
// the tracking lane's coarse stage, fitting a few blurred matches at quarter resolution, turned the
// pose 17-47° from its prediction: frames 114-116 came out 5-48 px off and 117-119 were lost. A
// coarse stage now turns the pose at most kMaxCoarseTurnDeg (15°) and otherwise moves it by its
// matches' median shift (tracker/curved_tracking_lane.cpp); the last stage fits the rotation.
TEST(EvalCurvedCli, AFastShakeDoesNotTurnTheCupsPoseAway) {
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "nft_eval_curved_shake.csv";
  const testing::ProgramResult r = testing::runProgramCapturing(
      NFT_EVAL_BINARY, "tracking --preset unconstrained --geometry cone --size 1280x720 --synthetic-frames 120 "
                       "--no-planar-model --progress 0 --out '" + csv.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.text;
  const CurvedRows rows = curvedRowsOf(csv);
  int within5 = 0, scored = 0;
  for (size_t i = 0; i < rows.frame.size(); ++i)
    if (rows.frame[i] >= 111 && rows.frame[i] <= 120) {
      ++scored;
      within5 += rows.visiblePx[i] <= 5 ? 1 : 0;
    }
  std::filesystem::remove(csv);
  EXPECT_EQ(scored, 10);
  // Measured: 4 of 10 before the limit, 10 with it.
  EXPECT_GE(within5, 9);
}

TEST(EvalCurvedCli, OptionsThatDoNotApplyAreRefused) {
  const auto expectRefused = [](const std::string& args, const std::string& message) {
    const testing::ProgramResult r = testing::runProgramCapturing(NFT_EVAL_BINARY, "tracking " + args);
    EXPECT_NE(r.exitCode, 0) << args;
    EXPECT_NE(r.text.find(message), std::string::npos) << args << ": " << r.text;
  };
  expectRefused("--geometry cylinder", "--geometry is the --preset sequence's target: give --preset");
  expectRefused("--preset turn --geometry cone --radius-m 0.05", "--radius-m is a cylinder's");
  expectRefused("--preset turn --geometry cylinder --baselines orb", "--baselines (the OpenCV baselines find a homography)");
  expectRefused("--preset scale --coverage-deg 200",
                "--radius-m, --coverage-deg and --no-planar-model are a curved target's: give --geometry");
  expectRefused("--preset scale --no-planar-model",
                "--radius-m, --coverage-deg and --no-planar-model are a curved target's: give --geometry");
  expectRefused("--preset wobble --geometry cylinder", "unknown motion 'wobble'");
  expectRefused("--preset turn --geometry sphere", "--geometry");
}

}  // namespace
}  // namespace nft::eval
