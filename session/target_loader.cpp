#include "session/target_loader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>

#include "detection/backend.h"
#include "detection/surf_es.h"
#include "detection/target_model_io.h"
#include "detection/target_trainer.h"

namespace nft::session {
namespace {

using Clock = std::chrono::steady_clock;

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A model read from a file or from bytes, as the tracker takes it.
LoadedTarget loaded(detection::TargetModel model, const std::string& source, Clock::time_point start,
                    const PipelineOptions& options) {
  LoadedTarget t;
  t.source = source;
  t.model = std::move(model);
  t.originalSize = cv::Size(static_cast<int>(t.model.image.cols * t.model.originalScale + 0.5),
                            static_cast<int>(t.model.image.rows * t.model.originalScale + 0.5));
  t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  checkTarget(t, options);
  return t;
}

}  // namespace

LoadedTarget loadTargetModel(const std::vector<unsigned char>& bytes, const std::string& source,
                             const PipelineOptions& options) {
  const auto start = Clock::now();
  return loaded(detection::decodeTargetModel(bytes, "'" + source + "'"), source, start, options);
}

LoadedTarget trainTargetImage(const cv::Mat& image, const std::string& source, const PipelineOptions& options,
                              const gpu::Capabilities& caps) {
  const auto start = Clock::now();
  LoadedTarget t;
  t.source = source;
  t.originalSize = image.size();
  t.trained = true;
  try {
    detection::SurfEsOptions surf;
    surf.maxWidth = surf.maxHeight = std::max(options.training.workingSize, 16);
    surf.maxKeypoints = options.training.detector.maxKeypoints;
    surf.type = options.training.descriptorType;
    surf.orientation = options.training.orientation;
    surf.storage = options.trainingStorage;
    surf.precisionBits = options.trainingPrecisionBits;
    surf.boxTaps = options.trainingBoxTaps;
    // The target's descriptors are made by the backend the detection lane describes frames with.
    const std::unique_ptr<detection::KeypointDescriber> describer =
        detection::makeKeypointDescriber(options.trainingBackend, caps, surf);
    t.model = detection::trainTarget(image, options.training,
                                     [&](const cv::Mat& gray, std::vector<detection::Keypoint>& keypoints) {
                                       return describer->describe(gray, keypoints, true).host;
                                     });
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot train target '" + source + "': " + e.what());
  }
  t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  checkTarget(t, options);
  return t;
}

LoadedTarget loadTarget(const std::string& path, const PipelineOptions& options, const gpu::Capabilities& caps) {
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error("target '" + path + "' does not exist (expected an image or a .nftm model file)");
  if (endsWith(path, ".nftm")) {
    const auto start = Clock::now();
    return loaded(detection::loadTargetModel(path), path, start, options);  // names the file in its errors
  }
  const cv::Mat image = cv::imread(path, cv::IMREAD_GRAYSCALE);
  if (image.empty())
    throw std::runtime_error("cannot read target '" + path + "' (not an image OpenCV reads, nor a .nftm model)");
  return trainTargetImage(image, path, options, caps);
}

detection::TargetGeometry detectionGeometry(const TargetGeometry& g) {
  detection::TargetGeometry d;
  d.kind = g.kind == GeometryKind::Cylinder ? detection::GeometryKind::Cylinder
           : g.kind == GeometryKind::Cone   ? detection::GeometryKind::Cone
                                            : detection::GeometryKind::Planar;
  d.radiusM = g.radiusMetres;
  d.topRadiusM = g.topRadiusMetres;
  d.bottomRadiusM = g.bottomRadiusMetres;
  d.sideLengthM = g.sideLengthMetres;
  d.coneLabel = g.coneLabel == ConeLabel::Rectangle ? detection::ConeLabel::Rectangle : detection::ConeLabel::Sector;
  return d;
}

TargetGeometry publicGeometry(const detection::TargetGeometry& d) {
  TargetGeometry g;
  g.kind = d.kind == detection::GeometryKind::Cylinder ? GeometryKind::Cylinder
           : d.kind == detection::GeometryKind::Cone   ? GeometryKind::Cone
                                                       : GeometryKind::Planar;
  g.radiusMetres = d.radiusM;
  g.topRadiusMetres = d.topRadiusM;
  g.bottomRadiusMetres = d.bottomRadiusM;
  g.sideLengthMetres = d.sideLengthM;
  g.coneLabel = d.coneLabel == detection::ConeLabel::Rectangle ? ConeLabel::Rectangle : ConeLabel::Sector;
  return g;
}

void checkTarget(const LoadedTarget& t, const PipelineOptions& options) {
  const int keypoints = static_cast<int>(t.model.keypoints.size());
  const int needed = options.tracker.detection.minInliers;
  if (options.tracker.detectionEnabled && keypoints < needed)
    throw std::runtime_error("target '" + t.source + "' has only " + std::to_string(keypoints) +
                             " keypoints, fewer than the " + std::to_string(needed) +
                             " inliers a detection needs (ransac.min_inliers): too plain, too small or too "
                             "low in contrast to track (try a lower detector.threshold)");
  const int patches = static_cast<int>(t.model.patches.size());
  const int neededPatches = options.tracker.tracking.minInliers;
  if (options.tracker.trackingEnabled && patches < neededPatches)
    throw std::runtime_error("target '" + t.source + "' has only " + std::to_string(patches) +
                             " tracking patches, fewer than the " + std::to_string(neededPatches) +
                             " the tracking lane needs (tracking.min_inliers): too plain a target, or "
                             "target.max_tracking_patches too low");
}

TargetQuality qualityOf(const detection::TargetModel& model) {
  const detection::TargetQuality& q = model.quality;
  return {static_cast<int>(model.keypoints.size()), q.coverage, q.distinctness, q.meanContrast, q.stars, q.warnings};
}

}  // namespace nft::session
