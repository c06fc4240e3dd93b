// The pieces of nft_replay (apps/replay/): config → options mapping, calibration, pose CSV,
// ground truth and alignment error, statistics and report, frame sources, the synthetic
// default sequence, and target checks.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "apps/replay/frame_source.h"
#include "apps/replay/replay_report.h"
#include "apps/replay/replay_session.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "suite/ground_truth.h"
#include "suite/pose_csv.h"
#include "synthetic/synthetic_sequence.h"

namespace {

namespace fs = std::filesystem;
using namespace nft::replay;
using namespace nft::session;  // config mapping and target loading moved into session/ (the Session's pieces)

/// A Session result of one frame with one target.
nft::FrameResult frameWith(const nft::TargetResult& target, const nft::FrameTimings& timings = {}) {
  nft::FrameResult f;
  f.targets.push_back(target);
  f.timings = timings;
  return f;
}

/// A fresh empty folder for one test.
fs::path tempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("nft_replay_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int countFields(const std::string& row) { return static_cast<int>(std::count(row.begin(), row.end(), ',')) + 1; }

TEST(ReplayPipelineOptions, ANonDefaultConfigMapsOntoEveryModuleField) {
  nft::config::Config c;
  c.detector = {700, 1.5, 3, 22, 40, 2.5};
  c.descriptor.type = nft::config::DescriptorType::Surf36;
  c.descriptor.orientation = nft::config::DescriptorOrientation::Upright;
  c.descriptor.storage = nft::config::DescriptorStorage::Rgba8;
  c.descriptor.precisionBits = 10;
  c.descriptor.boxTaps = 2;
  c.matcher.ratio = 0.75;
  c.ransac = {nft::config::RansacMethod::UsacAccurate, 2.5, 900, 0.99, 15};
  c.quad = {0.01, 2.0, 12.0, 4.0, 0.5};
  c.tracking = {false, 12, 80, 6, 3, 0.65, 8, 2.0, 60.0, 7, 0.55, 2, false};
  c.motion.model = nft::config::MotionModel::None;
  c.pose.refine = false;
  c.target = {0.187, 512, 150};
  c.render.enabled = false;
  c.render.background = false;
  c.render.axes = false;
  c.render.axisLength = 0.5;
  c.render.cube = false;
  c.render.cubeSize = 0.3;
  c.render.cubeHeight = 0.2;
  c.render.cubeColor = {1, 2, 3};
  c.render.outline = false;
  c.render.overlay = false;
  c.output = {25.0, "MJPG"};
  nft::config::validate(c);

  const PipelineOptions p = pipelineOptions(c, "test.yaml");
  const auto& d = p.tracker.detection;
  EXPECT_EQ(d.detector.maxKeypoints, 700);
  EXPECT_DOUBLE_EQ(d.detector.scaleFactor, 1.5);
  EXPECT_EQ(d.detector.levels, 3);
  EXPECT_EQ(d.detector.threshold, 22);
  EXPECT_EQ(d.detector.cellSize, 40);
  EXPECT_FLOAT_EQ(d.detector.baseScale, 2.5f);
  EXPECT_EQ(d.storage, nft::detection::DescriptorStorage::Rgba8);
  EXPECT_FLOAT_EQ(d.matching.ratio, 0.75f);
  EXPECT_FALSE(d.matching.crossCheck);
  EXPECT_EQ(d.ransacMethod, cv::USAC_ACCURATE);
  EXPECT_DOUBLE_EQ(d.ransacThresholdPx, 2.5);
  EXPECT_EQ(d.ransacMaxIterations, 900);
  EXPECT_DOUBLE_EQ(d.ransacConfidence, 0.99);
  EXPECT_EQ(d.minInliers, 15);
  EXPECT_EQ(d.precisionBits, 10);
  EXPECT_EQ(d.boxTaps, 2);
  EXPECT_EQ(p.trainingBoxTaps, 2);
  EXPECT_FALSE(d.refinePose);
  for (const nft::tracker::QuadLimits& q : {d.quad, p.tracker.tracking.quad}) {
    EXPECT_DOUBLE_EQ(q.minAreaFraction, 0.01);
    EXPECT_DOUBLE_EQ(q.maxAreaFraction, 2.0);
    EXPECT_DOUBLE_EQ(q.minSidePx, 12.0);
    EXPECT_DOUBLE_EQ(q.maxAspectChange, 4.0);
    EXPECT_DOUBLE_EQ(q.maxOutsideFraction, 0.5);
  }
  const auto& t = p.tracker.tracking;
  EXPECT_EQ(t.patchSize, 12);
  EXPECT_EQ(t.maxPatches, 80);
  EXPECT_EQ(t.coarseRadiusPx, 6);
  EXPECT_EQ(t.fineRadiusPx, 3);
  EXPECT_DOUBLE_EQ(t.minNcc, 0.65);
  EXPECT_EQ(t.minInliers, 8);
  EXPECT_DOUBLE_EQ(t.ransacThresholdPx, 2.0);
  EXPECT_DOUBLE_EQ(t.maxCornerJumpPx, 60.0);
  EXPECT_DOUBLE_EQ(t.minInlierFraction, 0.55);
  EXPECT_FALSE(t.refinePose);
  EXPECT_FALSE(p.tracker.trackingEnabled);
  EXPECT_EQ(p.tracker.redetectEvery, 7);
  EXPECT_EQ(p.tracker.retrackLostFrames, 2);
  EXPECT_FALSE(p.tracker.refineDetections);
  EXPECT_EQ(p.tracker.motion, nft::tracker::MotionModelKind::None);

  EXPECT_EQ(p.training.workingSize, 512);
  EXPECT_DOUBLE_EQ(p.training.widthMetres, 0.187);
  EXPECT_EQ(p.training.maxPatches, 150);
  EXPECT_EQ(p.training.detector.threshold, 22);
  EXPECT_EQ(p.training.descriptorType, nft::detection::DescriptorType::Surf36);
  EXPECT_EQ(p.training.orientation, nft::detection::Orientation::Upright);
  EXPECT_EQ(p.trainingPrecisionBits, 10);
  EXPECT_EQ(p.trainingStorage, nft::detection::DescriptorStorage::Rgba8);

  EXPECT_FALSE(p.renderEnabled);
  EXPECT_FALSE(p.overlay);
  EXPECT_FALSE(p.style.background);
  EXPECT_FALSE(p.style.axes);
  EXPECT_DOUBLE_EQ(p.style.axisLength, 0.5);
  EXPECT_FALSE(p.style.cube);
  EXPECT_DOUBLE_EQ(p.style.cubeSize, 0.3);
  EXPECT_DOUBLE_EQ(p.style.cubeHeight, 0.2);
  EXPECT_EQ(p.style.cubeColor, cv::Scalar(1, 2, 3));
  EXPECT_FALSE(p.style.outline);
  EXPECT_EQ(p.codec, "MJPG");
  EXPECT_DOUBLE_EQ(p.videoFps, 25.0);
  EXPECT_TRUE(p.warnings.empty());  // every key is honoured
}

TEST(ReplayPipelineOptions, DefaultsMatchTheModulesDefaults) {
  const PipelineOptions p = pipelineOptions(nft::config::Config{});
  const nft::tracker::TrackerOptions defaults;
  EXPECT_EQ(p.tracker.detection.ransacMethod, defaults.detection.ransacMethod);
  EXPECT_FLOAT_EQ(p.tracker.detection.matching.ratio, defaults.detection.matching.ratio);
  EXPECT_EQ(p.tracker.detection.minInliers, defaults.detection.minInliers);
  EXPECT_EQ(p.tracker.tracking.maxPatches, defaults.tracking.maxPatches);
  EXPECT_DOUBLE_EQ(p.tracker.tracking.minNcc, defaults.tracking.minNcc);
  EXPECT_EQ(p.tracker.trackingEnabled, defaults.trackingEnabled);
  EXPECT_EQ(p.tracker.redetectEvery, defaults.redetectEvery);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(ReplayPipelineOptions, RansacMethodsMapOntoOpenCvFlags) {
  using M = nft::config::RansacMethod;
  EXPECT_EQ(ransacMethodFlag(M::Magsac), cv::USAC_MAGSAC);
  EXPECT_EQ(ransacMethodFlag(M::Ransac), cv::RANSAC);
  EXPECT_EQ(ransacMethodFlag(M::UsacDefault), cv::USAC_DEFAULT);
  EXPECT_EQ(ransacMethodFlag(M::UsacAccurate), cv::USAC_ACCURATE);
  EXPECT_EQ(ransacMethodFlag(M::Lmeds), cv::LMEDS);
}

TEST(ReplayPipelineOptions, BackendsAndCrossCheckMapOntoTheDetectionLane) {
  nft::config::Config c;
  PipelineOptions p = pipelineOptions(c, "c.yaml");  // defaults: auto, no cross-check
  EXPECT_EQ(p.tracker.detection.descriptorBackend, nft::detection::Backend::Auto);
  EXPECT_EQ(p.tracker.detection.matcherBackend, nft::detection::Backend::Auto);
  EXPECT_EQ(p.trainingBackend, nft::detection::Backend::Auto);
  c.matcher.backend = nft::config::MatcherBackend::Cpu;
  c.descriptor.backend = nft::config::DescriptorBackend::Gpu;
  c.matcher.crossCheck = true;
  p = pipelineOptions(c, "c.yaml");
  EXPECT_EQ(p.tracker.detection.matcherBackend, nft::detection::Backend::Cpu);
  EXPECT_EQ(p.tracker.detection.descriptorBackend, nft::detection::Backend::Gpu);
  EXPECT_EQ(p.trainingBackend, nft::detection::Backend::Gpu);
  EXPECT_TRUE(p.tracker.detection.matching.crossCheck);
  for (const std::string& w : p.warnings)  // both lanes cross-check with either matcher backend
    EXPECT_EQ(w.find("matcher.cross_check"), std::string::npos) << w;
}

TEST(ReplayCalibration, SixtyDegreesIsTheDefaultCalibrationAndOtherFieldsOfViewScaleTheFocalLength) {
  const cv::Size size(640, 480);
  const auto c60 = calibrationFromHfov(size, 60.0);
  const auto def = nft::tracker::defaultCalibration(size);
  EXPECT_EQ(cv::norm(c60.K - def.K), 0.0);
  const auto c90 = calibrationFromHfov(size, 90.0);
  EXPECT_NEAR(c90.K(0, 0), 320.0, 1e-9);
  EXPECT_NEAR(c90.K(1, 1), 320.0, 1e-9);
  EXPECT_NEAR(c90.K(0, 2), 319.5, 1e-12);
  EXPECT_NEAR(c90.K(1, 2), 239.5, 1e-12);
  nft::config::CameraConfig camera;
  camera.hfovDeg = 90.0;
  EXPECT_NEAR(cameraCalibration(camera, size).K(0, 0), 320.0, 1e-9);
  EXPECT_THROW(calibrationFromHfov(size, 180.0), std::invalid_argument);
}

TEST(ReplayCalibration, ACalibrationFileIsScaledToTheFrameSize) {
  const fs::path dir = tempDir("calib");
  const std::string path = (dir / "camera.yaml").string();
  {
    cv::FileStorage fsw(path, cv::FileStorage::WRITE);
    fsw << "camera_matrix" << cv::Mat(cv::Matx33d(1000, 0, 639.5, 0, 1000, 359.5, 0, 0, 1));
    fsw << "image_width" << 1280 << "image_height" << 720;
  }
  nft::config::CameraConfig camera;
  camera.calibration = path;
  const auto c = cameraCalibration(camera, cv::Size(640, 360));
  EXPECT_NEAR(c.K(0, 0), 500.0, 1e-9);
  EXPECT_NEAR(c.K(0, 2), 319.5, 1e-9);
  EXPECT_EQ(c.imageSize, cv::Size(640, 360));
  camera.calibration = (dir / "missing.yaml").string();
  EXPECT_THROW(cameraCalibration(camera, cv::Size(640, 360)), std::runtime_error);
}

TEST(ReplayPoseCsv, TheHeaderAndRowsHaveNineteenFieldsAndEmptyFieldsWhenNotFound) {
  EXPECT_STREQ(kPoseCsvHeader, "frame,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms");
  nft::TargetResult lostTarget;
  lostTarget.state = nft::TrackingState::Lost;
  nft::FrameTimings t;
  t.total = 2.5;
  const nft::FrameResult lost = frameWith(lostTarget, t);
  EXPECT_EQ(poseCsvRow(3, lost), "3,lost,,,,,,,,,,,,,,,,,2.500");
  nft::TargetResult foundTarget;
  foundTarget.state = nft::TrackingState::Tracking;
  foundTarget.found = true;
  foundTarget.corners = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  foundTarget.pose.rvec = {0.1, 0.2, 0.3};
  foundTarget.pose.t = {-0.01, 0.02, 0.5};
  foundTarget.inliers = 42;
  foundTarget.reprojectionErrorPx = 0.25;
  t.total = 1.0;
  const std::string row = poseCsvRow(7, frameWith(foundTarget, t));
  EXPECT_EQ(row, "7,tracking,1.000,2.000,3.000,4.000,5.000,6.000,7.000,8.000,0.100000,0.200000,0.300000,"
                 "-0.010000,0.020000,0.500000,42,0.250,1.000");
  EXPECT_EQ(countFields(row), 19);
  EXPECT_EQ(countFields(poseCsvRow(3, lost)), 19);
}

TEST(ReplayPoseCsv, RowsAreOnDiskAsSoonAsTheyAreWritten) {
  const fs::path path = tempDir("csv") / "poses.csv";
  PoseCsvWriter writer(path.string());
  const nft::FrameResult r = frameWith(nft::TargetResult{});
  writer.write(0, r);
  writer.write(1, r);
  EXPECT_EQ(readText(path), std::string(kPoseCsvHeader) + "\n0,detecting,,,,,,,,,,,,,,,,,0.000\n1,detecting,,,,,,,,,,,,,,,,,0.000\n");
  EXPECT_THROW(PoseCsvWriter("/no/such/folder/poses.csv"), std::runtime_error);
}

TEST(ReplayGroundTruth, ReadsTheTmtFormatAndNamesTheBadLine) {
  const fs::path dir = tempDir("gt");
  {
    std::ofstream out(dir / "gt.tsv");
    out << "frame\tulx\tuly\turx\tury\tlrx\tlry\tllx\tlly\n"
        << "frame00001.jpg\t1\t2\t3\t4\t5\t6\t7\t8\n\n"
        << "frame00002.jpg 10 20 30 40 50 60 70 80\r\n"
        << "frame00003.jpg nan nan nan nan nan nan nan nan\n";
  }
  const auto gt = loadGroundTruth((dir / "gt.tsv").string());
  ASSERT_EQ(gt.size(), 3u);
  EXPECT_EQ(gt[0][2], cv::Point2f(5, 6));
  EXPECT_EQ(gt[1][3], cv::Point2f(70, 80));
  EXPECT_TRUE(annotated(gt[1]));
  EXPECT_FALSE(annotated(gt[2]));  // a frame without annotation: not scored
  for (const char* line : {"frame00001.jpg 1 2 3 nan 5 6 7 8",   // some nan, not all
                           "frame00001.jpg 1 2 3 inf 5 6 7 8",   // infinite
                           "frame00001.jpg 1 2 3 1e60 5 6 7 8",  // finite, but not as a float (fuzzer)
                           "frame00001.jpg 1 2 3 4x 5 6 7 8"}) {  // not a number
    std::ofstream(dir / "mixed.tsv") << "header\n" << line << "\n";
    EXPECT_THROW(loadGroundTruth((dir / "mixed.tsv").string()), std::runtime_error) << line;
  }
  {
    std::ofstream out(dir / "bad.tsv");
    out << "header\nframe00001.jpg 1 2 3 4 5 6 7\n";
  }
  try {
    loadGroundTruth((dir / "bad.tsv").string());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.tsv' line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loadGroundTruth((dir / "missing.tsv").string()), std::runtime_error);
}

TEST(ReplayGroundTruth, AlignmentErrorIsTheRootMeanSquareCornerDistance) {
  const QuadCorners truth{cv::Point2f(0, 0), cv::Point2f(10, 0), cv::Point2f(10, 10), cv::Point2f(0, 10)};
  EXPECT_DOUBLE_EQ(alignmentError(truth, {{0, 0}, {10, 0}, {10, 10}, {0, 10}}), 0.0);
  // One corner 4 px off: sqrt(16 / 4) = 2.
  EXPECT_DOUBLE_EQ(alignmentError(truth, {{4, 0}, {10, 0}, {10, 10}, {0, 10}}), 2.0);
  EXPECT_THROW(alignmentError(truth, {{0, 0}}), std::invalid_argument);
}

TEST(ReplayGroundTruth, VisibleErrorIsTheMeanDistanceOfTheGridPointsInsideTheFrame) {
  const cv::Size frame(640, 480);
  const QuadCorners truth{cv::Point2f(100, 50), cv::Point2f(300, 60), cv::Point2f(290, 250), cv::Point2f(110, 240)};
  const std::vector<cv::Point2f> same(truth.begin(), truth.end());
  EXPECT_NEAR(visibleError(truth, same, frame), 0.0, 1e-9);
  // Every point 3 px off (a shift of the whole quad): 3 px, whatever the grid.
  std::vector<cv::Point2f> shifted = same;
  for (cv::Point2f& p : shifted) p += cv::Point2f(3, 0);
  EXPECT_NEAR(visibleError(truth, shifted, frame), 3.0, 1e-6);
  for (cv::Point2f& p : shifted) p += cv::Point2f(0, 4);  // (3, 4): 5 px
  EXPECT_NEAR(visibleError(truth, shifted, frame), 5.0, 1e-6);

  // Half of the target out of view (x < 0 is outside a 200 × 200 frame); the found quad
  // stretched away from the target's left edge x = -100: a point's error is 0.1 (x + 100), so
  // the grid's columns in view (x = 10, 30 .. 90) give 15 px where the whole grid would give 10.
  const QuadCorners half{cv::Point2f(-100, 0), cv::Point2f(100, 0), cv::Point2f(100, 200), cv::Point2f(-100, 200)};
  std::vector<cv::Point2f> stretched(half.begin(), half.end());
  for (cv::Point2f& p : stretched) p.x += 0.1f * (p.x + 100);
  EXPECT_NEAR(visibleError(half, stretched, {200, 200}), 15.0, 1e-4);
  QuadCorners inView = half;  // the same 100 px to the right: every point in view
  for (cv::Point2f& p : inView) p.x += 100;
  for (cv::Point2f& p : stretched) p.x += 100;
  EXPECT_NEAR(visibleError(inView, stretched, {200, 200}), 10.0, 1e-4);

  const double notFound = visibleError(truth, {}, frame);
  EXPECT_TRUE(std::isinf(notFound) && notFound > 0);
  // Not scored: no annotation, or the target wholly out of view (found or not).
  EXPECT_TRUE(std::isnan(visibleError(notAnnotated(), same, frame)));
  QuadCorners away = truth;
  for (cv::Point2f& p : away) p += cv::Point2f(1000, 0);
  EXPECT_TRUE(std::isnan(visibleError(away, same, frame)));
  EXPECT_TRUE(std::isnan(visibleError(away, {}, frame)));
  EXPECT_THROW(visibleError(truth, {{0, 0}}, frame), std::invalid_argument);
  EXPECT_THROW(visibleError(truth, same, {0, 480}), std::invalid_argument);
}

TEST(ReplayStats, NotFoundFramesWithGroundTruthCountAsFailures) {
  ReplayStats stats;
  nft::TargetResult foundTarget, lostTarget;
  foundTarget.found = true;
  foundTarget.state = nft::TrackingState::Tracking;
  nft::FrameTimings foundTimings, lostTimings;
  foundTimings.total = 2.0;
  foundTimings.coarse = 1.0;
  lostTarget.state = nft::TrackingState::Detecting;
  lostTimings.total = 20.0;
  lostTimings.describe = 8.0;
  const nft::FrameResult found = frameWith(foundTarget, foundTimings), lost = frameWith(lostTarget, lostTimings);
  stats.add(found, 1.0, 1.0);
  stats.add(found, 1.0, 7.0);
  stats.add(found, 1.0, std::nullopt);  // no ground truth for this frame
  stats.add(lost, 1.0, std::numeric_limits<double>::infinity());
  EXPECT_EQ(stats.frames(), 4);
  EXPECT_EQ(stats.found(), 3);
  EXPECT_EQ(stats.groundTruthFrames(), 3);
  EXPECT_DOUBLE_EQ(stats.successRate(5.0), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(stats.successRate(10.0), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(stats.medianErrorPx(), 4.0);
  EXPECT_DOUBLE_EQ(stats.trackerFps(), 1000.0 * 4 / 26.0);
  const nlohmann::json j = stats.toJson();
  EXPECT_EQ(j["states"]["tracking"], 3);
  EXPECT_EQ(j["states"]["detecting"], 1);
  EXPECT_DOUBLE_EQ(j["fps"]["tracking"].get<double>(), 1000.0 * 3 / 6.0);
  EXPECT_DOUBLE_EQ(j["fps"]["detecting"].get<double>(), 1000.0 / 20.0);
  EXPECT_TRUE(j["fps"]["lost"].is_null());
  EXPECT_DOUBLE_EQ(j["median_ms"]["describe"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(j["median_ms"]["tracking_coarse"].get<double>(), 1.0);
  EXPECT_TRUE(j["median_ms"]["ransac"].is_null());
  EXPECT_EQ(j["ground_truth"]["failed_not_found"], 1);
  EXPECT_DOUBLE_EQ(j["ground_truth"]["success_10px"].get<double>(), 2.0 / 3.0);
  // process() times 2, 2, 2, 20 ms: nearest rank, p50 the 2nd value, p90 and p99 the 4th.
  EXPECT_DOUBLE_EQ(j["process_ms"]["p50"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["process_ms"]["p90"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j["process_ms"]["p99"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j["process_ms"]["max"].get<double>(), 20.0);
}

TEST(ReplayStats, TheVisibleErrorIsReportedBesideTheCornerError) {
  ReplayStats stats;
  nft::TargetResult target;
  target.found = true;
  target.state = nft::TrackingState::Tracking;
  nft::FrameTimings timings;
  timings.total = 2.0;
  const nft::FrameResult found = frameWith(target, timings);
  target.found = false;
  const nft::FrameResult lost = frameWith(target, timings);
  stats.add(found, 0.0, 8.0, 2.0);  // corners far off, the part in view close
  stats.add(found, 0.0, 1.0, 1.0);
  stats.add(found, 0.0, 3.0, std::numeric_limits<double>::quiet_NaN());  // nothing of the grid in view
  stats.add(lost, 0.0, std::numeric_limits<double>::infinity(), 6.0);    // not found: a failure for both
  stats.add(found, 0.0, std::nullopt, std::nullopt);                     // no ground truth
  EXPECT_EQ(stats.groundTruthFrames(), 4);
  EXPECT_EQ(stats.visibleFrames(), 3);
  EXPECT_DOUBLE_EQ(stats.successRate(5.0), 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(stats.visibleSuccessRate(5.0), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(stats.medianVisibleErrorPx(), 1.5);  // of the found frames
  const nlohmann::json gt = stats.toJson()["ground_truth"];
  EXPECT_EQ(gt["visible_frames"], 3);
  EXPECT_DOUBLE_EQ(gt["visible_success_5px"].get<double>(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(gt["visible_success_10px"].get<double>(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(gt["median_visible_error_px"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(gt["mean_visible_error_px"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(gt["success_5px"].get<double>(), 0.5);  // the corner error's fields as before
  // Ground truth without a frame the visible error scores: its fields are null.
  ReplayStats none;
  none.add(found, 0.0, 1.0, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(none.toJson()["ground_truth"]["visible_frames"], 0);
  EXPECT_TRUE(none.toJson()["ground_truth"]["visible_success_5px"].is_null());
  EXPECT_TRUE(none.toJson()["ground_truth"]["median_visible_error_px"].is_null());
}

TEST(ReplayStats, FrameTimePercentilesAreNearestRank) {
  std::vector<double> ms;
  for (int i = 100; i >= 1; --i) ms.push_back(i);  // 1..100 ms, in any order
  const nft::replay::FrameTimePercentiles p = nft::replay::frameTimePercentiles(ms);
  EXPECT_DOUBLE_EQ(p.p50, 50.0);
  EXPECT_DOUBLE_EQ(p.p90, 90.0);
  EXPECT_DOUBLE_EQ(p.p99, 99.0);
  EXPECT_DOUBLE_EQ(p.max, 100.0);
  EXPECT_TRUE(std::isnan(nft::replay::frameTimePercentiles({}).p99));
  EXPECT_TRUE(ReplayStats().toJson()["process_ms"].is_null());
}

TEST(ReplayStats, TheReportIsWrittenWholeOrNotAtAll) {
  const fs::path dir = tempDir("json");
  writeJsonAtomically({{"frames", 3}}, (dir / "report.json").string());
  EXPECT_EQ(nlohmann::json::parse(readText(dir / "report.json"))["frames"], 3);
  EXPECT_FALSE(fs::exists(dir / "report.json.tmp"));
  EXPECT_THROW(writeJsonAtomically({}, "/no/such/folder/report.json"), std::runtime_error);
}

TEST(ReplayFrameSource, AFolderIsReadInNameOrderAndABadImageIsNamed) {
  const fs::path dir = tempDir("frames");
  cv::imwrite((dir / "frame002.png").string(), cv::Mat(8, 10, CV_8UC1, cv::Scalar(20)));
  cv::imwrite((dir / "frame001.png").string(), cv::Mat(8, 10, CV_8UC3, cv::Scalar(10, 10, 10)));
  { std::ofstream(dir / "frame003.png") << "not a png"; }
  { std::ofstream(dir / "notes.txt") << "ignored"; }
  auto source = openFrameSource(dir.string());
  EXPECT_EQ(source->frameCount(), 3);
  cv::Mat frame;
  ASSERT_TRUE(source->read(frame));
  EXPECT_EQ(frame.type(), CV_8UC3);
  EXPECT_EQ(frame.at<cv::Vec3b>(0, 0)[0], 10);
  ASSERT_TRUE(source->read(frame));
  EXPECT_EQ(frame.type(), CV_8UC3);  // grey converted
  EXPECT_EQ(frame.at<cv::Vec3b>(0, 0)[1], 20);
  try {
    source->read(frame);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("frame 2: cannot read image"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("frame003.png"), std::string::npos) << e.what();
  }
}

TEST(ReplayFrameSource, MissingOrEmptyInputsAreNamed) {
  const fs::path dir = tempDir("empty");
  try {
    openFrameSource(dir.string());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds no image files"), std::string::npos) << e.what();
  }
  try {
    openFrameSource((dir / "missing.mp4").string());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.mp4' does not exist"), std::string::npos) << e.what();
  }
  { std::ofstream(dir / "garbage.mp4") << "this is not a video"; }
  EXPECT_THROW(openFrameSource((dir / "garbage.mp4").string()), std::runtime_error);
}

/// A short sequence for the tests (the default is 300 frames).
SyntheticSequenceOptions shortSequence() {
  SyntheticSequenceOptions o;
  o.frames = 40;
  return o;
}

TEST(ReplaySessionOptions, AutoDetectionIsSynchronousExceptFromALiveCamera) {
  // The default config's tracking.async_detection is auto: the programs replay files and folders
  // frame by frame (deterministic), a live camera keeps it (nft_preview --video 0).
  EXPECT_EQ(nft::config::Config{}.tracking.asyncDetection, nft::config::AsyncDetection::Auto);
  EXPECT_EQ(nft::replay::sessionOptions("", "").config.tracking.asyncDetection, nft::config::AsyncDetection::Off);
  EXPECT_EQ(nft::replay::sessionOptions("", "", true).config.tracking.asyncDetection, nft::config::AsyncDetection::Auto);
  EXPECT_TRUE(nft::replay::isCameraSpec("0"));
  EXPECT_TRUE(nft::replay::isCameraSpec("12"));
  EXPECT_FALSE(nft::replay::isCameraSpec("1234"));
  EXPECT_FALSE(nft::replay::isCameraSpec("clip.mp4"));
  EXPECT_FALSE(nft::replay::isCameraSpec(""));
  // A folder named like a camera index is a folder of frames.
  const fs::path dir = fs::temp_directory_path() / ("nft_camera_spec_" + std::to_string(::getpid()));
  fs::create_directories(dir / "7");
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  const bool folderIsCamera = nft::replay::isCameraSpec("7");
  fs::current_path(here);
  fs::remove_all(dir);
  EXPECT_FALSE(folderIsCamera);
}

TEST(ReplaySyntheticSequence, IsDeterministic) {
  const SyntheticSequence a(shortSequence()), b(shortSequence());
  for (int i : {0, 17, 39}) {
    EXPECT_EQ(cv::norm(a.render(i), b.render(i), cv::NORM_INF), 0.0) << "frame " << i;
    EXPECT_EQ(a.corners(i), b.corners(i));
  }
  SyntheticSequenceOptions other = shortSequence();
  other.seed = 9;
  EXPECT_NE(SyntheticSequence(other).corners(39), a.corners(39));
  EXPECT_THROW(a.render(40), std::out_of_range);
}

TEST(ReplaySyntheticSequence, TheGroundTruthCornersAreWhereTheTargetIsDrawn) {
  SyntheticSequenceOptions o = shortSequence();
  o.noiseSigma = 0;
  const SyntheticSequence s(o);
  cv::Mat targetGray;
  cv::cvtColor(s.targetImage(), targetGray, cv::COLOR_BGR2GRAY);
  for (int i : {0, 20, 39}) {
    // The frame, warped back into the target's pixels with the ground-truth homography, must
    // look like the target (up to lighting and blur), and best so with no shift: the target's
    // middle, searched ±6 px around its place, peaks at its place.
    cv::Mat frameGray, back;
    cv::cvtColor(s.render(i), frameGray, cv::COLOR_BGR2GRAY);
    cv::warpPerspective(frameGray, back, s.homography(i), targetGray.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP);
    const cv::Rect inner(targetGray.cols / 4, targetGray.rows / 4, targetGray.cols / 2, targetGray.rows / 2);
    const int r = 6;
    const cv::Rect around(inner.x - r, inner.y - r, inner.width + 2 * r, inner.height + 2 * r);
    cv::Mat score;
    cv::matchTemplate(back(around), targetGray(inner), score, cv::TM_CCOEFF_NORMED);
    double best = 0;
    cv::Point at;
    cv::minMaxLoc(score, nullptr, &best, nullptr, &at);
    EXPECT_GT(best, 0.8) << "frame " << i;
    EXPECT_EQ(at, cv::Point(r, r)) << "frame " << i;
    const QuadCorners c = s.corners(i);
    const cv::Vec3d p = s.homography(i) * cv::Vec3d(s.targetImage().cols, s.targetImage().rows, 1);
    EXPECT_NEAR(c[2].x, p[0] / p[2], 1e-3);
  }
}

TEST(ReplaySyntheticSequence, AMissingImageNamesThePackage) {
  SyntheticSequenceOptions o = shortSequence();
  o.targetPath = "/no/such/graf1.png";
  try {
    SyntheticSequence s(o);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/graf1.png"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("opencv-doc"), std::string::npos) << e.what();
  }
}

TEST(ReplayTargetLoader, AUniformTargetIsRefusedNamingIt) {
  const nft::gpu::Context context = nft::gpu::Context::createHeadless();
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  const PipelineOptions options = pipelineOptions(nft::config::Config{});
  try {
    trainTargetImage(cv::Mat(200, 300, CV_8UC1, cv::Scalar(128)), "plain.png", options, caps);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("target 'plain.png' has only 0 keypoints"), std::string::npos) << e.what();
  }
  const fs::path dir = tempDir("target");
  { std::ofstream(dir / "broken.nftm") << "not a model"; }
  try {
    loadTarget((dir / "broken.nftm").string(), options, caps);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.nftm"), std::string::npos) << e.what();
  }
}

TEST(ReplayTargetLoader, TheSyntheticTargetTrainsWithEnoughKeypointsAndPatches) {
  const nft::gpu::Context context = nft::gpu::Context::createHeadless();
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  const SyntheticSequence s(shortSequence());
  const LoadedTarget t = trainTargetImage(s.targetImage(), "graf1.png", pipelineOptions(nft::config::Config{}), caps);
  EXPECT_GT(t.model.keypoints.size(), 200u);
  EXPECT_GT(t.model.patches.size(), 50u);
  // graf1.png (800×640) is trained at the working size 640: the same physical corners.
  EXPECT_EQ(t.model.image.size(), cv::Size(640, 512));
  EXPECT_EQ(t.originalSize, cv::Size(800, 640));
}

}  // namespace
