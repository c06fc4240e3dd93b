#include "session/frame_renderer.h"

#include "tracker/label_outline.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace nft::session {

render::Camera renderCamera(const tracker::CameraCalibration& calibration, bool metric) {
  render::Camera camera;
  camera.K = calibration.K;
  camera.imageSize = calibration.imageSize;
  camera.near = metric ? 0.01 : 1.0;
  camera.far = metric ? 100.0 : 1.0e6;
  return camera;
}

cv::Size2d targetSizeOf(const detection::TargetModel& model) {
  const double w = model.image.cols, h = model.image.rows;
  if (model.widthMetres > 0) return {model.widthMetres, model.widthMetres * h / w};
  return {w, h};
}

namespace {

/// Lines on the surface drawn for a curved target: the label's edges, the silhouette and this many
/// generators and rings.
constexpr int kSurfaceGridLines = 6;

}  // namespace

std::vector<cv::Vec3d> FrameRenderer::surfaceSegments(const nft::Pose& pose) const {
  const tracker::SurfaceLines lines = tracker::visibleSurfaceLines(*surface_, labelSize_, -(pose.R.t() * pose.t),
                                                                    kSurfaceGridLines);
  std::vector<cv::Vec3d> segments;
  for (const auto* family : {&lines.edges, &lines.silhouette, &lines.grid})
    for (const std::vector<cv::Point3d>& line : *family)
      for (size_t i = 1; i < line.size(); ++i) {
        segments.emplace_back(line[i - 1].x, line[i - 1].y, line[i - 1].z);
        segments.emplace_back(line[i].x, line[i].y, line[i].z);
      }
  return segments;
}

FrameRenderer::FrameRenderer(const gpu::Capabilities& caps, const tracker::CameraCalibration& calibration,
                             const detection::TargetModel& model, const render::AugmentationStyle& style, bool overlay)
    : frameSize_(calibration.imageSize),
      frame_(caps, calibration.imageSize.width, calibration.imageSize.height, gpu::TextureFormat::Rgb8),
      renderer_(caps, renderCamera(calibration, model.widthMetres > 0), targetSizeOf(model), style),
      style_(style),
      overlay_(overlay) {
  targetSize_ = targetSizeOf(model);
  if (model.geometry.curved()) {
    surface_.emplace(model.geometry, model.widthMetres, model.image.size());
    labelSize_ = model.image.size();
  }
  frame_.setFilter(gpu::Filter::Linear, gpu::Filter::Linear);
}

void FrameRenderer::setAugmentationsVisible(bool on) {
  augmentations_ = on;
  render::AugmentationStyle s = style_;
  if (!on) s.axes = s.cube = false;
  renderer_.setStyle(s);
}

void FrameRenderer::draw(const cv::Mat& frameRgb, const TargetResult* result, double fps,
                         const render::DrawTarget& target) {
  std::vector<std::pair<const TargetResult*, cv::Size2d>> results;
  if (result != nullptr) results.emplace_back(result, targetSize_);
  draw(frameRgb, results, fps, target);
}

void FrameRenderer::draw(const cv::Mat& frameRgb, const std::vector<std::pair<const TargetResult*, cv::Size2d>>& results,
                         double fps, const render::DrawTarget& target) {
  if (frameRgb.size() != frameSize_ || frameRgb.type() != CV_8UC3 || !frameRgb.isContinuous())
    throw std::invalid_argument("FrameRenderer: frame of " + std::to_string(frameRgb.cols) + "x" +
                                std::to_string(frameRgb.rows) + " " + cv::typeToString(frameRgb.type()) +
                                ", expected " + std::to_string(frameSize_.width) + "x" +
                                std::to_string(frameSize_.height) + " CV_8UC3, tightly packed");
  frame_.upload(frameRgb.data);

  std::vector<render::Augmentation> augmentations;
  int found = 0, inliers = 0;
  std::vector<cv::Point2f> patches;
  for (const auto& [r, size] : results)
    if (r != nullptr && r->found) {
      augmentations.push_back({render::Pose{r->pose.rvec, r->pose.t}, size, {}});
      if (surface_) augmentations.back().surfaceSegments = surfaceSegments(r->pose);
      ++found;
      inliers += r->inliers;
      patches.insert(patches.end(), r->inlierFramePoints.begin(), r->inlierFramePoints.end());
    }
  if (overlay_) {
    render::OverlayInfo info;
    const TargetResult* first = results.empty() ? nullptr : results.front().first;
    std::string state = first != nullptr ? toString(first->state) : "no target";
    std::transform(state.begin(), state.end(), state.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (results.size() > 1)
      info.state = state + " (" + std::to_string(found) + " of " + std::to_string(results.size()) + " found)";
    else
      info.state = found > 0 || first == nullptr ? state : state + " (not found)";
    info.fps = fps;
    info.inliers = inliers;
    info.patches = std::move(patches);
    renderer_.setOverlay(std::move(info));
  } else {
    renderer_.setOverlay(std::nullopt);
  }
  // The cube needs depth: a framebuffer without a depth buffer gets the rest.
  const render::AugmentationStyle style = renderer_.style();
  if (!target.hasDepth && style.cube) {
    render::AugmentationStyle flat = style;
    flat.cube = false;
    renderer_.setStyle(flat);
    try {
      renderer_.drawFrame(frame_, augmentations, target);
    } catch (...) {
      renderer_.setStyle(style);
      throw;
    }
    renderer_.setStyle(style);
    return;
  }
  renderer_.drawFrame(frame_, augmentations, target);
}

}  // namespace nft::session
