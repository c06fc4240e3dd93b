// The motion model (tracker/motion_model.h): constant velocity extrapolates the last motion,
// "none" repeats the last homography, reset forgets.

#include <gtest/gtest.h>

#include <stdexcept>

#include "tracker/motion_model.h"

namespace nft::tracker {
namespace {

cv::Matx33d translation(double x, double y) { return {1, 0, x, 0, 1, y, 0, 0, 1}; }

double maxDifference(const cv::Matx33d& a, const cv::Matx33d& b) {
  double d = 0;
  for (int i = 0; i < 9; ++i) d = std::max(d, std::abs(a.val[i] - b.val[i]));
  return d;
}

TEST(MotionModelTest, ConstantVelocityExtrapolatesTheLastMotion) {
  MotionModel model(MotionModelKind::ConstantVelocity);
  EXPECT_FALSE(model.predict());
  model.update(translation(100, 50));
  EXPECT_LT(maxDifference(*model.predict(), translation(100, 50)), 1e-12);  // one frame: no velocity yet
  model.update(translation(104, 47));
  EXPECT_LT(maxDifference(*model.predict(), translation(108, 44)), 1e-9);
  // A rotation about the frame origin by 2° per frame continues to 3 × 2°.
  const auto rotation = [](double degrees) {
    const double a = degrees * CV_PI / 180;
    return cv::Matx33d(std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1);
  };
  const cv::Matx33d H = translation(300, 200) * cv::Matx33d(0.8, 0.1, 0, -0.05, 0.9, 0, 1e-4, 2e-4, 1);
  model.update(rotation(2) * H);
  model.update(rotation(4) * H);
  cv::Matx33d expected = rotation(6) * H;
  expected *= 1.0 / expected(2, 2);
  EXPECT_LT(maxDifference(*model.predict(), expected), 1e-9);
}

TEST(MotionModelTest, NoneRepeatsTheLastHomographyAndResetForgets) {
  MotionModel model(MotionModelKind::None);
  model.update(translation(100, 50));
  model.update(translation(104, 47));
  EXPECT_LT(maxDifference(*model.predict(), translation(104, 47)), 1e-12);
  model.reset();
  EXPECT_FALSE(model.predict());
  EXPECT_FALSE(model.last());
}

TEST(MotionModelTest, NamesConvertBothWays) {
  EXPECT_EQ(motionModelKindFromString(toString(MotionModelKind::ConstantVelocity)), MotionModelKind::ConstantVelocity);
  EXPECT_EQ(motionModelKindFromString("none"), MotionModelKind::None);
  try {
    motionModelKindFromString("kalman");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kalman"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("constant_velocity"), std::string::npos);
  }
}

}  // namespace
}  // namespace nft::tracker
