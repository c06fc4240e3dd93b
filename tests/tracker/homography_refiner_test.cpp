// HomographyRefiner (tracker/homography_refiner.h) on frames made here with a known homography:
// from a start a few pixels off it lands on the true corners through a gain and offset change,
// sensor noise, an occluder over a third of the target and (given the streak) motion blur; it
// refuses a start too far off and a frame that does not show the target, and takes a move past its
// limit only when the frame confirms it; bad input is named.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "tracker/homography_refiner.h"

namespace nft::tracker {
namespace {

const char* kGraf = "/usr/share/doc/opencv-doc/examples/data/graf1.png";

cv::Mat targetImage() {
  cv::Mat image = cv::imread(kGraf, cv::IMREAD_GRAYSCALE);
  if (image.empty()) throw std::runtime_error(std::string(kGraf) + " is missing (install opencv-doc)");
  cv::Mat small;
  cv::resize(image, small, cv::Size(320, 256), 0, 0, cv::INTER_AREA);
  return small;
}

/// The target's corners under H.
std::vector<cv::Point2d> cornersOf(const cv::Matx33d& H, cv::Size size) {
  std::vector<cv::Point2d> out;
  for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(size.width, 0), cv::Point2d(size.width, size.height),
                              cv::Point2d(0, size.height)}) {
    const cv::Vec3d p = H * cv::Vec3d(c.x, c.y, 1);
    out.emplace_back(p[0] / p[2], p[1] / p[2]);
  }
  return out;
}

double cornerError(const cv::Matx33d& A, const cv::Matx33d& B, cv::Size size) {
  const auto a = cornersOf(A, size), b = cornersOf(B, size);
  double sum = 0;
  for (size_t k = 0; k < 4; ++k) sum += (a[k] - b[k]).dot(a[k] - b[k]);
  return std::sqrt(sum / 4);
}

/// A perspective view of the target in a 640 × 480 frame over a noise background.
struct View {
  cv::Matx33d truth;
  cv::Mat frame;
};

View makeView(const cv::Mat& target, double gain = 0.8, double offset = 20, double noise = 2.0) {
  const cv::Point2f from[4] = {{0, 0}, {320, 0}, {320, 256}, {0, 256}};
  const cv::Point2f to[4] = {{170, 110}, {470, 95}, {455, 360}, {150, 340}};
  View v;
  v.truth = cv::Matx33d(cv::getPerspectiveTransform(from, to));
  cv::Mat background(480, 640, CV_8UC1);
  cv::randu(background, 60, 200);
  cv::GaussianBlur(background, background, cv::Size(0, 0), 2.0);
  cv::Mat lit;
  target.convertTo(lit, CV_8U, gain, offset);
  cv::Mat mask(target.size(), CV_8UC1, cv::Scalar(255));
  cv::Mat warped, warpedMask;
  cv::warpPerspective(lit, warped, cv::Mat(v.truth), background.size());
  cv::warpPerspective(mask, warpedMask, cv::Mat(v.truth), background.size(), cv::INTER_NEAREST);
  warped.copyTo(background, warpedMask);
  cv::Mat n(background.size(), CV_16SC1);
  cv::randn(n, 0, noise);
  cv::Mat f16;
  background.convertTo(f16, CV_16SC1);
  f16 += n;
  f16.convertTo(v.frame, CV_8UC1);
  return v;
}

/// The truth with its corners moved by up to `px` (a fixed pattern).
cv::Matx33d perturbed(const cv::Matx33d& truth, cv::Size size, double px) {
  const auto c = cornersOf(truth, size);
  const cv::Point2f from[4] = {{0, 0}, {static_cast<float>(size.width), 0},
                               {static_cast<float>(size.width), static_cast<float>(size.height)},
                               {0, static_cast<float>(size.height)}};
  const double dx[4] = {1, -0.6, 0.8, -1}, dy[4] = {-0.7, -1, 0.9, 0.5};
  cv::Point2f to[4];
  for (int k = 0; k < 4; ++k)
    to[k] = cv::Point2f(static_cast<float>(c[static_cast<size_t>(k)].x + px * dx[k]),
                        static_cast<float>(c[static_cast<size_t>(k)].y + px * dy[k]));
  return cv::Matx33d(cv::getPerspectiveTransform(from, to));
}

TEST(HomographyRefiner, LandsOnTheTrueCornersThroughGainOffsetAndNoise) {
  const cv::Mat target = targetImage();
  const HomographyRefiner refiner(target);
  const View v = makeView(target);
  for (const double px : {1.0, 3.0, 5.0}) {
    const cv::Matx33d start = perturbed(v.truth, target.size(), px);
    const Refinement r = refiner.refine(v.frame, start);
    ASSERT_TRUE(r.homography) << px << " px off";
    EXPECT_LT(cornerError(*r.homography, v.truth, target.size()), 0.25) << "from " << px << " px off";
    EXPECT_GT(r.inView, 200);
    EXPECT_GT(r.correlation, 0.9);
    EXPECT_GT(r.agreeing, r.inView / 2);
  }
  // A BGR frame is read as its grey.
  cv::Mat bgr;
  cv::cvtColor(v.frame, bgr, cv::COLOR_GRAY2BGR);
  const Refinement fromBgr = refiner.refine(bgr, perturbed(v.truth, target.size(), 3.0));
  ASSERT_TRUE(fromBgr.homography);
  EXPECT_LT(cornerError(*fromBgr.homography, v.truth, target.size()), 0.25);
}

TEST(HomographyRefiner, AnOccluderOverAThirdOfTheTargetDoesNotPullTheFit) {
  const cv::Mat target = targetImage();
  const HomographyRefiner refiner(target);
  View v = makeView(target);
  // A textured rectangle over the target's left third (in the frame).
  cv::Mat occluder(260, 110, CV_8UC1);
  cv::randu(occluder, 0, 255);
  occluder.copyTo(v.frame(cv::Rect(150, 95, 110, 260)));
  const Refinement r = refiner.refine(v.frame, perturbed(v.truth, target.size(), 3.0));
  ASSERT_TRUE(r.homography);
  // Measured 0.52 px from 3 px off (the occluder's noise takes some of the weights' scale).
  EXPECT_LT(cornerError(*r.homography, v.truth, target.size()), 0.75);
  EXPECT_LT(r.agreeing, r.inView);  // occluded samples are left out
}

TEST(HomographyRefiner, MotionBlurIsModelledFromTheStreak) {
  const cv::Mat target = targetImage();
  const HomographyRefiner refiner(target);
  View v = makeView(target, 0.8, 20, 1.0);
  // A horizontal streak of 15 px, centred: the mean of the frame shifted from −7 to +7 px.
  cv::Mat kernel = cv::Mat::ones(1, 15, CV_32F) / 15.0f;
  cv::filter2D(v.frame, v.frame, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT);
  const cv::Matx33d start = perturbed(v.truth, target.size(), 3.0);
  const Refinement blurred = refiner.refine(v.frame, start, cv::Vec2d(14, 0));
  ASSERT_TRUE(blurred.homography);
  EXPECT_LT(cornerError(*blurred.homography, v.truth, target.size()), 0.6);
}

TEST(HomographyRefiner, RefusesAStartTooFarOffAndAFrameWithoutTheTarget) {
  const cv::Mat target = targetImage();
  const HomographyRefiner refiner(target);
  const View v = makeView(target);
  EXPECT_FALSE(refiner.refine(v.frame, perturbed(v.truth, target.size(), 40.0)).homography);
  cv::Mat noise(480, 640, CV_8UC1);
  cv::randu(noise, 0, 255);
  EXPECT_FALSE(refiner.refine(noise, v.truth).homography);
  // Out of the frame entirely: nothing in view.
  const cv::Matx33d away = cv::Matx33d(1, 0, 2000, 0, 1, 2000, 0, 0, 1) * v.truth;
  const Refinement r = refiner.refine(v.frame, away);
  EXPECT_FALSE(r.homography);
  EXPECT_EQ(r.inView, 0);
}

TEST(HomographyRefiner, AMovePastTheLargestIsTakenWhenTheFrameConfirmsIt) {
  // A start 8 px off with maxShiftPx at 4: the move is past the limit, but the alignment ends
  // correlating far better than it started (RefinerOptions::confirmingGain), so it is taken, up to
  // confirmedShiftFactor times the limit; with the factor at 1 (no confirmation) it is refused.
  const cv::Mat target = targetImage();
  const View v = makeView(target);
  const cv::Matx33d start = perturbed(v.truth, target.size(), 8.0);
  RefinerOptions options;
  options.maxShiftPx = 4;
  const Refinement taken = HomographyRefiner(target, options).refine(v.frame, start);
  ASSERT_TRUE(taken.homography);
  EXPECT_GT(taken.shiftPx, options.maxShiftPx);
  EXPECT_GE(taken.correlation - taken.startCorrelation, options.confirmingGain);
  EXPECT_LT(cornerError(*taken.homography, v.truth, target.size()), 0.25);
  options.confirmedShiftFactor = 1;
  EXPECT_FALSE(HomographyRefiner(target, options).refine(v.frame, start).homography);
  options.confirmedShiftFactor = 3;
  options.maxShiftPx = 2;  // the move is more than 3 times the limit
  EXPECT_FALSE(HomographyRefiner(target, options).refine(v.frame, start).homography);
}

TEST(HomographyRefiner, TheShiftLimitTakesAConfirmedMoveUpToItsFactor) {
  RefinerOptions o;  // maxShiftPx 24, confirmingGain 0.15, confirmedShiftFactor 3
  EXPECT_TRUE(withinShiftLimit(o, 24, 0.9, 0.8));    // within the limit, whatever the correlations
  EXPECT_FALSE(withinShiftLimit(o, 25, 0.7, 0.84));  // past it, the correlation rose by 0.14 only
  EXPECT_TRUE(withinShiftLimit(o, 72, 0.7, 0.85));   // rose by 0.15: up to 3 × 24
  EXPECT_FALSE(withinShiftLimit(o, 73, 0.2, 0.95));  // past 3 × 24
}

TEST(HomographyRefiner, WithoutTheCoarseToFinePathAStartFarOffIsRefused) {
  // coarseToFine = false (what the Session passes for a target whose refinements keep being
  // refused): a start near the optimum is refined as by the whole path; one the quick alignment
  // at the target's level does not bring to convergence is refused, where the coarse-to-fine
  // path lands it.
  const cv::Mat target = targetImage();
  const HomographyRefiner refiner(target);
  const View v = makeView(target);
  const cv::Matx33d near = perturbed(v.truth, target.size(), 1.0);
  const Refinement quickNear = refiner.refine(v.frame, near, {}, false);
  ASSERT_TRUE(quickNear.homography);
  EXPECT_LT(cornerError(*quickNear.homography, v.truth, target.size()), 0.25);
  for (const double px : {6.0, 10.0}) {
    const cv::Matx33d far = perturbed(v.truth, target.size(), px);
    const Refinement whole = refiner.refine(v.frame, far), quick = refiner.refine(v.frame, far, {}, false);
    ASSERT_TRUE(whole.homography) << px << " px off";
    EXPECT_LT(cornerError(*whole.homography, v.truth, target.size()), 0.25) << px << " px off";
    EXPECT_FALSE(quick.homography) << px << " px off";
    EXPECT_LT(quick.iterations, whole.iterations);  // measured 4 against 28 and 31
  }
}

TEST(HomographyRefiner, BadInputIsNamed) {
  EXPECT_THROW(HomographyRefiner(cv::Mat(8, 8, CV_8UC1, cv::Scalar(0))), std::invalid_argument);
  EXPECT_THROW(HomographyRefiner(cv::Mat(64, 64, CV_32F, cv::Scalar(0))), std::invalid_argument);
  RefinerOptions bad;
  bad.samples = 4;
  EXPECT_THROW(HomographyRefiner(targetImage(), bad), std::invalid_argument);
  bad = RefinerOptions();
  bad.confirmedShiftFactor = 0.5;
  try {
    validateRefinerOptions(bad);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("RefinerOptions::confirmedShiftFactor"), std::string::npos);
  }
  bad = RefinerOptions();
  bad.confirmingGain = 0;
  EXPECT_THROW(validateRefinerOptions(bad), std::invalid_argument);
  const HomographyRefiner refiner(targetImage());
  EXPECT_THROW(refiner.refine(cv::Mat(), cv::Matx33d::eye()), std::invalid_argument);
  try {
    refiner.refine(cv::Mat(10, 10, CV_32F), cv::Matx33d::eye());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected a CV_8UC1 or CV_8UC3 frame, got CV_32FC1"), std::string::npos);
  }
}

}  // namespace
}  // namespace nft::tracker
