// Blurred templates and the clipped search of tracker/ncc_patch.h: a zero streak gives
// warpPatch()'s template exactly; in a frame blurred along a streak, the template blurred along
// the same streak correlates far better than the sharp one and still peaks at the true place;
// near the frame's border the clipped search finds what the strict one refuses.

#include <gtest/gtest.h>

#include <vector>

#include <opencv2/imgproc.hpp>

#include "tracker/ncc_patch.h"
#include "tracker/synthetic_target.h"

namespace nft::tracker {
namespace {

using testing::blurredFrame;
using testing::pyramidOf;
using testing::translation;

TEST(NccBlurTest, AZeroStreakGivesTheSharpTemplate) {
  const auto pyramid = pyramidOf(testing::syntheticTarget());
  const cv::Matx33d H(1.1, 0.05, 200.3, -0.04, 1.05, 150.6, 0.0001, 0.0002, 1);
  const PatchTemplate sharp = warpPatch(pyramid, H.inv(), {300, 230}, 0, 8);
  const PatchTemplate zero = warpPatchBlurred(pyramid, H.inv(), {300, 230}, 0, 8, {0, 0});
  const PatchTemplate tiny = warpPatchBlurred(pyramid, H.inv(), {300, 230}, 0, 8, {1.2, 0.5});  // < kMinBlurStreak
  const PatchTemplate streaked = warpPatchBlurred(pyramid, H.inv(), {300, 230}, 0, 8, {3.0, 0.0});
  ASSERT_TRUE(sharp.valid);
  EXPECT_EQ(zero.values, sharp.values);
  EXPECT_EQ(tiny.values, sharp.values);
  EXPECT_NE(streaked.values, sharp.values);
}

TEST(NccBlurTest, ABlurredTemplateMatchesABlurredFrameAtTheTruePlace) {
  const cv::Mat target = testing::syntheticTarget({200, 150}, 1.0);
  const auto pyramid = pyramidOf(target);
  const cv::Matx33d H = translation(220, 170);
  const cv::Point2d streak(18, 8);  // a 20 px streak
  const cv::Mat frame = blurredFrame(target, H, streak, 41);
  int sharpBetter = 0, found = 0, points = 0;
  double sharpScore = 0, blurredScore = 0;
  for (int y = 30; y <= 120; y += 30)
    for (int x = 40; x <= 160; x += 40) {
      const cv::Point centre(220 + x, 170 + y);
      const PatchTemplate sharp = warpPatch(pyramid, H.inv(), centre, 0, 8);
      const PatchTemplate blurred = warpPatchBlurred(pyramid, H.inv(), centre, 0, 8, streak);
      ASSERT_TRUE(sharp.valid && blurred.valid);
      const NccPeak a = searchNcc(frame, sharp, centre, 3), b = searchNcc(frame, blurred, centre, 3);
      ++points;
      sharpScore += a.score;
      blurredScore += b.score;
      sharpBetter += a.score > b.score ? 1 : 0;
      // Across the streak the blurred template places the patch to a fraction of a pixel.
      const cv::Point2d u = streak * (1.0 / cv::norm(streak));
      const double across = std::abs(-u.y * b.shift.x + u.x * b.shift.y);
      found += b.score > 0.9 && across < 0.5 && cv::norm(b.shift) < 2.0 ? 1 : 0;
    }
  EXPECT_EQ(sharpBetter, 0);
  EXPECT_GT(blurredScore / points, 0.95);
  EXPECT_LT(sharpScore / points, blurredScore / points - 0.1);
  EXPECT_GE(found, points - 1);
}

TEST(NccBlurTest, TheClippedSearchFindsAPatchAtTheBorder) {
  const cv::Mat target = testing::syntheticTarget();
  const PatchTemplate patch = warpPatch(pyramidOf(target), cv::Matx33d::eye(), {8, 70}, 0, 8);
  ASSERT_TRUE(patch.valid);
  // Searched from x = 5, 3 px left of the patch's place, with radius 6: the strict search needs
  // x from 5 − 4 − 6 = −5 and refuses; the clipped one searches the shifts from −1 on and finds
  // +3 (to the parabola's sub-pixel bias).
  EXPECT_FALSE(searchNcc(target, patch, {5, 70}, 6).found);
  const NccPeak peak = searchNcc(target, patch, {5, 70}, 6, true);
  ASSERT_TRUE(peak.found);
  EXPECT_NEAR(peak.shift.x, 3.0f, 0.2f);
  EXPECT_NEAR(peak.shift.y, 0.0f, 0.2f);
  EXPECT_NEAR(peak.score, 1.0f, 1e-3f);
  // A window that cannot lie in the image at any shift is not found even clipped.
  EXPECT_FALSE(searchNcc(target, patch, {-20, 70}, 6, true).found);
}

}  // namespace
}  // namespace nft::tracker
