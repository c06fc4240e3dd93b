// `nft_eval multi` (apps/eval/multi_target_eval.h) on the pan of the multi-target synthetic
// sequence: one Session with the four prints finds and follows the ones in view within 5 px,
// never reports a print that is out of view or the same print twice in a frame, and its
// detections name prints in view; a frame with two prints found draws both augmentations; the per-frame CSV has a row per frame and print.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <opencv2/imgproc.hpp>

#include "apps/eval/multi_target_eval.h"
#include "nft/session.h"
#include "support/program_run.h"
#include "support/synchronous_session.h"
#include "synthetic/multi_target_sequence.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::eval {
namespace {

TEST(EvalMulti, OneSessionFollowsThePrintsInViewOfThePan) {
  ASSERT_TRUE(std::filesystem::is_regular_file(std::string(replay::kOpencvDocData) + "/graf1.png"))
      << replay::kOpencvDocData << " is missing: install the Debian package opencv-doc (scripts/install-deps.sh)";
  MultiTargetRequest request;
  request.layout = "pan";
  request.frames = 120;  // graf1 leaving, starry_night passing, baboon and butterfly arriving
  request.progressEvery = 0;
  request.perFrameCsv = (testing::freshTempDir("nft_eval_multi_test") / "per_frame.csv").string();
  const MultiTargetReport report = evaluateMultiTarget(request);
  ASSERT_EQ(report.prints.size(), 4u);
  EXPECT_EQ(report.frames, 120);
  const PrintScore& graf = report.prints[0];
  ASSERT_EQ(graf.name, "graf1");
  ASSERT_GT(graf.scoredFrames, 40);
  EXPECT_GE(graf.within5, graf.scoredFrames * 9 / 10) << graf.within5 << " of " << graf.scoredFrames;
  int found = 0;
  for (const PrintScore& p : report.prints) {
    EXPECT_EQ(p.reportedAbsent, 0) << p.name;
    found += p.found;
  }
  EXPECT_GT(found, graf.found);  // another print found too
  EXPECT_EQ(report.duplicateFrames, 0);
  EXPECT_GE(report.detections, 2);
  EXPECT_EQ(report.wrongTarget, 0);
  EXPECT_LE(report.inaccurate, report.detections / 2);
  EXPECT_GT(report.meanMs, 0.0);
  EXPECT_LE(report.medianMs, report.p99Ms);
  EXPECT_LE(report.p99Ms, report.maxMs);
  EXPECT_GT(report.maxMs, report.medianMs) << "the frames of a search are slower than the median";

  std::ifstream csv(request.perFrameCsv);
  std::string line;
  int rows = 0;
  std::getline(csv, line);
  EXPECT_EQ(line, "frame,target,visible,state,found,error_px");
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 120 * 4);
  std::filesystem::remove_all(std::filesystem::path(request.perFrameCsv).parent_path());
}

TEST(MultiTargetRendering, EveryFoundTargetGetsItsAugmentation) {
  ASSERT_TRUE(std::filesystem::is_regular_file(std::string(replay::kOpencvDocData) + "/graf1.png"))
      << replay::kOpencvDocData << " is missing: install the Debian package opencv-doc (scripts/install-deps.sh)";
  replay::MultiTargetSequenceOptions o;
  o.frames = 80;  // graf1 leaving, starry_night arriving: both in view around frame 60
  const replay::MultiTargetSequence sequence(o);
  Session session(nft::testing::synchronous());
  for (const replay::MultiTargetPrint& p : sequence.prints()) session.addTarget(p.image, p.name, p.widthM);
  FrameResult twoFound;
  for (int i = 0; i < sequence.frameCount(); ++i) {
    FrameResult r = session.process(sequence.render(i));
    int found = 0;
    for (const TargetResult& t : r.targets) found += t.found ? 1 : 0;
    if (found >= 2) twoFound = std::move(r);
  }
  ASSERT_FALSE(twoFound.targets.empty()) << "no frame with two targets found";
  // The same frame drawn with and without the augmentations (axes, box): they differ inside
  // every found target's quad.
  session.setOverlayVisible(false);
  // render() draws the last processed frame: process the chosen one again.
  const FrameResult again = session.process(sequence.render(static_cast<int>(twoFound.frame)));
  session.setAugmentationsVisible(true);
  const cv::Mat with = session.renderToImage(again);
  session.setAugmentationsVisible(false);
  const cv::Mat without = session.renderToImage(again);
  cv::Mat diff;
  cv::absdiff(with, without, diff);
  cv::cvtColor(diff, diff, cv::COLOR_BGR2GRAY);
  int drawn = 0;
  for (const TargetResult& t : again.targets) {
    if (!t.found) continue;
    cv::Mat quad = cv::Mat::zeros(diff.size(), CV_8U);
    std::vector<cv::Point> corners;
    for (const cv::Point2f& c : t.corners) corners.emplace_back(cvRound(c.x), cvRound(c.y));
    cv::fillConvexPoly(quad, corners, 255);
    const int changed = cv::countNonZero((diff > 30) & quad);
    EXPECT_GT(changed, 200) << t.name << ": no augmentation drawn over it";
    ++drawn;
  }
  EXPECT_GE(drawn, 2);
}

TEST(EvalMulti, AnUnknownLayoutIsRefusedWithTheNames) {
  MultiTargetRequest request;
  request.layout = "row";
  try {
    evaluateMultiTarget(request);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'row' (expected pan or grid)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nft::eval
