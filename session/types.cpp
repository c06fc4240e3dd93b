// The small free functions of the public types (include/nft/types.h, image_view.h).
#include "nft/image_view.h"
#include "nft/types.h"

#include <stdexcept>

#include "detection/target_geometry.h"
#include "nft/error.h"
#include "session/target_loader.h"
#include "tracker/camera_calibration.h"

namespace nft {

std::string toString(PixelFormat format) {
  switch (format) {
    case PixelFormat::Gray8: return "gray8";
    case PixelFormat::Rgba8: return "rgba8";
    case PixelFormat::Bgr8: return "bgr8";
    case PixelFormat::Bgra8: return "bgra8";
    case PixelFormat::Nv21: return "nv21";
    case PixelFormat::Nv12: return "nv12";
    case PixelFormat::I420: return "i420";
    case PixelFormat::Yuyv: return "yuyv";
  }
  return "?";
}

int bytesPerPixel(PixelFormat format) {
  switch (format) {
    case PixelFormat::Bgr8: return 3;
    case PixelFormat::Rgba8:
    case PixelFormat::Bgra8: return 4;
    case PixelFormat::Yuyv: return 2;
    default: return 1;
  }
}

std::string toString(TrackingState state) {
  switch (state) {
    case TrackingState::Detecting: return "detecting";
    case TrackingState::Tracking: return "tracking";
    case TrackingState::Lost: return "lost";
  }
  return "?";
}

// The names are the model's (detection/target_geometry.h): nft_train's options and the list file
// spell them so too.
std::string toString(GeometryKind kind) {
  TargetGeometry g;
  g.kind = kind;
  return detection::toString(session::detectionGeometry(g).kind);
}

std::string toString(ConeLabel label) {
  TargetGeometry g;
  g.coneLabel = label;
  return detection::toString(session::detectionGeometry(g).coneLabel);
}

Calibration loadCalibration(const std::string& path) {
  try {
    const tracker::CameraCalibration c = tracker::loadCalibration(path);
    return {c.K, c.distortion, c.imageSize, c.source};
  } catch (const std::exception& e) {
    throw ConfigError(e.what(), path);
  }
}

}  // namespace nft
