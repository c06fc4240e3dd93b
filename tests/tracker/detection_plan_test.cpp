// DetectionPlan (tracker/detection_plan.h): the auto keypoint budget follows the smallest target
// to find, a fixed one stays, and the passes grow from the first pass's share of the budget.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tracker/detection_lane.h"
#include "tracker/detection_plan.h"

namespace nft::tracker {
namespace {

DetectionPlan plan(double fraction, int maxKeypoints = 0, double firstPass = 0.25) {
  DetectionLaneOptions o;
  o.minFrameFraction = fraction;
  o.detector.maxKeypoints = maxKeypoints;
  o.firstPassFraction = firstPass;
  return DetectionPlan(cv::Size(640, 480), o);
}

TEST(DetectionPlan, TheAutoBudgetFollowsTheSmallestTarget) {
  EXPECT_EQ(plan(0.2).maxKeypoints(), 2000);   // 80 / 0.04
  EXPECT_EQ(plan(0.25).maxKeypoints(), 1280);  // 80 / 0.0625
  EXPECT_EQ(plan(0.5).maxKeypoints(), 320);
  EXPECT_EQ(plan(1.0).maxKeypoints(), 300);    // at least kMinAutoKeypoints
  EXPECT_EQ(plan(0.05).maxKeypoints(), 8000);  // at most kMaxAutoKeypoints
  EXPECT_EQ(plan(0.2, 1000).maxKeypoints(), 1000);  // a fixed budget stays
  EXPECT_EQ(plan(0.2).detector().maxKeypoints, 2000);
  DetectionLaneOptions o;
  o.targetKeypointFactor = 2.0;
  EXPECT_EQ(DetectionPlan(cv::Size(640, 480), o, 300).maxKeypoints(), 600);
  EXPECT_EQ(DetectionPlan(cv::Size(640, 480), o, 50).maxKeypoints(), 200);
}

TEST(DetectionPlan, PassesDoubleFromTheFirstShareOfTheBudget) {
  const DetectionPlan p = plan(0.2);  // 2000, first pass 500
  EXPECT_EQ(p.passEnds(2000), (std::vector<size_t>{500, 1000, 2000}));
  EXPECT_EQ(p.passEnds(1300), (std::vector<size_t>{500, 1000, 1300}));
  EXPECT_EQ(p.passEnds(400), (std::vector<size_t>{400}));
  EXPECT_TRUE(p.passEnds(0).empty());
  EXPECT_EQ(plan(0.2, 0, 1.0).passEnds(2000), (std::vector<size_t>{2000}));
  EXPECT_EQ(plan(0.2, 1000, 0.5).passEnds(1000), (std::vector<size_t>{500, 1000}));  // the former two passes
  // A first pass under 4 × minInliers (80) keypoints is not split off; the cross-check takes one pass.
  EXPECT_EQ(plan(0.2, 300, 0.25).passEnds(300), (std::vector<size_t>{300}));
  DetectionLaneOptions o;
  o.matching.crossCheck = true;
  EXPECT_EQ(DetectionPlan(cv::Size(640, 480), o).passEnds(2000), (std::vector<size_t>{2000}));
}

TEST(DetectionPlan, BadOptionsAreNamed) {
  EXPECT_THROW(plan(0.0), std::invalid_argument);
  EXPECT_THROW(plan(1.5), std::invalid_argument);
  try {
    plan(0.0);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("minFrameFraction must be in (0, 1]"), std::string::npos);
  }
  DetectionLaneOptions o;
  EXPECT_THROW(DetectionPlan(cv::Size(0, 480), o), std::invalid_argument);
  o.detector.levels = 0;
  EXPECT_THROW(DetectionPlan(cv::Size(640, 480), o), std::invalid_argument);
}

}  // namespace
}  // namespace nft::tracker
