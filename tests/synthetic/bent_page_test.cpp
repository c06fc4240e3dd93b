// The bent page (SyntheticPreset::BentPage, synthetic/synthetic_sequence.h): project() is the
// cylinder of the header's formula seen through cv::projectPoints, the rendered frame shows the
// target where project() says and not where a homography would put it, the ground truth is the
// best homography of the points inside the frame (good there, far off for the unseen part), the
// path is hand-held and partly out of view; and the flat presets keep their ground truth (the
// frames were compared byte for byte before and after the bent page came in).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "synthetic/synthetic_sequence.h"

namespace nft::replay {
namespace {

// opencv-doc's images are a dependency (scripts/install-deps.sh installs the package), not data
// that may be missing: without them the test fails and says what to install.
#define REQUIRE_OPENCV_DOC()                                                                  \
  ASSERT_TRUE(std::filesystem::is_regular_file(std::string(kOpencvDocData) + "/graf1.png")) \
      << kOpencvDocData << " is missing: install the Debian package opencv-doc (scripts/install-deps.sh)"

SyntheticSequence bentPage(double noiseSigma = 3.0) {
  SyntheticSequenceOptions o;
  o.preset = SyntheticPreset::BentPage;
  o.noiseSigma = noiseSigma;
  return SyntheticSequence(o);
}

cv::Point2f apply(const cv::Matx33d& H, cv::Point2f p) {
  const cv::Vec3d q = H * cv::Vec3d(p.x, p.y, 1.0);
  return {static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2])};
}

/// A (n + 1) × (n + 1) grid over the target image, corners included.
std::vector<cv::Point2f> targetGrid(const SyntheticSequence& s, int n) {
  std::vector<cv::Point2f> grid;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i)
      grid.emplace_back(static_cast<float>(s.targetImage().cols * i) / static_cast<float>(n),
                        static_cast<float>(s.targetImage().rows * j) / static_cast<float>(n));
  return grid;
}

bool inFrame(cv::Point2f p, cv::Size size) {
  return p.x >= 0 && p.y >= 0 && p.x < static_cast<float>(size.width) && p.y < static_cast<float>(size.height);
}

TEST(BentPage, ProjectionIsTheCylinderSeenThroughTheCamera) {
  REQUIRE_OPENCV_DOC();
  const SyntheticSequence s = bentPage();
  const double width = s.options().targetWidthM;  // metres
  ASSERT_DOUBLE_EQ(s.bendRadiusM(), kBentPageRadiusWidths * width);
  ASSERT_GE(kBentPageRadiusWidths, 1.5);  // "a cylinder of radius 1.5–4× the target's width"
  ASSERT_LE(kBentPageRadiusWidths, 4.0);
  const double r = s.bendRadiusM(), m = width / s.targetImage().cols;
  EXPECT_DOUBLE_EQ(s.metresPerPixel(), m);
  const std::vector<cv::Point2f> points = {{0, 0},     {800, 0},   {800, 640}, {0, 640}, {400, 320},
                                           {-24, 100}, {120, 600}, {650, 45},  {790, 333}};
  for (int index : {0, 60, 130, 250}) {
    // The page: arc length s from the centre line, angle s / r, the centre of curvature r behind it.
    std::vector<cv::Point3d> onCylinder;
    for (const cv::Point2f& p : points) {
      const double angle = (p.x * m - width / 2) / r;
      onCylinder.emplace_back(width / 2 + r * std::sin(angle), p.y * m, r * (1 - std::cos(angle)));
    }
    const SyntheticSequence::TargetPose pose = s.targetPose(index);
    cv::Vec3d rvec;
    cv::Rodrigues(cv::Mat(pose.R), rvec);
    std::vector<cv::Point2d> expected;
    cv::projectPoints(onCylinder, rvec, pose.t, cv::Mat(s.cameraMatrix()), cv::noArray(), expected);
    const std::vector<cv::Point2f> got = s.project(index, points);
    ASSERT_EQ(got.size(), points.size());
    for (size_t k = 0; k < points.size(); ++k)
      EXPECT_LT(cv::norm(cv::Point2d(got[k]) - expected[k]), 1e-3) << "frame " << index << " point " << points[k];
    // The centre line stays on the flat target's plane: there the page is the tangent plane z = 0.
    const cv::Vec3d centre = pose.R * cv::Vec3d(width / 2, 400 * m, 0) + pose.t;
    const cv::Vec3d q = s.cameraMatrix() * centre;
    const cv::Point2f onLine = s.project(index, {{400, 400}})[0];
    EXPECT_LT(cv::norm(cv::Point2d(onLine) - cv::Point2d(q[0] / q[2], q[1] / q[2])), 1e-3) << "frame " << index;
  }
}

TEST(BentPage, GroundTruthIsTheBestHomographyOfThePointsInView) {
  REQUIRE_OPENCV_DOC();
  const SyntheticSequence s = bentPage();
  const cv::Size size = s.frameSize();
  const std::vector<cv::Point2f> grid = targetGrid(s, 20);
  double worstVisibleMean = 0, worstUnseen = 0;
  int partlyOut = 0;
  double mostOut = 0;
  for (int index = 0; index < s.frameCount(); index += 3) {
    const std::vector<cv::Point2f> at = s.project(index, grid);
    const cv::Matx33d H = s.homography(index);
    const cv::Matx33d wholePage(cv::findHomography(grid, at, 0));  // the best fit of every point, seen or not
    double visible = 0, wholeOnVisible = 0, unseen = 0;
    int n = 0;
    for (size_t k = 0; k < grid.size(); ++k) {
      const double e = cv::norm(apply(H, grid[k]) - at[k]);
      if (inFrame(at[k], size)) {
        visible += e;
        wholeOnVisible += cv::norm(apply(wholePage, grid[k]) - at[k]);
        ++n;
      } else {
        unseen = std::max(unseen, e);
      }
    }
    ASSERT_GT(n, 8) << "frame " << index;
    visible /= n;
    wholeOnVisible /= n;
    // Least squares over the points in view: no worse there than the whole page's fit (mean
    // distance, so a little slack), and within the bend's deviation from a plane (measured: at
    // most 3.0 px mean, 10 px at a point, over the 300 frames).
    EXPECT_LE(visible, wholeOnVisible + 0.05) << "frame " << index;
    EXPECT_LT(visible, 3.5) << "frame " << index;
    worstVisibleMean = std::max(worstVisibleMean, visible);
    worstUnseen = std::max(worstUnseen, unseen);
    if (n < static_cast<int>(grid.size())) ++partlyOut;
    mostOut = std::max(mostOut, 1.0 - static_cast<double>(n) / static_cast<double>(grid.size()));
    // corners() are the reference's image of the target's corners.
    const QuadCorners c = s.corners(index);
    EXPECT_LT(cv::norm(c[2] - apply(H, {800, 640})), 1e-3);
  }
  // Not flat: no homography fits the page (a flat page would fit within float rounding), and the
  // reference is far off where the page is out of view.
  EXPECT_GT(worstVisibleMean, 1.5);
  EXPECT_GT(worstUnseen, 15.0);
  // Partly out of view on most frames, up to about 40 % of the page at once.
  EXPECT_GT(partlyOut, s.frameCount() / 3 / 2);
  EXPECT_GT(mostOut, 0.35);
  EXPECT_LT(mostOut, 0.6);
}

TEST(BentPage, HandHeldMotionStartingCalm) {
  REQUIRE_OPENCV_DOC();
  const std::vector<QuadCorners> truth = bentPage().groundTruth();
  ASSERT_EQ(truth.size(), 300u);
  double fastest = 0;
  for (size_t i = 1; i < truth.size(); ++i)
    for (size_t k = 0; k < 4; ++k) fastest = std::max(fastest, static_cast<double>(cv::norm(truth[i][k] - truth[i - 1][k])));
  EXPECT_GT(fastest, 15.0);  // a hand's sweep and shake (measured 30 px per frame)
  EXPECT_LT(fastest, 45.0);
  EXPECT_LT(cv::norm(truth[1][0] - truth[0][0]), 1.0);  // the calm first view the detection starts on
}

/// The frame's patch around target point `p` must match the target drawn there by the local
/// affine map of project() (a ±6 px search): returns the best match's shift, px.
double shiftOfTargetAt(const SyntheticSequence& s, int index, const cv::Mat& frameGrey, cv::Point2f p,
                       double* score) {
  const float d = 8;
  const std::vector<cv::Point2f> at = s.project(index, {p, p + cv::Point2f(d, 0), p + cv::Point2f(0, d)});
  const cv::Point2f ex = (at[1] - at[0]) / d, ey = (at[2] - at[0]) / d;  // frame px per target px
  // The target's pyramid level nearest to the drawn scale (as the renderer picks its level).
  const double scale = std::sqrt(std::abs(ex.cross(ey)));
  const int level = std::clamp(static_cast<int>(std::lround(std::log2(1.0 / scale))), 0, 3);
  cv::Mat targetGrey;
  cv::cvtColor(s.targetImage(), targetGrey, cv::COLOR_BGR2GRAY);
  std::vector<cv::Mat> pyramid;
  cv::buildPyramid(targetGrey, pyramid, level);
  const double sl = std::ldexp(1.0, level);
  // frame = at[0] + J (target - p), target = sl · level pixel.
  const cv::Matx23d A(ex.x * sl, ey.x * sl, at[0].x - ex.x * p.x - ey.x * p.y, ex.y * sl, ey.y * sl,
                      at[0].y - ex.y * p.x - ey.y * p.y);
  cv::Mat drawn;
  cv::warpAffine(pyramid[static_cast<size_t>(level)], drawn, cv::Mat(A), frameGrey.size(), cv::INTER_LINEAR);
  const int half = 12, r = 6;
  const cv::Rect inner(cvRound(at[0].x) - half, cvRound(at[0].y) - half, 2 * half + 1, 2 * half + 1);
  const cv::Rect around(inner.x - r, inner.y - r, inner.width + 2 * r, inner.height + 2 * r);
  EXPECT_EQ(around & cv::Rect(0, 0, frameGrey.cols, frameGrey.rows), around) << "frame " << index << " " << p;
  cv::Mat result;
  cv::matchTemplate(drawn(around), frameGrey(inner), result, cv::TM_CCOEFF_NORMED);
  cv::Point best;
  cv::minMaxLoc(result, nullptr, score, nullptr, &best);
  return cv::norm(best - cv::Point(r, r));
}

TEST(BentPage, TheFrameShowsEachTargetPointWhereProjectPutsIt) {
  REQUIRE_OPENCV_DOC();
  const SyntheticSequence s = bentPage(0.0);
  const cv::Size size = s.frameSize();
  double farthestFromReference = 0;
  int checked = 0;
  for (int index : {0, 125, 250}) {
    cv::Mat grey;
    cv::cvtColor(s.render(index), grey, cv::COLOR_BGR2GRAY);
    const cv::Matx33d H = s.homography(index);
    // Near the page's left and right edges, where the bend moves the page most.
    for (const cv::Point2f p : {cv::Point2f(90, 160), cv::Point2f(90, 480), cv::Point2f(710, 160),
                                cv::Point2f(710, 480), cv::Point2f(400, 320)}) {
      const cv::Point2f at = s.project(index, {p})[0];
      if (!inFrame(at - cv::Point2f(20, 20), size) || !inFrame(at + cv::Point2f(20, 20), size)) continue;
      double score = 0;
      const double shift = shiftOfTargetAt(s, index, grey, p, &score);
      EXPECT_GT(score, 0.6) << "frame " << index << " point " << p;
      EXPECT_LE(shift, 1.0) << "frame " << index << " point " << p;
      farthestFromReference = std::max(farthestFromReference, static_cast<double>(cv::norm(apply(H, p) - at)));
      ++checked;
    }
  }
  EXPECT_GE(checked, 8);
  // Where a homography would have drawn them: further than the 1 px the match allows.
  EXPECT_GT(farthestFromReference, 3.0);
}

TEST(BentPage, RendersInHdWithASmallTargetAndIsReproducible) {
  REQUIRE_OPENCV_DOC();
  SyntheticSequenceOptions o;
  o.preset = SyntheticPreset::BentPage;
  o.frames = 40;
  o.frameSize = {1280, 720};
  o.targetFraction = 0.0625;
  o.noiseSigma = 0;
  const SyntheticSequence hd(o);
  const cv::Mat a = hd.render(30), b = hd.render(30);
  ASSERT_EQ(a.size(), cv::Size(1280, 720));
  EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0.0);
  cv::Mat grey;
  cv::cvtColor(a, grey, cv::COLOR_BGR2GRAY);
  double score = 0;
  EXPECT_LE(shiftOfTargetAt(hd, 30, grey, {400, 320}, &score), 1.0);
  EXPECT_GT(score, 0.6);
}

TEST(BentPage, FlatPresetsKeepTheirGroundTruthAndProjectThroughIt) {
  REQUIRE_OPENCV_DOC();
  // Corners computed by the code before the bent page came in (its frames matched byte for byte).
  const struct {
    SyntheticPreset preset;
    int index;
    QuadCorners corners;
  } before[] = {
      {SyntheticPreset::Default, 37, {{{485.493f, 147.215f}, {493.623f, 344.684f}, {342.959f, 407.828f}, {301.061f, 204.920f}}}},
      {SyntheticPreset::OutOfView, 99, {{{-117.036f, 351.882f}, {117.615f, 295.192f}, {155.329f, 464.139f}, {-82.978f, 536.872f}}}},
      {SyntheticPreset::Unconstrained, 150, {{{286.387f, 192.730f}, {423.675f, 368.500f}, {321.400f, 537.339f}, {132.686f, 352.553f}}}},
  };
  for (const auto& b : before) {
    SyntheticSequenceOptions o;
    o.preset = b.preset;
    const SyntheticSequence s(o);
    EXPECT_EQ(s.bendRadiusM(), 0.0);
    const QuadCorners c = s.corners(b.index);
    for (size_t k = 0; k < 4; ++k) EXPECT_LT(cv::norm(c[k] - b.corners[k]), 2e-3) << toString(b.preset) << " " << k;
    // project() is the homography; the pose and camera matrix give the same homography.
    const cv::Matx33d H = s.homography(b.index);
    const std::vector<cv::Point2f> points = {{0, 0}, {400, 320}, {-50, 700}};
    const std::vector<cv::Point2f> projected = s.project(b.index, points);
    for (size_t k = 0; k < points.size(); ++k) EXPECT_EQ(projected[k], apply(H, points[k])) << toString(b.preset);
    const SyntheticSequence::TargetPose pose = s.targetPose(b.index);
    const double m = s.metresPerPixel();
    const cv::Matx33d plane(pose.R(0, 0) * m, pose.R(0, 1) * m, pose.t[0], pose.R(1, 0) * m, pose.R(1, 1) * m, pose.t[1],
                            pose.R(2, 0) * m, pose.R(2, 1) * m, pose.t[2]);
    cv::Matx33d fromPose = s.cameraMatrix() * plane;
    fromPose *= 1.0 / fromPose(2, 2);
    EXPECT_LT(cv::norm(fromPose - H, cv::NORM_INF) / cv::norm(H, cv::NORM_INF), 1e-9) << toString(b.preset);
  }
  // The bent page is a preset of its own, not a POT category.
  EXPECT_EQ(parseSyntheticPreset("bent_page"), SyntheticPreset::BentPage);
  EXPECT_EQ(toString(SyntheticPreset::BentPage), "bent_page");
  EXPECT_EQ(std::count(potPresets().begin(), potPresets().end(), SyntheticPreset::BentPage), 0);
  EXPECT_NE(syntheticPresetNames().find("unconstrained, bent_page"), std::string::npos);
}

}  // namespace
}  // namespace nft::replay
