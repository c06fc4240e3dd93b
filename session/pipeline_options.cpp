#include "session/pipeline_options.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <opencv2/calib3d.hpp>

namespace nft::session {
namespace {

/// tracking.async_detection resolved: auto is on with at least 2 cores (a worker beside the camera
/// thread); the web build has no threads (WebGL contexts cannot be shared with a worker either).
bool asyncDetectionOn(config::AsyncDetection a) {
#ifdef __EMSCRIPTEN__
  (void)a;
  return false;
#else
  if (a == config::AsyncDetection::Auto) return std::thread::hardware_concurrency() >= 2;
  return a == config::AsyncDetection::On;
#endif
}

detection::DescriptorStorage storageOf(config::DescriptorStorage s) {
  switch (s) {
    case config::DescriptorStorage::Auto: return detection::DescriptorStorage::Auto;
    case config::DescriptorStorage::Rgba8: return detection::DescriptorStorage::Rgba8;
    case config::DescriptorStorage::Float: return detection::DescriptorStorage::Float;
  }
  return detection::DescriptorStorage::Auto;
}

tracker::QuadLimits quadOf(const config::QuadConfig& q) {
  tracker::QuadLimits l;
  l.minAreaFraction = q.minAreaFraction;
  l.maxAreaFraction = q.maxAreaFraction;
  l.minSidePx = q.minSidePx;
  l.maxAspectChange = q.maxAspectChange;
  l.maxOutsideFraction = q.maxOutsideFraction;
  return l;
}

detection::FastDetectorOptions detectorOf(const config::DetectorConfig& d) {
  detection::FastDetectorOptions f;
  f.maxKeypoints = d.maxKeypoints;
  f.scaleFactor = d.scaleFactor;
  f.levels = d.levels;
  f.threshold = d.threshold;
  f.cellSize = d.cellSize;
  f.baseScale = static_cast<float>(d.baseScale);
  return f;
}

detection::Backend backendOf(config::DescriptorBackend b) {
  switch (b) {
    case config::DescriptorBackend::Gpu: return detection::Backend::Gpu;
    case config::DescriptorBackend::Cpu: return detection::Backend::Cpu;
    case config::DescriptorBackend::Auto: return detection::Backend::Auto;
  }
  return detection::Backend::Auto;
}

detection::Backend backendOf(config::MatcherBackend b) {
  switch (b) {
    case config::MatcherBackend::Gpu: return detection::Backend::Gpu;
    case config::MatcherBackend::Cpu: return detection::Backend::Cpu;
    case config::MatcherBackend::Auto: return detection::Backend::Auto;
  }
  return detection::Backend::Auto;
}

cv::Scalar bgr(const std::array<double, 3>& c) { return cv::Scalar(c[0], c[1], c[2]); }

}  // namespace

int ransacMethodFlag(config::RansacMethod method) {
  switch (method) {
    case config::RansacMethod::Magsac: return cv::USAC_MAGSAC;
    case config::RansacMethod::Ransac: return cv::RANSAC;
    case config::RansacMethod::UsacDefault: return cv::USAC_DEFAULT;
    case config::RansacMethod::UsacAccurate: return cv::USAC_ACCURATE;
    case config::RansacMethod::Lmeds: return cv::LMEDS;
  }
  return cv::USAC_MAGSAC;
}

PipelineOptions pipelineOptions(const config::Config& c, const std::string& /*source*/) {
  PipelineOptions p;

  // Detection lane.
  tracker::DetectionLaneOptions& d = p.tracker.detection;
  d.detector = detectorOf(c.detector);
  d.storage = storageOf(c.descriptor.storage);
  d.matching.ratio = static_cast<float>(c.matcher.ratio);
  d.matching.crossCheck = c.matcher.crossCheck;
  d.targetKeypointFactor = c.detector.targetKeypointFactor;
  d.firstPassFraction = c.detector.firstPassFraction;
  d.minFrameFraction = c.target.minFrameFraction;
  d.descriptorBackend = backendOf(c.descriptor.backend);
  d.matcherBackend = backendOf(c.matcher.backend);
  d.ransacMethod = ransacMethodFlag(c.ransac.method);
  d.ransacThresholdPx = c.ransac.thresholdPx;
  d.ransacMaxIterations = c.ransac.maxIterations;
  d.ransacConfidence = c.ransac.confidence;
  d.minInliers = c.ransac.minInliers;
  d.quad = quadOf(c.quad);
  d.precisionBits = c.descriptor.precisionBits;
  d.boxTaps = c.descriptor.boxTaps;
  d.refinePose = c.pose.refine;

  // Tracking lane.
  tracker::TrackingLaneOptions& t = p.tracker.tracking;
  t.patchSize = c.tracking.patchSize;
  t.maxPatches = c.tracking.maxPatches;
  t.coarseRadiusPx = c.tracking.coarseRadiusPx;
  t.fineRadiusPx = c.tracking.fineRadiusPx;
  t.minNcc = c.tracking.minNcc;
  t.minInliers = c.tracking.minInliers;
  t.ransacThresholdPx = c.tracking.ransacThresholdPx;
  t.maxCornerJumpPx = c.tracking.maxCornerJumpPx;
  t.minInlierFraction = c.tracking.minInlierFraction;
  t.maxSearchPx = c.tracking.maxSearchPx;
  t.recoverySearchPx = c.tracking.recoverySearchPx;
  t.searchSpeedFactor = c.tracking.searchSpeedFactor;
  t.coarsePatches = c.tracking.coarsePatches;
  t.blurExposure = c.tracking.blurExposure;
  t.minInlierSpread = c.tracking.minInlierSpread;
  // Levenberg-Marquardt is most of the lane's pose time (0.23 of 0.3 ms on the 8-print grid),
  // and the final refinement replaces the lane's pose: TargetTracking::refine() runs it only
  // where the final refinement fails.
  t.refinePose = c.pose.refine && !c.tracking.finalRefinement;
  t.quad = quadOf(c.quad);

  p.tracker.trackingEnabled = c.tracking.enabled;
  p.tracker.redetectEvery = c.tracking.redetectEvery;
  p.maxTargets = c.tracking.maxTargets;
  p.searchEvery = c.tracking.searchEvery;
  p.shortlist = c.matcher.shortlist;
  p.tracker.retrackLostFrames = c.tracking.retrackLostFrames;
  p.tracker.refineDetections = c.tracking.refineDetections;
  p.finalRefinement = c.tracking.finalRefinement;
  p.refinePose = c.pose.refine;
  p.asyncDetection = asyncDetectionOn(c.tracking.asyncDetection);
  p.asyncDelayFrames = c.tracking.asyncDelayFrames;
  p.poseFilter = c.tracking.poseFilter;
  p.poseFilterOptions.minCutoffHz = c.tracking.poseFilterMinCutoffHz;
  p.poseFilterOptions.beta = c.tracking.poseFilterBeta;
  if ((p.asyncDetection || p.asyncDelayFrames > 0) && (!c.tracking.enabled || c.tracking.redetectEvery > 0)) {
    if (c.tracking.asyncDetection == config::AsyncDetection::On || p.asyncDelayFrames > 0)
      p.warnings.push_back(std::string(!c.tracking.enabled ? "tracking.enabled = false" : "tracking.redetect_every > 0") +
                           ": the detection lane runs in process() (tracking.async_detection and "
                           "async_delay_frames need the tracking lane between detections)");
    p.asyncDetection = false;
    p.asyncDelayFrames = 0;
  }
  p.tracker.regionDetection = c.tracking.regionDetection;
  p.tracker.regionMargin = c.tracking.regionMargin;
  p.tracker.regionSearchFrames = c.tracking.regionSearchFrames;
  p.tracker.motion = c.motion.model == config::MotionModel::None ? tracker::MotionModelKind::None
                     : c.motion.model == config::MotionModel::ConstantAcceleration
                         ? tracker::MotionModelKind::ConstantAcceleration
                         : tracker::MotionModelKind::ConstantVelocity;

  // Training of an image target.
  detection::TargetTrainerOptions& tr = p.training;
  tr.workingSize = c.target.workingSize;
  tr.widthMetres = c.target.widthM;
  tr.maxPatches = c.target.maxTrackingPatches;
  tr.detector = d.detector;
  // The frames' auto budget (detector.max_keypoints 0) follows the smallest target in a frame;
  // a target image keeps the detector's own default (1000) at training.
  if (tr.detector.maxKeypoints == 0) tr.detector.maxKeypoints = detection::FastDetectorOptions{}.maxKeypoints;
  tr.minDetectedSidePx = c.target.minSizePx;
  tr.viewTiltDeg = c.target.viewTiltDeg;
  tr.viewTurnDeg = c.target.viewTurnDeg;
  tr.descriptorType = c.descriptor.type == config::DescriptorType::Surf36 ? detection::DescriptorType::Surf36
                                                                          : detection::DescriptorType::Surf64;
  tr.orientation = c.descriptor.orientation == config::DescriptorOrientation::Upright
                       ? detection::Orientation::Upright
                       : detection::Orientation::Oriented;
  p.trainingPrecisionBits = c.descriptor.precisionBits;
  p.trainingBoxTaps = c.descriptor.boxTaps;
  p.trainingStorage = d.storage;
  p.trainingBackend = d.descriptorBackend;


  // Rendering and output.
  p.renderEnabled = c.render.enabled;
  p.overlay = c.render.overlay;
  render::AugmentationStyle& s = p.style;
  s.background = c.render.background;
  s.axes = c.render.axes;
  s.axisLength = c.render.axisLength;
  s.cube = c.render.cube;
  s.cubeSize = c.render.cubeSize;
  s.cubeHeight = c.render.cubeHeight;
  s.cubeColor = bgr(c.render.cubeColor);
  s.outline = c.render.outline;
  p.codec = c.output.codec;
  p.videoFps = c.output.videoFps;
  return p;
}

tracker::CameraCalibration calibrationFromHfov(cv::Size frameSize, double hfovDeg) {
  if (!(hfovDeg > 0 && hfovDeg < 180))
    throw std::invalid_argument("horizontal field of view must be in (0, 180) degrees, got " + std::to_string(hfovDeg));
  tracker::CameraCalibration c = tracker::defaultCalibration(frameSize);  // checks the size
  if (hfovDeg != tracker::kDefaultHorizontalFovDegrees) {
    const double f = (frameSize.width / 2.0) / std::tan(hfovDeg * CV_PI / 360.0);
    c.K(0, 0) = f;
    c.K(1, 1) = f;
    c.K(0, 2) = (frameSize.width - 1) / 2.0;
    c.K(1, 2) = (frameSize.height - 1) / 2.0;
    std::ostringstream s;
    s << "default (hfov " << hfovDeg << " deg)";
    c.source = s.str();
  }
  return c;
}

tracker::CameraCalibration cameraCalibration(const config::CameraConfig& camera, cv::Size frameSize) {
  if (camera.calibration.empty()) return calibrationFromHfov(frameSize, camera.hfovDeg);
  return tracker::scaledTo(tracker::loadCalibration(camera.calibration), frameSize);
}

}  // namespace nft::session
