// Tests of the homography plausibility check (tracker/quad_check.h): every ground-truth view of
// tmt_bookI passes, including the frames where det(H's upper-left 2×2) < 0, and constructed
// bad quads fail with the right reason.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "tracker/quad_check.h"
#include "tracker/tmt_ground_truth.h"

namespace nft::tracker {
namespace {

const cv::Size kTarget{134, 190};
const cv::Size kFrame{800, 600};

// The homography taking the target's corners to `q` (upper-left, upper-right, lower-right,
// lower-left).
cv::Matx33d toQuad(const std::vector<cv::Point2f>& q) {
  const float w = static_cast<float>(kTarget.width), h = static_cast<float>(kTarget.height);
  const cv::Point2f src[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  return cv::Matx33d(cv::getPerspectiveTransform(src, q.data()));
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST(QuadCheck, EveryGroundTruthFrameOfTmtBookIPassesIncludingNegativeDeterminants) {
  NFT_REQUIRE_DATA("video/tmt_bookI/gt.tsv");
  const auto frames = nft::testing::loadTmtGroundTruth();
  ASSERT_EQ(frames.size(), 531u);
  int negative = 0, firstNegative = 0, lastNegative = 0;
  for (const auto& f : frames) {
    const cv::Matx33d H = nft::testing::tmtHomography(f);
    EXPECT_EQ(quadProblem(H, kTarget, kFrame), "") << "frame " << f.frame;
    EXPECT_TRUE(plausibleQuad(H, kTarget, kFrame)) << "frame " << f.frame;
    cv::Point2d corners[4];
    projectTargetCorners(H, kTarget, corners);
    for (int i = 0; i < 4; ++i) EXPECT_LT(cv::norm(corners[i] - cv::Point2d(f.corners[static_cast<size_t>(i)])), 1e-3);
    if (H(0, 0) * H(1, 1) - H(0, 1) * H(1, 0) < 0.0) {
      if (negative == 0) firstNegative = f.frame;
      lastNegative = f.frame;
      ++negative;
    }
  }
  // The tilted-back stretch the issue names (frames 214–375): the sign test would drop it.
  EXPECT_GT(negative, 100);
  EXPECT_GE(firstNegative, 200);
  EXPECT_LE(lastNegative, 390);
}

TEST(QuadCheck, AcceptsAFrontalViewAndAHeavilyTiltedOne) {
  EXPECT_TRUE(plausibleQuad(toQuad({{300, 200}, {434, 200}, {434, 390}, {300, 390}}), kTarget, kFrame));
  // Tilted back ~70°: the far (top) edge shorter, the whole much flatter.
  EXPECT_EQ(quadProblem(toQuad({{330, 280}, {470, 280}, {500, 345}, {300, 345}}), kTarget, kFrame), "");
}

// A homography that keeps the homogeneous w of the (convex) target of one sign maps it to a
// convex quad, so a bow-tie or concave quad from a real H always comes with the target's
// corners on both sides of the horizon: that is the reason reported. "not convex" is kept for
// degenerate H (collinear corners), tested below.
TEST(QuadCheck, RejectsBowTie) {
  const std::string why = quadProblem(toQuad({{300, 200}, {434, 200}, {300, 390}, {434, 390}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(why, "target crosses the horizon")) << why;
  EXPECT_FALSE(plausibleQuad(toQuad({{300, 200}, {434, 200}, {300, 390}, {434, 390}}), kTarget, kFrame));
}

TEST(QuadCheck, RejectsConcave) {
  const std::string why = quadProblem(toQuad({{300, 200}, {434, 200}, {340, 240}, {300, 390}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(why, "target crosses the horizon")) << why;
}

TEST(QuadCheck, RejectsADegenerateHomographyAsNotConvex) {
  // Rank-2 H: every target point lands on the line y = x (all turns zero).
  const cv::Matx33d H(1, 0, 300, 1, 0, 300, 0, 0, 1);
  const std::string why = quadProblem(H, kTarget, kFrame);
  EXPECT_TRUE(startsWith(why, "not convex")) << why;
}

TEST(QuadCheck, RejectsMirroredWinding) {
  // Left and right swapped: a reflection of the target.
  const std::string why = quadProblem(toQuad({{434, 200}, {300, 200}, {300, 390}, {434, 390}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(why, "mirrored")) << why;
}

TEST(QuadCheck, RejectsCollapsedSide) {
  // Top edge collapsed to 3 px: still convex, but degenerate.
  const std::string why = quadProblem(toQuad({{366, 200}, {369, 200}, {434, 390}, {300, 390}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(why, "side too short")) << why;
}

TEST(QuadCheck, RejectsTinyAndHuge) {
  const std::string tiny = quadProblem(toQuad({{400, 300}, {420, 300}, {420, 328}, {400, 328}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(tiny, "area too small")) << tiny;
  const std::string huge = quadProblem(toQuad({{-700, -500}, {1500, -500}, {1500, 1100}, {-700, 1100}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(huge, "area too large")) << huge;
}

TEST(QuadCheck, RejectsSquashedAspect) {
  // Width/height of the quad about 21× the target's: no plausible tilt does that.
  const std::string why = quadProblem(toQuad({{100, 300}, {700, 300}, {700, 340}, {100, 340}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(why, "aspect")) << why;
}

TEST(QuadCheck, RejectsCornersFarOutsideAndNonFinite) {
  const std::string far = quadProblem(toQuad({{300, 200}, {434, 200}, {20000, 390}, {300, 390}}), kTarget, kFrame);
  EXPECT_TRUE(startsWith(far, "corner far outside")) << far;
  cv::Matx33d nanH = cv::Matx33d::eye();
  nanH(0, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(startsWith(quadProblem(nanH, kTarget, kFrame), "non-finite corner"));
}

TEST(QuadCheck, RejectsATargetCrossingTheHorizon) {
  // w = 1 − x/100 changes sign between the left (x = 0) and right (x = 134) corners.
  const cv::Matx33d H(1, 0, 0, 0, 1, 0, -0.01, 0, 1);
  const std::string why = quadProblem(H, kTarget, kFrame);
  EXPECT_TRUE(startsWith(why, "target crosses the horizon")) << why;
}

TEST(QuadCheck, LimitsAreHonoured) {
  const cv::Matx33d H = toQuad({{300, 200}, {434, 200}, {434, 390}, {300, 390}});  // area 5.3 %
  QuadLimits strict;
  strict.minAreaFraction = 0.1;
  EXPECT_TRUE(startsWith(quadProblem(H, kTarget, kFrame, strict), "area too small"));
  EXPECT_THROW(plausibleQuad(H, cv::Size(0, 10), kFrame), std::invalid_argument);
}

}  // namespace
}  // namespace nft::tracker
