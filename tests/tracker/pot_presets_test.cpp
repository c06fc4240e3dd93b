// The POT-style presets (synthetic/synthetic_presets.h): each path has the challenge it names
// (measured on its exact ground truth: speed up to 80 px per frame, the occluder over up to half
// the target, up to half of it out of view, ...), its ground truth is where the target is drawn
// even under motion blur, and the tracker keeps at least a floor of success on each — floors
// set below what this code measures on the first 120 frames (docs/results.md, "Fast motion and the POT
// presets"), far above what the tracker before issue 21 did (motion blur 9 %, out of view 33 %,
// unconstrained 24 %, occlusion 90 % at 5 px over 300 frames).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include <opencv2/imgproc.hpp>

#include "tracker/preset_run.h"

namespace nft::replay {
namespace {

/// The largest displacement of a target corner between consecutive frames, frame pixels.
double fastestCorner(const std::vector<QuadCorners>& truth) {
  double fastest = 0;
  for (size_t i = 1; i < truth.size(); ++i)
    for (size_t k = 0; k < 4; ++k) fastest = std::max(fastest, static_cast<double>(cv::norm(truth[i][k] - truth[i - 1][k])));
  return fastest;
}

/// The largest fraction of the target's area outside a 640 × 480 frame.
double mostOutside(const std::vector<QuadCorners>& truth) {
  const std::vector<cv::Point2f> frame = {{0, 0}, {640, 0}, {640, 480}, {0, 480}};
  double most = 0;
  for (const QuadCorners& q : truth) {
    const std::vector<cv::Point2f> quad(q.begin(), q.end());
    std::vector<cv::Point2f> inside;
    const double area = cv::contourArea(quad);
    most = std::max(most, 1.0 - cv::intersectConvexConvex(quad, frame, inside) / area);
  }
  return most;
}

SyntheticSequence sequenceOf(SyntheticPreset preset, int frames = 300) {
  SyntheticSequenceOptions o;
  o.preset = preset;
  o.frames = frames;
  return SyntheticSequence(o);
}

TEST(PotPresets, EachPathHasItsChallenge) {
  const auto widths = [](const SyntheticSequence& s) {
    double lo = 1e9, hi = 0;
    for (const QuadCorners& q : s.groundTruth()) {
      const double w = cv::norm(q[1] - q[0]);
      lo = std::min(lo, w), hi = std::max(hi, w);
    }
    return std::pair<double, double>(lo, hi);
  };
  const auto [scaleLo, scaleHi] = widths(sequenceOf(SyntheticPreset::Scale));
  EXPECT_GT(scaleHi / scaleLo, 4.0);
  const SyntheticSequence blur = sequenceOf(SyntheticPreset::MotionBlur);
  EXPECT_GT(fastestCorner(blur.groundTruth()), 70.0);
  EXPECT_LE(fastestCorner(blur.groundTruth()), 80.0);
  for (SyntheticPreset p : potPresets()) EXPECT_LE(fastestCorner(sequenceOf(p).groundTruth()), 80.0) << toString(p);
  EXPECT_GT(mostOutside(sequenceOf(SyntheticPreset::OutOfView).groundTruth()), 0.4);
  EXPECT_LT(mostOutside(sequenceOf(SyntheticPreset::Perspective).groundTruth()), 0.01);
  const SyntheticSequence occlusion = sequenceOf(SyntheticPreset::Occlusion);
  double covered = 0;
  for (int i = 0; i < occlusion.frameCount(); ++i)
    if (const auto o = occlusion.occluder(i)) covered = std::max(covered, o->coveredFraction());
  EXPECT_GT(covered, 0.45);
  EXPECT_LE(covered, 0.5);
  EXPECT_FALSE(occlusion.occluder(0));  // the first frame shows the whole target
  EXPECT_FALSE(sequenceOf(SyntheticPreset::Rotation).occluder(100));
  // Names round-trip; "default" is the built-in sequence, not a POT preset.
  for (SyntheticPreset p : potPresets()) EXPECT_EQ(parseSyntheticPreset(toString(p)), p);
  EXPECT_EQ(parseSyntheticPreset("default"), SyntheticPreset::Default);
  EXPECT_FALSE(parseSyntheticPreset("blur"));
  EXPECT_EQ(potPresets().size(), 7u);
}

TEST(PotPresets, TheGroundTruthIsWhereTheTargetIsDrawnEvenUnderBlur) {
  // The target drawn sharp at the true homography must match the rendered frame best with no
  // shift (the blur is centred on the mid-exposure pose the ground truth gives), measured in
  // frame pixels around the target's middle, on the fastest frame of each path and a calm one.
  for (SyntheticPreset p : {SyntheticPreset::MotionBlur, SyntheticPreset::Rotation, SyntheticPreset::Perspective,
                            SyntheticPreset::Scale}) {
    SyntheticSequenceOptions o;
    o.preset = p;
    o.frames = 200;
    o.noiseSigma = 0;
    const SyntheticSequence s(o);
    const std::vector<QuadCorners> truth = s.groundTruth();
    const auto speed = [&](int i) {
      return cv::norm(truth[static_cast<size_t>(i)][0] - truth[static_cast<size_t>(i - 1)][0]);
    };
    int fastest = 1;
    for (int i = 1; i < s.frameCount(); ++i)
      if (speed(i) > speed(fastest)) fastest = i;
    cv::Mat targetGray;
    cv::cvtColor(s.targetImage(), targetGray, cv::COLOR_BGR2GRAY);
    for (int i : {1, fastest}) {
      cv::Mat frameGray, drawn;
      cv::cvtColor(s.render(i), frameGray, cv::COLOR_BGR2GRAY);
      cv::warpPerspective(targetGray, drawn, s.homography(i), frameGray.size(), cv::INTER_AREA);
      // The middle third of the target's bounding box in the frame, searched ±r px.
      const std::vector<cv::Point2f> quad(truth[static_cast<size_t>(i)].begin(), truth[static_cast<size_t>(i)].end());
      const cv::Rect box = cv::boundingRect(quad);
      const cv::Rect inner(box.x + box.width / 3, box.y + box.height / 3, box.width / 3, box.height / 3);
      const int r = 6;
      const cv::Rect around(inner.x - r, inner.y - r, inner.width + 2 * r, inner.height + 2 * r);
      ASSERT_EQ(around & cv::Rect(0, 0, 640, 480), around) << toString(p) << " frame " << i;
      cv::Mat score;
      cv::matchTemplate(drawn(around), frameGray(inner), score, cv::TM_CCOEFF_NORMED);
      double best = 0;
      cv::Point at;
      cv::minMaxLoc(score, nullptr, &best, nullptr, &at);
      EXPECT_GT(best, 0.5) << toString(p) << " frame " << i;
      EXPECT_LE(cv::norm(at - cv::Point(r, r)), 1.0) << toString(p) << " frame " << i << " (speed " << speed(i) << " px)";
    }
  }
}

/// Floors of success at 5 px and of the tracking lane's share, first 120 frames.
struct Floor {
  SyntheticPreset preset;
  double at5, tracked;
};

/// gtest prints a parameter with this (ctest shows it in the test's name).
void PrintTo(const Floor& f, std::ostream* out) { *out << toString(f.preset); }

class PotPresetFloor : public ::testing::TestWithParam<Floor> {};

TEST_P(PotPresetFloor, TheTrackerKeepsTheTarget) {
  const Floor f = GetParam();
  const testing::PresetScore s = testing::runPreset(f.preset, 120);
  EXPECT_GE(s.at5(), f.at5) << toString(f.preset) << ": " << s.within5 << " of " << s.frames << " frames within 5 px";
  EXPECT_GE(s.trackedShare(), f.tracked) << toString(f.preset) << ": the tracking lane produced " << s.tracking
                                         << " of " << s.frames << " frames";
}

// Measured here (120 frames, llvmpipe; within 5 px / tracked): scale, rotation, perspective, out
// of view 100 % / 99.2 %; occlusion 99.2 % / 99.2 %; motion blur 99.2 % / 99.2 %; unconstrained
// 96.7 % / 99.2 % (82.5 % / 87.5 % before the coarse levels fitted a similarity or affine correction
// instead of a homography, tracker/tracking_lane.h step 3; seeds 9 and 10 over 300 frames: 97.0
// and 96.3 %). The floors leave a few frames of room.
INSTANTIATE_TEST_SUITE_P(Floors, PotPresetFloor,
                         ::testing::Values(Floor{SyntheticPreset::Scale, 0.95, 0.95},
                                           Floor{SyntheticPreset::Rotation, 0.95, 0.95},
                                           Floor{SyntheticPreset::Perspective, 0.95, 0.95},
                                           Floor{SyntheticPreset::MotionBlur, 0.88, 0.95},
                                           Floor{SyntheticPreset::Occlusion, 0.92, 0.93},
                                           Floor{SyntheticPreset::OutOfView, 0.95, 0.95},
                                           Floor{SyntheticPreset::Unconstrained, 0.90, 0.95}),
                         [](const ::testing::TestParamInfo<Floor>& p) { return toString(p.param.preset); });

}  // namespace
}  // namespace nft::replay
