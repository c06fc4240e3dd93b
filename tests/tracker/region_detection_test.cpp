// Recovery near the last pose (issue 21, Deliver 2): the detection lane restricted to a region of
// the frame (DetectionLane::detect with a region) finds the target there as the whole-frame
// detection does and nothing in a region without it; the tracker, after a loss, finds the
// target again by a detection in the region around its last place before any whole-frame one.
// On the built-in synthetic sequence (opencv-doc's graf1.png, exact ground truth).
// The multi-target search restricted to the part of the frame the tracked targets leave
// (tracker/multi_target_detector.h: masks before the keypoint budget): all 8 prints of the grid,
// baboon and aero3 included, found by one Session — in its first frame (issue 20): a small
// database's search verifies every target (MultiTargetDetectorOptions::verifyAllUpTo), and a
// search that found targets is repeated on the same frame with them masked.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include <opencv2/imgproc.hpp>

#include "config/config.h"
#include "detection/label_view.h"
#include "detection/target_database.h"
#include "detection/vocabulary.h"
#include "gpu/gpu_test.h"
#include "nft/session.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "support/can_label.h"
#include "support/synchronous_session.h"
#include "synthetic/multi_target_sequence.h"
#include "synthetic/synthetic_sequence.h"
#include "tracker/detection_lane.h"
#include "tracker/multi_target_detector.h"
#include "tracker/preset_run.h"
#include "tracker/tracker.h"
#include "tracker/train_image.h"

namespace nft::tracker {
namespace {

/// The bounding box of the quad, enlarged by `margin` px on every side.
cv::Rect boxAround(const replay::QuadCorners& q, int margin) {
  const std::vector<cv::Point2f> points(q.begin(), q.end());
  const cv::Rect box = cv::boundingRect(points);
  return {box.x - margin, box.y - margin, box.width + 2 * margin, box.height + 2 * margin};
}

class RegionDetectionTest : public gpu::testing::GpuTest {
 protected:
  replay::SyntheticSequence sequence{[] {
    replay::SyntheticSequenceOptions o;
    o.frames = 40;
    return o;
  }()};
};

TEST_F(RegionDetectionTest, FindsTheTargetInItsRegionAndNothingElsewhere) {
  const detection::TargetModel model = testing::trainImage(caps(), sequence.targetImage());
  DetectionLane lane(caps(), model, defaultCalibration(sequence.frameSize()));
  const int frame = 12;  // the whole-frame detection finds it there (49 inliers)
  const cv::Mat image = sequence.render(frame);
  const std::optional<Detection> full = lane.detect(image);
  ASSERT_TRUE(full) << "frame " << frame << ": " << lane.lastRejection();
  const cv::Rect region = boxAround(sequence.corners(frame), 40);
  const std::optional<Detection> near = lane.detect(image, region);
  ASSERT_TRUE(near) << lane.lastRejection();
  EXPECT_LT(testing::cornerAlignmentError(near->corners, sequence.corners(frame)), 3.0);
  EXPECT_LT(testing::cornerAlignmentError(full->corners, sequence.corners(frame)), 3.0);
  // Every keypoint it described lies in the region (the region's FAST only).
  EXPECT_GT(near->keypoints, 0);
  // A region of the frame away from the target (its far side, clipped to the frame) finds
  // nothing; a region wholly outside the frame is empty.
  const cv::Rect box = boxAround(sequence.corners(frame), 0);
  const cv::Rect away = box.x + box.width / 2 < 320 ? cv::Rect(box.x + box.width + 10, 0, 640, 480)
                                                     : cv::Rect(0, 0, std::max(8, box.x - 10), 480);
  EXPECT_FALSE(lane.detect(image, away));
  EXPECT_FALSE(lane.detect(image, cv::Rect(700, 0, 100, 100)));
  EXPECT_EQ(lane.lastRejection(), "empty detection region");
  EXPECT_THROW(lane.detect(cv::Mat(), region), std::invalid_argument);
}

TEST_F(RegionDetectionTest, NearAPoseOnlyMatchesAtItsScaleCount) {
  // Issue 45, Deliver 1: the search near the last pose keeps the matches whose scale agrees with
  // that pose's (kNearScaleTolerance), and finds nothing when the pose says the target is 8 times
  // larger or smaller than it is, though it is in the region.
  const detection::TargetModel model = testing::trainImage(caps(), sequence.targetImage());
  DetectionLane lane(caps(), model, defaultCalibration(sequence.frameSize()));
  const int frame = 12;
  const cv::Mat image = sequence.render(frame);
  const cv::Rect region = boxAround(sequence.corners(frame), 40);
  const std::optional<Detection> plain = lane.detect(image, region);
  ASSERT_TRUE(plain) << lane.lastRejection();
  const std::optional<Detection> near = lane.detect(image, region, plain->homography);
  ASSERT_TRUE(near) << lane.lastRejection();
  EXPECT_LT(testing::cornerAlignmentError(near->corners, sequence.corners(frame)), 3.0);
  EXPECT_LT(near->matches, plain->matches) << "matches at other scales are dropped";
  EXPECT_GE(near->inliers, lane.options().nearMinInliers);
  for (const double f : {8.0, 0.125}) {
    // Target point p drawn where the found homography puts f·p: f times the target's scale.
    const cv::Matx33d wrongScale = plain->homography * cv::Matx33d(f, 0, 0, 0, f, 0, 0, 0, 1);
    EXPECT_FALSE(lane.detect(image, region, wrongScale)) << "scale " << f;
  }
  cv::Matx33d infinite = plain->homography;
  infinite(0, 2) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(lane.detect(image, region, infinite), std::invalid_argument);
  DetectionLaneOptions bad;
  bad.nearMinInliers = 3;
  EXPECT_THROW(DetectionLane(caps(), model, defaultCalibration(sequence.frameSize()), bad), std::invalid_argument);
}

TEST_F(RegionDetectionTest, AfterALossTheTrackerLooksNearTheLastPoseFirst) {
  const detection::TargetModel model = testing::trainImage(caps(), sequence.targetImage());
  TrackerOptions options;
  options.retrackLostFrames = 0;  // no tracking-lane retry: the detection lane recovers
  Tracker tracker(caps(), model, defaultCalibration(sequence.frameSize()), options);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(tracker.track(sequence.render(i)).found) << "frame " << i;
  const TrackResult lost = tracker.track(cv::Mat(sequence.frameSize(), CV_8UC3, cv::Scalar::all(128)));
  EXPECT_FALSE(lost.found);
  const TrackResult again = tracker.track(sequence.render(11));
  ASSERT_TRUE(again.found) << again.rejection;
  EXPECT_TRUE(again.detectedInRegion);
  EXPECT_EQ(again.state, TrackerState::Detecting);
  EXPECT_LT(testing::cornerAlignmentError(again.corners, sequence.corners(11)), 3.0);
  // Without the region step the same recovery is a whole-frame detection.
  options.regionDetection = false;
  Tracker plain(caps(), model, defaultCalibration(sequence.frameSize()), options);
  for (int i = 0; i < 10; ++i) plain.track(sequence.render(i));
  plain.track(cv::Mat(sequence.frameSize(), CV_8UC3, cv::Scalar::all(128)));
  const TrackResult whole = plain.track(sequence.render(11));
  ASSERT_TRUE(whole.found);
  EXPECT_FALSE(whole.detectedInRegion);
  options.regionMargin = -1;
  EXPECT_THROW(Tracker(caps(), model, defaultCalibration(sequence.frameSize()), options), std::invalid_argument);
}

TEST_F(RegionDetectionTest, LongAfterALossTheTrackerStillLooksNearTheLastPoseFirst) {
  // Issue 45, Deliver 1: 12 blank frames (well past retrackLostFrames, after which the region
  // was searched no more) and the target is found again by the detection in the region around
  // its last place; past regionSearchFrames only the whole frame is searched.
  const detection::TargetModel model = testing::trainImage(caps(), sequence.targetImage());
  TrackerOptions options;
  const cv::Mat blank(sequence.frameSize(), CV_8UC3, cv::Scalar::all(128));
  const auto lostFor = [&](Tracker& tracker, int frames) {
    for (int i = 0; i < 10; ++i) EXPECT_TRUE(tracker.track(sequence.render(i)).found) << "frame " << i;
    for (int i = 0; i < frames; ++i) EXPECT_FALSE(tracker.track(blank).found);
    return tracker.track(sequence.render(11));
  };
  Tracker tracker(caps(), model, defaultCalibration(sequence.frameSize()), options);
  const TrackResult again = lostFor(tracker, 12);
  ASSERT_TRUE(again.found) << again.rejection;
  EXPECT_TRUE(again.detectedInRegion);
  EXPECT_LT(testing::cornerAlignmentError(again.corners, sequence.corners(11)), 3.0);
  options.regionSearchFrames = 10;
  Tracker shorter(caps(), model, defaultCalibration(sequence.frameSize()), options);
  const TrackResult whole = lostFor(shorter, 12);
  ASSERT_TRUE(whole.found) << whole.rejection;
  EXPECT_FALSE(whole.detectedInRegion);
  options.regionSearchFrames = -1;
  EXPECT_THROW(Tracker(caps(), model, defaultCalibration(sequence.frameSize()), options), std::invalid_argument);
}

TEST_F(RegionDetectionTest, ACurvedLabelIsSearchedAtItsLastPosesScaleFirst) {
  // Issue 47: a can's label, after a loss, is searched over the whole frame at the scales of its
  // last pose (DetectionLane::detect(frame, region, near) with the frame as the region), whose
  // inlier floor is nearMinInliers; under minInliers a detection is taken only when the tracking
  // lane confirms it from its pose. Past retrackLostFrames only the plain whole-frame search runs.
  const testing::CanLabel can = testing::makeCanLabel();
  const detection::LabelCamera camera = testing::canCameraAt(can, -5);
  const cv::Mat frame = detection::renderLabel(can.model.image, can.surface, camera, nullptr, nullptr, 110);
  const cv::Mat blank(frame.size(), frame.type(), cv::Scalar::all(110));
  TrackerOptions options;
  options.trackingEnabled = false;  // a detection in every frame: each one after a found frame
  Tracker tracker(caps(), can.model, can.calibration, options);
  const TrackResult first = tracker.track(frame);
  ASSERT_TRUE(first.found) << first.rejection;
  EXPECT_FALSE(first.detectedInRegion) << "no pose known before";
  const TrackResult next = tracker.track(frame);
  ASSERT_TRUE(next.found) << next.rejection;
  EXPECT_TRUE(next.detectedInRegion);
  EXPECT_LT(testing::rotationErrorDeg(next.pose, camera), 1.0);
  for (int i = 0; i <= options.retrackLostFrames; ++i) EXPECT_FALSE(tracker.track(blank).found);
  const TrackResult late = tracker.track(frame);
  ASSERT_TRUE(late.found) << late.rejection;
  EXPECT_FALSE(late.detectedInRegion) << "searched at the last pose's scale past retrackLostFrames";

  // A floor the whole-frame search cannot reach (about 100 inliers here): the label is found only
  // at the last pose's scale, where nearMinInliers holds, and only as the tracking lane confirms.
  options.detection.minInliers = 1000;
  Tracker strict(caps(), can.model, can.calibration, options);
  const TrackResult whole = strict.track(frame);
  EXPECT_FALSE(whole.found);
  EXPECT_NE(whole.rejection.find("< 1000"), std::string::npos) << whole.rejection;
  strict.initialise(testing::poseOf(testing::canCameraAt(can, -8)));
  const TrackResult confirmed = strict.track(frame);
  ASSERT_TRUE(confirmed.found) << confirmed.rejection;
  EXPECT_TRUE(confirmed.detectedInRegion);
  EXPECT_LT(testing::rotationErrorDeg(confirmed.pose, camera), 1.0);
  EXPECT_GT(confirmed.searched, 0) << "the tracking lane's result";
  // No tracking lane to confirm it (no tracking, detections not refined): nothing is taken.
  options.refineDetections = false;
  Tracker unconfirmed(caps(), can.model, can.calibration, options);
  unconfirmed.initialise(testing::poseOf(testing::canCameraAt(can, -8)));
  EXPECT_FALSE(unconfirmed.track(frame).found);
}

TEST(MultiTargetSearch, OneSessionFindsAllEightPrintsOfTheGrid) {
  // 8 prints of about 145 px in view (synthetic/multi_target_sequence.h). baboon and aero3 have
  // few strong corners at that size: they are found only when the searches spend the keypoint
  // budget on the part of the frame the tracked prints leave (before the masked budget, never).
  // Measured (targets trained from the image alone, target.view_tilt_deg 0): all 8 in the first
  // frame — 5 in the first search, which verifies every print, the other 3 (starry_night, baboon,
  // aero3) in its repeat with the 5 masked; with one search a frame, those 3 in frame 1. With
  // tilted views too (view_tilt_deg 65): 6 in frame 0, baboon and aero3 in frame 1. Before (the
  // 3 best-scored verified, then only those scoring 0.75 of a found one; the next search on the
  // next frame or 5 frames later): graf1 in frame 0, the others one per search in frames 10–16.
  replay::MultiTargetSequenceOptions o;
  o.layout = replay::MultiTargetLayout::Grid;
  o.frames = 30;
  const replay::MultiTargetSequence grid(o);
  Session session(nft::testing::synchronous());
  for (const replay::MultiTargetPrint& p : grid.prints()) session.addTarget(p.image, p.name, p.widthM);
  std::vector<int> firstFound(grid.prints().size(), -1);
  std::vector<double> lastError(grid.prints().size(), -1);
  for (int i = 0; i < grid.frameCount(); ++i) {
    const FrameResult r = session.process(grid.render(i));
    for (const TargetResult& t : r.targets) {
      const int p = grid.find(t.name);
      ASSERT_GE(p, 0) << t.name;
      const size_t k = static_cast<size_t>(p);
      if (!t.found) continue;
      if (firstFound[k] < 0) firstFound[k] = i;
      const replay::QuadCorners truth = grid.corners(p, i);
      double error = 0;
      for (size_t c = 0; c < 4; ++c)
        error = std::max(error, static_cast<double>(cv::norm(t.corners[c] - truth[c])));
      if (i == grid.frameCount() - 1) lastError[k] = error;
    }
  }
  EXPECT_GE(std::count(firstFound.begin(), firstFound.end(), 0), 6) << "prints found in the first frame";
  for (size_t k = 0; k < firstFound.size(); ++k) {
    EXPECT_GE(firstFound[k], 0) << grid.prints()[k].name << " never found";
    EXPECT_LE(firstFound[k], 1) << grid.prints()[k].name;
    EXPECT_GE(lastError[k], 0) << grid.prints()[k].name << " not found in the last frame";
    EXPECT_LT(lastError[k], 5.0) << grid.prints()[k].name;
  }
}

class MultiTargetDetectorGridTest : public gpu::testing::GpuTest {
 protected:
  /// The grid's first frame, and options as the Session builds them for targets trained on the
  /// image alone (target.view_tilt_deg 0: the measurements below).
  const replay::MultiTargetSequence grid{[] {
    replay::MultiTargetSequenceOptions o;
    o.layout = replay::MultiTargetLayout::Grid;
    o.frames = 1;
    return o;
  }()};
  const cv::Mat gray = [this] {
    cv::Mat g;
    cv::cvtColor(grid.render(0), g, cv::COLOR_BGR2GRAY);
    return g;
  }();
  const session::PipelineOptions options = [] {
    config::Config config;
    config.target.viewTiltDeg = 0;
    return session::pipelineOptions(config);
  }();
};

TEST_F(MultiTargetDetectorGridTest, ASmallDatabaseVerifiesEveryTarget) {
  // The grid's first frame, no print tracked, the recogniser built as the Session builds it,
  // from targets trained on the image alone (target.view_tilt_deg 0: the measurement below).
  std::vector<std::shared_ptr<const detection::TargetModel>> models;
  std::vector<cv::Mat> all;
  for (const replay::MultiTargetPrint& p : grid.prints()) {
    models.push_back(std::make_shared<const detection::TargetModel>(
        session::trainTargetImage(p.image, p.name, options, caps()).model));
    all.push_back(models.back()->descriptors);
  }
  cv::Mat descriptors;
  cv::vconcat(all, descriptors);
  detection::VocabularyOptions vo;
  vo.depth = 2;  // as the Session's for targets added one by one (under 20,000 descriptors)
  ASSERT_LT(descriptors.rows, 20000);
  const detection::Vocabulary vocabulary = detection::Vocabulary::train(descriptors, vo);
  const CameraCalibration calibration = session::cameraCalibration(config::Config{}.camera, grid.frameSize());

  // Each print found lies within 10 px of its true corners (alignment error, as nft_eval's
  // accurate detection); returns how many were found.
  // `matches`: the first print found's ratio-test matches.
  const auto run = [&](int verifyAllUpTo, size_t& shortlisted, double firstPassFraction = 0.25,
                       int* matches = nullptr) {
    MultiTargetDetectorOptions mo;
    mo.lane = options.tracker.detection;
    mo.lane.firstPassFraction = firstPassFraction;
    mo.shortlist = options.shortlist;
    mo.verifyAllUpTo = verifyAllUpTo;
    MultiTargetDetector detector(caps(), calibration, vocabulary, models.front()->descriptorType,
                                 models.front()->orientation, mo);
    for (size_t k = 0; k < models.size(); ++k)
      detector.addTarget(static_cast<int>(k), models[k], vocabulary.quantize(models[k]->descriptors));
    // The Session repeats a productive search on the same frame only while this holds.
    EXPECT_EQ(detector.verifiesEveryTarget(), verifyAllUpTo >= static_cast<int>(models.size()));
    const std::vector<TargetDetection> found = detector.detect(gray, {}, {}, 8);
    shortlisted = detector.lastShortlist().size();
    if (matches != nullptr) *matches = found.empty() ? 0 : found.front().detection.matches;
    for (const TargetDetection& d : found)  // unrefined: the Session refines them with the NCC patches
      EXPECT_LT(testing::cornerAlignmentError(d.detection.corners, grid.corners(d.target, 0)), 10.0)
          << grid.prints()[static_cast<size_t>(d.target)].name;
    return found.size();
  };
  // Measured: every print verified finds 5 (graf1, chicky_512, messi5, butterfly, box; baboon,
  // aero3 and starry_night have 8–10 inliers of the 20 needed without masks); the 3 best-scored
  // (graf1, baboon, aero3) and the follow ratio find graf1 alone.
  size_t shortlistedAll = 0, shortlistedBest = 0;
  const size_t everyTarget = run(8, shortlistedAll);
  const size_t bestThree = run(0, shortlistedBest);
  EXPECT_EQ(shortlistedAll, 8u);
  EXPECT_EQ(shortlistedBest, 3u);
  EXPECT_GE(everyTarget, 5u);
  EXPECT_LT(bestThree, everyTarget);
  // More targets than verifyAllUpTo: the shortlist again.
  EXPECT_EQ(run(7, shortlistedBest), bestThree);
  EXPECT_EQ(shortlistedBest, 3u);
  // There (a large database) the strongest keypoints are searched first (passes of 500, 1000,
  // 2000 of the auto budget), and find graf1, the best-scored print, with their matches alone;
  // in one pass over all 2000 it has more (and a second print is found).
  int passMatches = 0, allMatches = 0;
  ASSERT_EQ(run(0, shortlistedBest, 0.25, &passMatches), 1u);
  ASSERT_GE(run(0, shortlistedBest, 1.0, &allMatches), 1u);
  EXPECT_GE(passMatches, options.tracker.detection.minInliers);
  EXPECT_LT(passMatches, allMatches);
  // A small database searches all keypoints at once whatever the fraction: the same 5 or more.
  EXPECT_EQ(run(8, shortlistedAll, 0.25), run(8, shortlistedAll, 1.0));
  MultiTargetDetectorOptions bad;
  bad.verifyAllUpTo = -1;
  EXPECT_THROW(MultiTargetDetector(caps(), calibration, vocabulary, models.front()->descriptorType,
                                   models.front()->orientation, bad),
               std::invalid_argument);
}

TEST_F(MultiTargetDetectorGridTest, CompactDatabaseTargetsAreDecodedOnlyWhenVerifiedAndFindTheSame) {
  // The grid's prints as a database file (issue 33, item 6): loaded compact (the Session's way)
  // and decoded (every model in memory), two recognisers on the grid's first frame must find the
  // same prints at the same corners, and the compact one decodes the descriptors of the targets
  // it verifies only: none before a search, then only those verified, and none again for the
  // next search of the same shortlist.
  std::vector<std::pair<std::string, detection::TargetModel>> trained;
  for (const replay::MultiTargetPrint& p : grid.prints())
    trained.emplace_back(p.name, session::trainTargetImage(p.image, p.name, options, caps()).model);
  const std::string path = ::testing::TempDir() + "nft_grid_compact.nftdb";
  detection::TargetDatabase::build(std::move(trained)).save(path);
  const detection::TargetDatabase decoded = detection::TargetDatabase::load(path);
  detection::TargetDatabaseLoadOptions compactOptions;
  compactOptions.keepCompact = true;
  const detection::TargetDatabase compact = detection::TargetDatabase::load(path, compactOptions);
  const CameraCalibration calibration = session::cameraCalibration(config::Config{}.camera, grid.frameSize());
  for (const int verifyAllUpTo : {0, 8}) {
    MultiTargetDetectorOptions mo;
    mo.lane = options.tracker.detection;
    mo.shortlist = options.shortlist;
    mo.verifyAllUpTo = verifyAllUpTo;
    const detection::TargetModel& first = decoded.targets().front().model;
    MultiTargetDetector a(caps(), calibration, decoded.vocabulary(), first.descriptorType, first.orientation, mo);
    MultiTargetDetector b(caps(), calibration, compact.vocabulary(), first.descriptorType, first.orientation, mo);
    std::vector<int> decodesBefore;
    for (int k = 0; k < decoded.size(); ++k) {
      const detection::DatabaseTarget& d = decoded.targets()[static_cast<size_t>(k)];
      const detection::DatabaseTarget& c = compact.targets()[static_cast<size_t>(k)];
      ASSERT_TRUE(c.stored) << c.name;
      EXPECT_TRUE(c.model.keypoints.empty() && c.model.image.empty()) << "kept compact, not decoded";
      a.addTarget(k, std::make_shared<const detection::TargetModel>(d.model), d.words);
      b.addTarget(k, c.stored, c.words);
      decodesBefore.push_back(c.stored->decodeCount());
    }
    EXPECT_EQ(b.decodedTargets(), 0) << "nothing decoded before a search";
    const std::vector<TargetDetection> fa = a.detect(gray, {}, {}, 8);
    const std::vector<TargetDetection> fb = b.detect(gray, {}, {}, 8);
    ASSERT_FALSE(fa.empty());
    ASSERT_EQ(fa.size(), fb.size()) << "verifyAllUpTo " << verifyAllUpTo;
    for (size_t i = 0; i < fa.size(); ++i) {
      EXPECT_EQ(fa[i].target, fb[i].target);
      EXPECT_EQ(fa[i].detection.inliers, fb[i].detection.inliers);
      for (size_t c = 0; c < 4; ++c) EXPECT_EQ(fa[i].detection.corners[c], fb[i].detection.corners[c]);
    }
    // Decoded: exactly the targets the search verified (the shortlist up to the last one tried).
    int decodes = 0, targetsDecoded = 0;
    for (int k = 0; k < compact.size(); ++k) {
      const int n = compact.targets()[static_cast<size_t>(k)].stored->decodeCount() - decodesBefore[static_cast<size_t>(k)];
      EXPECT_LE(n, 1) << "a target's descriptors are decoded once a search";
      decodes += n;
      targetsDecoded += n > 0;
    }
    EXPECT_EQ(b.decodedTargets(), targetsDecoded);
    if (verifyAllUpTo == 0) {
      EXPECT_GE(decodes, 1);
      EXPECT_LE(decodes, mo.shortlist) << "only the shortlist is decoded, not the database";
    } else {
      EXPECT_EQ(decodes, 8) << "a small database verifies every print";
    }
    // The same search again: the decoded descriptors are kept (kDecodedTargets), nothing decoded.
    b.detect(gray, {}, {}, 8);
    int again = 0;
    for (int k = 0; k < compact.size(); ++k)
      again += compact.targets()[static_cast<size_t>(k)].stored->decodeCount() - decodesBefore[static_cast<size_t>(k)];
    EXPECT_EQ(again, decodes);
    b.removeTarget(fb.front().target);
    EXPECT_EQ(b.decodedTargets(), targetsDecoded - 1) << "a removed target's descriptors are dropped";
  }
}

}  // namespace
}  // namespace nft::tracker
