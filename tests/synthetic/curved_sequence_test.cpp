// The curved sequences (synthetic/curved_sequence.h, issue 47 item 6): each frame shows the label
// where project() puts it (its grey levels along the projected label points correlate with the
// label's, and not when the pose is a little off), visible() is the label's facing, in-frame part,
// the turn takes the whole label out of view and brings it back, the frames are deterministic and
// bad options are refused with the option named.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "synthetic/curved_sequence.h"

namespace nft::replay {
namespace {

#define REQUIRE_OPENCV_DOC()                                                                  \
  ASSERT_TRUE(std::filesystem::is_regular_file(std::string(kOpencvDocData) + "/graf1.png")) \
      << kOpencvDocData << " is missing: install the Debian package opencv-doc (scripts/install-deps.sh)"

CurvedSequence sequence(CurvedShape shape, const std::string& motion, double coverageDeg = 180, double noise = 0) {
  CurvedSequenceOptions o;
  o.shape = shape;
  o.motion = motion;
  o.coverageDeg = coverageDeg;
  o.noiseSigma = noise;
  o.frames = 300;
  return CurvedSequence(o);
}

/// A label pixel grid, `n` × `n` over the whole label.
std::vector<cv::Point2f> labelGrid(const CurvedSequence& s, int n) {
  std::vector<cv::Point2f> grid;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      grid.emplace_back(static_cast<float>((i + 0.5) * s.labelImage().cols / n),
                        static_cast<float>((j + 0.5) * s.labelImage().rows / n));
  return grid;
}

/// Pearson correlation of the frame's grey levels at `framePoints` with the label's at the
/// label points, over those visible() says are seen; `seen` gets their number.
double correlation(const CurvedSequence& s, int index, const cv::Mat& frame, const std::vector<cv::Point2f>& labelPoints,
                   const std::vector<cv::Point2f>& framePoints, int& seen) {
  cv::Mat frameGrey, labelGrey;
  cv::cvtColor(frame, frameGrey, cv::COLOR_BGR2GRAY);
  cv::cvtColor(s.labelImage(), labelGrey, cv::COLOR_BGR2GRAY);
  std::vector<double> a, b;
  for (size_t i = 0; i < labelPoints.size(); ++i) {
    if (!s.visible(index, labelPoints[i])) continue;
    const cv::Point p(cvRound(framePoints[i].x), cvRound(framePoints[i].y));
    if (!cv::Rect(0, 0, frame.cols, frame.rows).contains(p)) continue;
    a.push_back(frameGrey.at<uchar>(p));
    b.push_back(labelGrey.at<uchar>(cvRound(labelPoints[i].y), cvRound(labelPoints[i].x)));
  }
  seen = static_cast<int>(a.size());
  if (a.size() < 2) return 0;
  cv::Scalar ma, sa, mb, sb;
  cv::meanStdDev(a, ma, sa);
  cv::meanStdDev(b, mb, sb);
  double c = 0;
  for (size_t i = 0; i < a.size(); ++i) c += (a[i] - ma[0]) * (b[i] - mb[0]);
  return c / static_cast<double>(a.size()) / (sa[0] * sb[0]);
}

TEST(CurvedSequence, EachFrameShowsTheLabelWhereProjectPutsIt) {
  REQUIRE_OPENCV_DOC();
  for (const CurvedShape shape : {CurvedShape::Can, CurvedShape::Cup}) {
    const CurvedSequence s = sequence(shape, "turn");
    // The label smoothed a little (the frame's pixels are the label minified and blurred).
    const std::vector<cv::Point2f> grid = labelGrid(s, 60);
    for (const int index : {0, 20, 100}) {
      const cv::Mat frame = s.render(index);
      ASSERT_EQ(frame.size(), s.frameSize());
      if (const char* dump = std::getenv("NFT_CURVED_DUMP"))
        cv::imwrite(std::string(dump) + "/" + toString(shape) + "_" + std::to_string(index) + ".png", frame);
      int seen = 0;
      const double r = correlation(s, index, frame, grid, s.project(index, grid), seen);
      // A few pixels off: the correlation is gone (graf1's texture is a few pixels fine).
      std::vector<cv::Point2f> shifted = s.project(index, grid);
      for (cv::Point2f& p : shifted) p += cv::Point2f(6, -4);
      int seenShifted = 0;
      const double off = correlation(s, index, frame, grid, shifted, seenShifted);
      std::printf("%s frame %d (turned %.0f deg): %d label points seen, correlation %.2f (%.2f shifted)\n",
                  toString(shape).c_str(), index, s.turnDeg(index), seen, r, off);
      EXPECT_GT(seen, 600) << toString(shape) << " frame " << index;
      EXPECT_GT(r, 0.6) << toString(shape) << " frame " << index;
      EXPECT_LT(off, r - 0.3) << toString(shape) << " frame " << index;
    }
  }
}

TEST(CurvedSequence, TheTurnTakesTheLabelOutOfViewAndBringsItBack) {
  REQUIRE_OPENCV_DOC();
  const CurvedSequence s = sequence(CurvedShape::Can, "turn", 120);
  const std::vector<cv::Point2f> grid = labelGrid(s, 20);
  const auto seen = [&](int index) {
    int n = 0;
    for (const cv::Point2f& p : grid) n += s.visible(index, p) ? 1 : 0;
    return n;
  };
  EXPECT_NEAR(s.turnDeg(0), 0, 1e-9);
  EXPECT_GT(seen(0), 380) << "facing: the whole 120-degree label is in view";
  // Turned by 170 degrees (the amplitude, 60 + 110): all of the label has gone round the back.
  EXPECT_NEAR(s.turnDeg(60), 170, 1.0);
  EXPECT_EQ(seen(60), 0);
  EXPECT_GT(seen(120), 380) << "facing again";
  EXPECT_NEAR(s.turnDeg(180), -170, 1.0);
  EXPECT_EQ(seen(180), 0);
  // The turn keeps the middle of what faces the camera where it was: at 40 degrees, the label
  // point 40 degrees round from its middle column is the one nearest the camera.
  const int index = 14;
  const double turn = s.turnDeg(index) * M_PI / 180;
  const SyntheticSequence::TargetPose pose = s.targetPose(index);
  const cv::Point2d front = s.surface().pixelAt(0.02, turn);
  const cv::Point3d x = s.surface().point(front);
  const cv::Vec3d n = pose.R * s.surface().normal(front), toCamera = -cv::normalize(pose.R * cv::Vec3d(x.x, x.y, x.z) + pose.t);
  EXPECT_GT(std::abs(turn), 0.3);
  EXPECT_GT(n.dot(toCamera), 0.97) << "the point at phi = turn faces the camera";
}

TEST(CurvedSequence, FramesAreDeterministicAndBadOptionsAreNamed) {
  REQUIRE_OPENCV_DOC();
  const CurvedSequence a = sequence(CurvedShape::Bottle, "occlusion", 270, 3.0);
  const CurvedSequence b = sequence(CurvedShape::Bottle, "occlusion", 270, 3.0);
  EXPECT_EQ(cv::norm(a.render(50), b.render(50), cv::NORM_INF), 0);
  EXPECT_TRUE(a.occluder(50)) << "the occlusion preset's occluder is over the bottle at frame 50";
  EXPECT_DOUBLE_EQ(a.geometry().radiusM, 0.06);
  EXPECT_NEAR(a.labelWidthM(), 0.06 * 270 * M_PI / 180, 1e-12);
  const auto expectRefused = [](CurvedSequenceOptions o, const std::string& message) {
    try {
      CurvedSequence s(o);
      ADD_FAILURE() << "no error for " << message;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  CurvedSequenceOptions o;
  o.motion = "wobble";
  expectRefused(o, "unknown motion 'wobble' (expected one of scale, rotation, perspective, motion_blur, occlusion, "
                   "out_of_view, unconstrained, turn)");
  o = {};
  o.motion = "bent_page";
  expectRefused(o, "unknown motion 'bent_page'");
  o = {};
  o.coverageDeg = 45;
  expectRefused(o, "coverage 45");
  o = {};
  o.shape = CurvedShape::Cup;
  o.radiusM = 0.05;
  expectRefused(o, "a cup is a cone of its own radii");
  EXPECT_EQ(parseCurvedShape("bottle"), CurvedShape::Bottle);
  EXPECT_FALSE(parseCurvedShape("jar"));
}

}  // namespace
}  // namespace nft::replay
