// The One Euro filter (tracker/one_euro_filter.h; Casiez, Roussel, Vogel, CHI 2012): its first
// steps against the paper's equations worked by hand, and what the Session's pose filter needs of
// it — a still, noisy signal at least 3× steadier, a target moving 60 px per frame followed less
// than a frame behind.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tracker/one_euro_filter.h"

namespace {

using nft::tracker::CornerFilter;
using nft::tracker::OneEuroFilter;
using nft::tracker::OneEuroOptions;

constexpr double kFrame = 1.0 / 30.0;  // 30 frames/s

double stddev(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  return std::sqrt(var / static_cast<double>(v.size()));
}

TEST(OneEuroFilter, FollowsThePapersEquations) {
  OneEuroOptions o;
  o.minCutoffHz = 1.0;
  o.beta = 0.02;
  o.derivativeCutoffHz = 1.0;
  OneEuroFilter f(o);
  EXPECT_EQ(f.filter(0.0, kFrame), 0.0) << "the first sample passes through";
  // Second sample x = 1 after T_e = 1/30 s, by hand: raw speed 30 /s; α(1 Hz) = 1 / (1 + 30 / 2π)
  // = 0.173171; dx̂ = 5.19512; f_c = 1 + 0.02 · 5.19512 = 1.10390; α(f_c) = 1 / (1 + 30 / (2π ·
  // 1.10390)) = 0.187785; x̂ = 0.187785.
  EXPECT_NEAR(f.filter(1.0, kFrame), 0.187785, 1e-5);
  f.reset();
  EXPECT_EQ(f.filter(7.0, kFrame), 7.0) << "after reset(), the next sample passes through";
}

TEST(OneEuroFilter, AStillNoisySignalIsAtLeastThreeTimesSteadier) {
  std::mt19937 rng(3);
  // 0.05 px: the jitter of the Session's corners on a still camera with sensor noise
  // (tests/session/pose_filter_test.cpp). A larger noise raises the cutoff through β (0.5 px:
  // 2.1× steadier with the defaults).
  std::normal_distribution<double> noise(0.0, 0.05);
  OneEuroFilter f;
  std::vector<double> in, out;
  for (int i = 0; i < 600; ++i) {
    const double x = 100.0 + noise(rng);
    const double y = f.filter(x, kFrame);
    if (i >= 60) {  // after two seconds
      in.push_back(x);
      out.push_back(y);
    }
  }
  EXPECT_GT(stddev(in) / stddev(out), 3.0) << "input " << stddev(in) << " px, filtered " << stddev(out) << " px";
}

TEST(OneEuroFilter, ATargetMovingSixtyPixelsAFrameLagsLessThanAFrame) {
  std::mt19937 rng(4);
  std::normal_distribution<double> noise(0.0, 0.5);
  OneEuroFilter f;
  double lag = 0;
  int n = 0;
  for (int i = 0; i < 200; ++i) {
    const double truth = 60.0 * i;
    const double y = f.filter(truth + noise(rng), kFrame);
    if (i >= 30) {
      lag += truth - y;
      ++n;
    }
  }
  const double lagFrames = lag / n / 60.0;
  std::printf("60 px a frame: the filter lags %.3f frames\n", lagFrames);
  EXPECT_GT(lagFrames, 0.0) << "a low-pass filter lags";
  EXPECT_LT(lagFrames, 1.0);
}

TEST(OneEuroFilter, RefusesBadParametersAndTimeSteps) {
  OneEuroOptions o;
  o.minCutoffHz = 0;
  EXPECT_THROW(OneEuroFilter{o}, std::invalid_argument);
  o = {};
  o.beta = -1;
  EXPECT_THROW(OneEuroFilter{o}, std::invalid_argument);
  OneEuroFilter f;
  f.filter(1.0, kFrame);
  EXPECT_THROW(f.filter(1.0, 0.0), std::invalid_argument);
  CornerFilter c;
  EXPECT_THROW(c.filter({cv::Point2f(0, 0)}, kFrame), std::invalid_argument);
}

TEST(CornerFilter, FiltersEachCoordinateOnItsOwn) {
  CornerFilter c;
  OneEuroFilter x0, y3;
  const std::vector<cv::Point2f> a = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
  const std::vector<cv::Point2f> b = {{1, 0}, {10, 0}, {10, 10}, {0, 13}};
  EXPECT_EQ(c.filter(a, kFrame), a);
  x0.filter(0, kFrame);
  y3.filter(10, kFrame);
  const std::vector<cv::Point2f> out = c.filter(b, kFrame);
  EXPECT_FLOAT_EQ(out[0].x, static_cast<float>(x0.filter(1, kFrame)));
  EXPECT_FLOAT_EQ(out[3].y, static_cast<float>(y3.filter(13, kFrame)));
  EXPECT_EQ(out[1], b[1]) << "an unchanged coordinate stays";
}

}  // namespace
