// The two-lane tracker (tracker/tracker.h) on tmt_bookI, every frame: success rates against
// gt.tsv with both lanes, the tracking lane alone from the ground truth of the first frame,
// recovery after a forced loss (a blank frame), and frame-size errors. The measurements behind
// the defaults are in tracker/tracker.h.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/videoio.hpp>

#include "gpu/gpu_test.h"
#include "tracker/tmt_ground_truth.h"
#include "tracker/tmt_target.h"
#include "tracker/tracker.h"

namespace nft::tracker {
namespace {

using nft::gpu::testing::GpuTest;

class TrackerTest : public GpuTest {};

/// Scores of one run over the video.
struct RunScore {
  int frames = 0, within5 = 0, within10 = 0, found = 0, tilted = 0, tiltedWithin10 = 0;
  std::vector<double> trackingMs, detectionMs, errors;
  double at5() const { return frames ? static_cast<double>(within5) / frames : 0; }
  double at10() const { return frames ? static_cast<double>(within10) / frames : 0; }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Runs `tracker` over every frame of video.mp4; `alter` may replace a frame (by index) before it
/// is tracked, `observe` sees each result.
RunScore runTracker(Tracker& tracker, const std::vector<testing::TmtFrame>& truth,
                    const std::function<void(int, cv::Mat&)>& alter = {},
                    const std::function<void(int, const TrackResult&)>& observe = {}) {
  const std::string path = (testing::dataDir() / "video/tmt_bookI/video.mp4").string();
  cv::VideoCapture video(path);
  if (!video.isOpened()) throw std::runtime_error("cannot open " + path);
  RunScore score;
  cv::Mat frame;
  for (int i = 0; video.read(frame) && i < static_cast<int>(truth.size()); ++i) {
    if (alter) alter(i, frame);
    const TrackResult r = tracker.track(frame);
    if (observe) observe(i, r);
    ++score.frames;
    const bool tilted = i + 1 >= 214 && i + 1 <= 375;
    score.tilted += tilted ? 1 : 0;
    if (r.state == TrackerState::Tracking) score.trackingMs.push_back(r.timings.total);
    if (r.timings.detection.total() > 0) score.detectionMs.push_back(r.timings.total);
    if (!r.found) continue;
    ++score.found;
    const double error = testing::alignmentError(r.corners, truth[static_cast<size_t>(i)].corners);
    score.errors.push_back(error);
    score.within5 += error <= 5 ? 1 : 0;
    score.within10 += error <= 10 ? 1 : 0;
    score.tiltedWithin10 += tilted && error <= 10 ? 1 : 0;
  }
  return score;
}

void print(const std::string& name, const RunScore& s) {
  std::cout << name << ": " << s.frames << " frames, success " << 100 * s.at5() << " % at 5 px, " << 100 * s.at10()
            << " % at 10 px, found " << s.found << ", tilted frames within 10 px " << s.tiltedWithin10 << "/"
            << s.tilted << "; median ms per frame: tracking " << median(s.trackingMs) << " (" << s.trackingMs.size()
            << " frames), with detection " << median(s.detectionMs) << " (" << s.detectionMs.size() << "); alignment error median " << median(s.errors) << " px, max " << (s.errors.empty() ? 0 : *std::max_element(s.errors.begin(), s.errors.end())) << " px\n";
}

TEST_F(TrackerTest, TracksTmtBookWithBothLanes) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const auto truth = testing::loadTmtGroundTruth();
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  Tracker tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize));
  const RunScore s = runTracker(tracker, truth);
  print("tracker, both lanes", s);
  EXPECT_GE(s.at5(), 0.75);
  EXPECT_GE(s.at10(), 0.85);
}

TEST_F(TrackerTest, TrackingLaneAloneFollowsTheBookFromTheFirstFrame) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const auto truth = testing::loadTmtGroundTruth();
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  TrackerOptions options;
  options.detectionEnabled = false;
  Tracker tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize), options);
  tracker.initialise(testing::tmtHomography(truth[0]));
  const RunScore s = runTracker(tracker, truth);
  print("tracking lane alone", s);
  EXPECT_GE(s.at10(), 0.85);
}

TEST_F(TrackerTest, DetectionAloneIsRefinedInEachFrameByThePatches) {
  // tracking.enabled false: no frame-to-frame tracking, but each detection is still refined by
  // the tracking lane's NCC patches in its own frame (refineDetections). Every 13th frame of
  // tmt_bookI, refined against not refined (measured: median error 0.74 against 1.00 px over
  // the 36 frames both find, 30 against 21 within 2 px; without the tilted views 0.35 against
  // 0.63 px, 26 against 21 of 29).
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const auto truth = testing::loadTmtGroundTruth();
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  TrackerOptions refinedOptions, plainOptions;
  refinedOptions.trackingEnabled = plainOptions.trackingEnabled = false;
  plainOptions.refineDetections = false;
  Tracker refined(caps(), model, defaultCalibration(testing::kTmtFrameSize), refinedOptions);
  Tracker plain(caps(), model, defaultCalibration(testing::kTmtFrameSize), plainOptions);
  std::vector<double> refinedErrors, plainErrors;
  int refinedWithin2 = 0, plainWithin2 = 0;
  TrackResult p;  // the same frame through the detection lane without refinement
  runTracker(
      refined, truth,
      [&](int i, cv::Mat& frame) {
        if (i % 13 == 0) p = plain.track(frame);
      },
      [&](int i, const TrackResult& r) {
        if (i % 13 != 0) return;
        EXPECT_NE(r.state, TrackerState::Tracking) << "frame " << i << ": tracked without tracking";
        if (!r.found || !p.found) return;
        const auto& gt = truth[static_cast<size_t>(i)].corners;
        refinedErrors.push_back(testing::alignmentError(r.corners, gt));
        plainErrors.push_back(testing::alignmentError(p.corners, gt));
        refinedWithin2 += refinedErrors.back() <= 2 ? 1 : 0;
        plainWithin2 += plainErrors.back() <= 2 ? 1 : 0;
      });
  std::cout << "detection alone, every 13th frame found by both: " << refinedErrors.size() << "; median error "
            << median(refinedErrors) << " px refined, " << median(plainErrors) << " px not; within 2 px "
            << refinedWithin2 << " against " << plainWithin2 << "\n";
  ASSERT_GE(refinedErrors.size(), 20u);
  EXPECT_LE(median(refinedErrors), 0.85 * median(plainErrors));
  EXPECT_GE(refinedWithin2, plainWithin2 + 5);
}

/// Replaces the frames `blanks` by grey and checks the target is lost there and found again
/// (within 5 px of gt.tsv) within 3 frames; returns the state of each recovery frame.
std::vector<TrackerState> checkRecovery(Tracker& tracker, const std::vector<testing::TmtFrame>& truth,
                                        const std::vector<int>& blanks) {
  std::vector<int> recoveredAfter(blanks.size(), -1);
  std::vector<TrackerState> recoveryState(blanks.size(), TrackerState::Lost);
  std::vector<TrackResult> atBlank(blanks.size());
  runTracker(
      tracker, truth,
      [&](int i, cv::Mat& frame) {
        if (std::find(blanks.begin(), blanks.end(), i) != blanks.end()) frame.setTo(cv::Scalar::all(128));
      },
      [&](int i, const TrackResult& r) {
        for (size_t b = 0; b < blanks.size(); ++b) {
          if (i == blanks[b]) atBlank[b] = r;
          const int after = i - blanks[b];
          if (after >= 1 && after <= 3 && recoveredAfter[b] < 0 && r.found &&
              testing::alignmentError(r.corners, truth[static_cast<size_t>(i)].corners) <= 5) {
            recoveredAfter[b] = after;
            recoveryState[b] = r.state;
          }
        }
      });
  for (size_t b = 0; b < blanks.size(); ++b) {
    SCOPED_TRACE("blank frame " + std::to_string(blanks[b]));
    EXPECT_FALSE(atBlank[b].found);
    EXPECT_EQ(atBlank[b].state, TrackerState::Lost);
    EXPECT_NE(atBlank[b].rejection.find("tracking lost"), std::string::npos) << atBlank[b].rejection;
    EXPECT_GE(recoveredAfter[b], 1) << "not found within 5 px in the 3 frames after the blank one";
    std::cout << "blank frame " << blanks[b] << ": recovered after " << recoveredAfter[b] << " frame(s) by "
              << toString(recoveryState[b]) << "\n";
  }
  return recoveryState;
}

TEST_F(TrackerTest, RecoversWithinThreeFramesAfterABlankFrame) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const auto truth = testing::loadTmtGroundTruth();
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  Tracker tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize));
  // Frame 300 lies in the far-tilted stretch, where the detection lane rarely finds the book:
  // the re-tracking from the last homography (retrackLostFrames) must get it back.
  const std::vector<TrackerState> states = checkRecovery(tracker, truth, {100, 300});
  EXPECT_EQ(states[1], TrackerState::Tracking);
}

TEST_F(TrackerTest, DetectionRecoversAfterABlankFrameWithoutRetracking) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const auto truth = testing::loadTmtGroundTruth();
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  TrackerOptions options;
  options.retrackLostFrames = 0;
  Tracker tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize), options);
  const std::vector<TrackerState> states = checkRecovery(tracker, truth, {100});
  EXPECT_EQ(states[0], TrackerState::Detecting);  // found by the detection lane (then tracked)
}

TEST_F(TrackerTest, AFrameOfAnotherSizeIsAnErrorAndChangesNothing) {
  NFT_REQUIRE_DATA("video/tmt_bookI/target.png");
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  Tracker tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize));
  tracker.initialise(cv::Matx33d(1, 0, 300, 0, 1, 200, 0, 0, 1));
  try {
    tracker.track(cv::Mat(480, 640, CV_8UC3, cv::Scalar::all(0)));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("640x480"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("800x600"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(tracker.hasTarget());  // the state did not change
  EXPECT_THROW(tracker.track(cv::Mat()), std::invalid_argument);
  EXPECT_THROW(tracker.track(cv::Mat(600, 800, CV_32FC1, cv::Scalar::all(0))), std::invalid_argument);
}

TEST_F(TrackerTest, RejectsContradictoryOptions) {
  NFT_REQUIRE_DATA("video/tmt_bookI/target.png");
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  TrackerOptions both;
  both.detectionEnabled = false;
  both.trackingEnabled = false;
  EXPECT_THROW(Tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize), both), std::invalid_argument);
  TrackerOptions negative;
  negative.redetectEvery = -1;
  EXPECT_THROW(Tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize), negative), std::invalid_argument);
  TrackerOptions oddPatch;
  oddPatch.tracking.patchSize = 7;
  EXPECT_THROW(Tracker(caps(), model, defaultCalibration(testing::kTmtFrameSize), oddPatch), std::invalid_argument);
}

}  // namespace
}  // namespace nft::tracker
