// The motion model's constant acceleration and its last miss (tracker/motion_model.h): an
// accelerating translation is predicted exactly by constant acceleration and missed by constant
// velocity by the change of velocity, which lastMissPx() reports; previous() is the frame before.

#include <gtest/gtest.h>

#include "tracker/motion_model.h"

namespace nft::tracker {
namespace {

cv::Matx33d translation(double x, double y) { return {1, 0, x, 0, 1, y, 0, 0, 1}; }

double maxDifference(const cv::Matx33d& a, const cv::Matx33d& b) {
  double d = 0;
  for (int i = 0; i < 9; ++i) d = std::max(d, std::abs(a.val[i] - b.val[i]));
  return d;
}

TEST(MotionModelAccelerationTest, ConstantAccelerationFollowsAnAcceleratingHand) {
  // x = 100 + 2t + 1.5t² (velocity 3.5, 6.5, 9.5, ... px per frame).
  const auto at = [](int t) { return translation(100 + 2.0 * t + 1.5 * t * t, 50 - 1.0 * t); };
  MotionModel ca(MotionModelKind::ConstantAcceleration), cv(MotionModelKind::ConstantVelocity);
  for (int t = 0; t < 2; ++t) ca.update(at(t)), cv.update(at(t));
  EXPECT_LT(maxDifference(*ca.predict(), *cv.predict()), 1e-9);  // two frames: constant velocity
  ca.update(at(2));
  cv.update(at(2));
  EXPECT_LT(maxDifference(*ca.predict(), at(3)), 1e-9);
  EXPECT_NEAR(cv.predict()->val[2], at(3).val[2] - 3.0, 1e-9);  // misses by the acceleration (3)
  EXPECT_EQ(toString(MotionModelKind::ConstantAcceleration), "constant_acceleration");
  EXPECT_EQ(motionModelKindFromString("constant_acceleration"), MotionModelKind::ConstantAcceleration);
  ASSERT_TRUE(cv.previous());
  EXPECT_LT(maxDifference(*cv.previous(), at(1)), 1e-12);
}

TEST(MotionModelAccelerationTest, LastMissIsHowFarTheLastPredictionWasOff) {
  const cv::Size target(200, 100);
  MotionModel model(MotionModelKind::ConstantVelocity);
  EXPECT_EQ(model.lastMissPx(target), 0.0);
  model.update(translation(0, 0));
  model.update(translation(10, 0));
  EXPECT_EQ(model.lastMissPx(target), 0.0);  // nothing predicted from history yet
  model.update(translation(30, 0));           // predicted 20, got 30
  EXPECT_NEAR(model.lastMissPx(target), 10.0, 1e-9);
  model.update(translation(50, 0));  // predicted 50
  EXPECT_NEAR(model.lastMissPx(target), 0.0, 1e-9);
  // A rotation about the target's centre misses most at the corners.
  MotionModel none(MotionModelKind::None);
  none.update(translation(0, 0));
  const double a = 0.1;
  const cv::Matx33d turn(std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1);
  const cv::Matx33d rotate = translation(100, 50) * turn * translation(-100, -50);  // about the centre
  none.update(rotate);
  EXPECT_NEAR(none.lastMissPx(target), 2 * std::hypot(100, 50) * std::sin(a / 2), 1e-9);
  model.reset();
  EXPECT_FALSE(model.previous());
  EXPECT_EQ(model.lastMissPx(target), 0.0);
}

}  // namespace
}  // namespace nft::tracker
