// The multi-target synthetic sequence (synthetic/multi_target_sequence.h): its ground truth is
// where the prints are drawn (each print warped by its homography matches the rendered frame,
// a 3 px shift does not), the visibility follows the layout (prints entering and leaving the
// pan, butterfly's paper over baboon, all eight of the grid in view), frames are reproducible,
// and bad arguments are refused naming the problem.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "synthetic/multi_target_sequence.h"

namespace nft::replay {
namespace {

// opencv-doc's images are a dependency (scripts/install-deps.sh installs the package), not data
// that may be missing: without them the test fails and says what to install.
#define REQUIRE_OPENCV_DOC()                                                                  \
  ASSERT_TRUE(std::filesystem::is_regular_file(std::string(kOpencvDocData) + "/graf1.png")) \
      << kOpencvDocData << " is missing: install the Debian package opencv-doc (scripts/install-deps.sh)"

MultiTargetSequence pan(int frames = 300) {
  MultiTargetSequenceOptions o;
  o.frames = frames;
  return MultiTargetSequence(o);
}

/// NCC between the frame and print `target` warped by H, over the pixels the print covers
/// (eroded, so the edges' anti-aliasing does not count).
double nccOfPrint(const MultiTargetSequence& s, int target, int index, const cv::Matx33d& H) {
  const cv::Mat frame = s.render(index);
  cv::Mat grey, printGrey, warped, mask;
  cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
  cv::cvtColor(s.prints()[static_cast<size_t>(target)].image, printGrey, cv::COLOR_BGR2GRAY);
  cv::warpPerspective(printGrey, warped, H, frame.size(), cv::INTER_AREA);
  cv::warpPerspective(cv::Mat(printGrey.size(), CV_8U, cv::Scalar(255)), mask, H, frame.size(), cv::INTER_NEAREST);
  cv::erode(mask, mask, cv::Mat(), cv::Point(-1, -1), 4);
  cv::Mat a, b;
  grey.convertTo(a, CV_32F);
  warped.convertTo(b, CV_32F);
  cv::Scalar ma, sa, mb, sb;
  cv::meanStdDev(a, ma, sa, mask);
  cv::meanStdDev(b, mb, sb, mask);
  cv::Mat prod;
  cv::multiply(a - ma[0], b - mb[0], prod);
  return cv::mean(prod, mask)[0] / (sa[0] * sb[0]);
}

TEST(MultiTargetSequence, EachPrintIsDrawnWhereItsGroundTruthSays) {
  REQUIRE_OPENCV_DOC();
  const MultiTargetSequence s = pan();
  for (const auto& [target, index] : {std::pair{0, 0}, std::pair{1, 90}, std::pair{3, 150}}) {
    ASSERT_GT(s.visibleFraction(target, index), 0.95) << s.prints()[static_cast<size_t>(target)].name;
    const cv::Matx33d H = s.homography(target, index);
    const double truth = nccOfPrint(s, target, index, H);
    const double shifted = nccOfPrint(s, target, index, cv::Matx33d(1, 0, 3, 0, 1, 0, 0, 0, 1) * H);
    // Not 1: motion blur, lighting, noise and the two resamplings.
    EXPECT_GT(truth, 0.8) << s.prints()[static_cast<size_t>(target)].name << " frame " << index;
    EXPECT_LT(shifted, truth - 0.1) << s.prints()[static_cast<size_t>(target)].name << " frame " << index;
  }
}

TEST(MultiTargetSequence, ThePanBringsPrintsInAndOutAndButterflyCoversBaboon) {
  REQUIRE_OPENCV_DOC();
  const MultiTargetSequence s = pan();
  ASSERT_EQ(s.targetCount(), 4);
  const int graf = s.find("graf1"), baboon = s.find("baboon"), butterfly = s.find("butterfly");
  ASSERT_GE(graf, 0);
  EXPECT_EQ(s.find("no such print"), -1);
  EXPECT_DOUBLE_EQ(s.visibleFraction(graf, 0), 1.0);  // the start: graf1 alone in view
  EXPECT_DOUBLE_EQ(s.visibleFraction(baboon, 0), 0.0);
  EXPECT_DOUBLE_EQ(s.visibleFraction(graf, 150), 0.0);  // the far end of the pan: graf1 gone
  EXPECT_GT(s.visibleFraction(graf, 299), 0.9);         // and back
  double baboonMost = 0, butterflyMost = 0;
  for (int i = 0; i < s.frameCount(); i += 5) {
    baboonMost = std::max(baboonMost, s.visibleFraction(baboon, i));
    butterflyMost = std::max(butterflyMost, s.visibleFraction(butterfly, i));
  }
  // Butterfly's paper hides about 30 % of baboon; nothing lies over butterfly.
  EXPECT_GT(baboonMost, 0.6);
  EXPECT_LT(baboonMost, 0.8);
  EXPECT_GT(butterflyMost, 0.99);
}

TEST(MultiTargetSequence, TheGridShowsAllEightPrints) {
  REQUIRE_OPENCV_DOC();
  MultiTargetSequenceOptions o;
  o.layout = MultiTargetLayout::Grid;
  o.frames = 120;
  const MultiTargetSequence s(o);
  ASSERT_EQ(s.targetCount(), 8);
  for (int t = 0; t < 8; ++t)
    for (int i = 0; i < s.frameCount(); i += 10) EXPECT_GT(s.visibleFraction(t, i), 0.9) << t << " frame " << i;
}

TEST(MultiTargetSequence, FramesAreReproducibleAndAShorterSequenceIsTheStartOfALonger) {
  REQUIRE_OPENCV_DOC();
  const MultiTargetSequence a = pan(40), b = pan(300);
  EXPECT_EQ(cv::norm(a.render(30), b.render(30), cv::NORM_INF), 0.0);
  EXPECT_GT(cv::norm(a.render(30), a.render(31), cv::NORM_L1), 0.0);
  EXPECT_EQ(a.corners(0, 30)[2], b.corners(0, 30)[2]);
}

TEST(MultiTargetSequence, BadArgumentsAreRefusedNamingTheProblem) {
  REQUIRE_OPENCV_DOC();
  const MultiTargetSequence s = pan(10);
  EXPECT_THROW(s.render(10), std::out_of_range);
  EXPECT_THROW(s.corners(4, 0), std::out_of_range);
  MultiTargetSequenceOptions o;
  o.frames = 0;
  EXPECT_THROW(MultiTargetSequence{o}, std::invalid_argument);
  o.frames = 10;
  o.imageFolder = "/no/such/folder";
  try {
    MultiTargetSequence{o};
    FAIL() << "no error for a missing image folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/folder/graf1.png"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parseMultiTargetLayout("grid"), MultiTargetLayout::Grid);
  EXPECT_FALSE(parseMultiTargetLayout("row").has_value());
}

}  // namespace
}  // namespace nft::replay
