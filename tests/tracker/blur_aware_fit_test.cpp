// The blur-aware fits of the tracking lane (tracker/blur_aware_fit.h): exact matches give the
// exact map back; with the scatter a motion blur leaves along its streaks, the weighted fit is
// closer to the truth than an unweighted one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include <opencv2/calib3d.hpp>

#include "tracker/blur_aware_fit.h"

namespace nft::tracker {
namespace {

cv::Point2f applyAffine(const cv::Matx23d& A, cv::Point2f p) {
  return {static_cast<float>(A(0, 0) * p.x + A(0, 1) * p.y + A(0, 2)),
          static_cast<float>(A(1, 0) * p.x + A(1, 1) * p.y + A(1, 2))};
}

cv::Point2f applyH(const cv::Matx33d& H, cv::Point2f p) {
  const cv::Vec3d q = H * cv::Vec3d(p.x, p.y, 1);
  return {static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2])};
}

/// A grid of points over a 200 × 150 target placed around (320, 240).
std::vector<cv::Point2f> grid() {
  std::vector<cv::Point2f> points;
  for (int y = 0; y <= 150; y += 25)
    for (int x = 0; x <= 200; x += 25) points.emplace_back(static_cast<float>(220 + x), static_cast<float>(165 + y));
  return points;
}

double worstCorner(const cv::Matx23d& A, const cv::Matx23d& truth) {
  double worst = 0;
  for (const cv::Point2f c : {cv::Point2f(220, 165), cv::Point2f(420, 165), cv::Point2f(420, 315), cv::Point2f(220, 315)})
    worst = std::max(worst, cv::norm(applyAffine(A, c) - applyAffine(truth, c)));
  return worst;
}

TEST(BlurAwareFitTest, RecoversAnExactAffineCorrection) {
  const cv::Matx23d truth(1.02, -0.05, 7.5, 0.04, 0.97, -12.0);
  std::vector<BlurredMatch> matches;
  for (const cv::Point2f& p : grid()) matches.push_back({p, applyAffine(truth, p), cv::Point2f(25, 5)});
  const std::optional<cv::Matx23d> A = fitBlurredCorrection(matches);
  ASSERT_TRUE(A);
  EXPECT_LT(worstCorner(*A, truth), 1e-3);
}

TEST(BlurAwareFitTest, WeighsTheScatterAlongTheStreaksDown) {
  // A camera rolling about the target's centre blurs each point along a circle: every match
  // scatters by 4 px (σ) along its 30 px streak and 0.3 px across it, as matches in a
  // motion-blurred frame do. The weighted fit must place the corners closer than the same fit
  // with no streaks (equal weights), over many draws.
  const cv::Matx23d truth(0.99, 0.03, -20.0, -0.02, 1.01, 4.0);
  const cv::Point2f centre(320, 240);
  std::mt19937 gen(5);
  std::normal_distribution<double> along(0, 4.0), across(0, 0.3);
  double weighted = 0, plain = 0;
  for (int draw = 0; draw < 50; ++draw) {
    std::vector<BlurredMatch> blurred, unweighted;
    for (const cv::Point2f& p : grid()) {
      const cv::Point2f radial = p - centre;
      const float r = std::max(1.0f, std::hypot(radial.x, radial.y));
      const cv::Point2f u(-radial.y / r, radial.x / r);  // the streak's direction
      const cv::Point2f n(-u.y, u.x);
      const cv::Point2f f = applyAffine(truth, p) + u * static_cast<float>(along(gen)) + n * static_cast<float>(across(gen));
      blurred.push_back({p, f, u * 30.0f});
      unweighted.push_back({p, f, cv::Point2f(0, 0)});
    }
    weighted += worstCorner(*fitBlurredCorrection(blurred), truth);
    plain += worstCorner(*fitBlurredCorrection(unweighted), truth);
  }
  EXPECT_LT(weighted, 0.8 * plain) << "weighted " << weighted / 50 << " px, unweighted " << plain / 50 << " px";
}

TEST(BlurAwareFitTest, RefinesAHomographyAndRefusesTooFewMatches) {
  const cv::Matx33d truth(1.1, 0.05, 200.3, -0.04, 1.05, 150.6, 0.0004, 0.0002, 1);
  std::vector<cv::Point2f> target, found, streak;
  for (int y = 0; y <= 150; y += 30)
    for (int x = 0; x <= 200; x += 40) {
      target.emplace_back(static_cast<float>(x), static_cast<float>(y));
      found.push_back(applyH(truth, target.back()));
      streak.emplace_back(12.0f, -9.0f);
    }
  const cv::Matx33d start = cv::Matx33d(1, 0, 3, 0, 1, -2, 0, 0, 1) * truth;  // 3.6 px off
  const std::optional<cv::Matx33d> refined = refineBlurredHomography(start, target, found, streak);
  ASSERT_TRUE(refined);
  for (const cv::Point2f& c : {cv::Point2f(0, 0), cv::Point2f(200, 0), cv::Point2f(200, 150), cv::Point2f(0, 150)})
    EXPECT_LT(cv::norm(applyH(*refined, c) - applyH(truth, c)), 1e-3);
  EXPECT_FALSE(fitBlurredCorrection({{{0, 0}, {1, 1}, {0, 0}}, {{5, 0}, {6, 1}, {0, 0}}}));
  EXPECT_FALSE(refineBlurredHomography(truth, {target.begin(), target.begin() + 4}, {found.begin(), found.begin() + 4},
                                       {streak.begin(), streak.begin() + 4}));
  // Collinear matches leave the affine map undetermined.
  std::vector<BlurredMatch> line;
  for (int i = 0; i < 10; ++i) line.push_back({{static_cast<float>(10 * i), 0}, {static_cast<float>(10 * i + 1), 2}, {0, 0}});
  EXPECT_FALSE(fitBlurredCorrection(line));
}

}  // namespace
}  // namespace nft::tracker
