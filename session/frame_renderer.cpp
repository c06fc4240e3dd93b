#include "session/frame_renderer.h"

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

FrameRenderer::FrameRenderer(const gpu::Capabilities& caps, const tracker::CameraCalibration& calibration,
                             const detection::TargetModel& model, const render::AugmentationStyle& style, bool overlay)
    : frameSize_(calibration.imageSize),
      frame_(caps, calibration.imageSize.width, calibration.imageSize.height, gpu::TextureFormat::Rgb8),
      renderer_(caps, renderCamera(calibration, model.widthMetres > 0), targetSizeOf(model), style),
      style_(style),
      overlay_(overlay) {
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
  if (frameRgb.size() != frameSize_ || frameRgb.type() != CV_8UC3 || !frameRgb.isContinuous())
    throw std::invalid_argument("FrameRenderer: frame of " + std::to_string(frameRgb.cols) + "x" +
                                std::to_string(frameRgb.rows) + " " + cv::typeToString(frameRgb.type()) +
                                ", expected " + std::to_string(frameSize_.width) + "x" +
                                std::to_string(frameSize_.height) + " CV_8UC3, tightly packed");
  frame_.upload(frameRgb.data);

  const bool found = result != nullptr && result->found;
  if (overlay_) {
    render::OverlayInfo info;
    std::string state = result != nullptr ? toString(result->state) : "no target";
    std::transform(state.begin(), state.end(), state.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    info.state = found || result == nullptr ? state : state + " (not found)";
    info.fps = fps;
    info.inliers = found ? result->inliers : 0;
    if (found) info.patches = result->inlierFramePoints;
    renderer_.setOverlay(std::move(info));
  } else {
    renderer_.setOverlay(std::nullopt);
  }
  std::optional<render::Pose> pose;
  if (found) pose = render::Pose{result->pose.rvec, result->pose.t};
  // The cube needs depth: a framebuffer without a depth buffer gets the rest.
  if (!target.hasDepth && renderer_.style().cube) {
    render::AugmentationStyle s = renderer_.style();
    s.cube = false;
    renderer_.setStyle(s);
    renderer_.drawFrame(frame_, pose, target);
    s.cube = true;
    renderer_.setStyle(s);
    return;
  }
  renderer_.drawFrame(frame_, pose, target);
}

}  // namespace nft::session
