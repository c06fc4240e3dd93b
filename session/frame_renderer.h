#pragma once
// Draws one tracked frame with the Renderer (render/renderer.h): the camera frame uploaded to a
// texture, the augmentations at the target's pose, the status overlay. What Session::render()
// does (offscreen for nft_replay's video, the window's framebuffer for nft_preview and apps).

#include <optional>

#include <opencv2/core.hpp>

#include "detection/label_surface.h"
#include "detection/target_model.h"
#include "gpu/capabilities.h"
#include "gpu/texture.h"
#include "render/offscreen_target.h"
#include "render/renderer.h"
#include "tracker/camera_calibration.h"
#include "nft/types.h"

namespace nft::session {

/// The render::Camera of a calibration: its K and image size; near/far in the pose's unit
/// (metres when `metric`, else target pixels, where the scene is ~1000× larger).
render::Camera renderCamera(const tracker::CameraCalibration& calibration, bool metric);

/// The target's size in the pose's unit: (widthMetres, widthMetres·rows/cols) for a metric
/// model, else the model image's size in pixels.
cv::Size2d targetSizeOf(const detection::TargetModel& model);

/// Renderer + camera-frame texture for frames of one size. Needs the GL context current at
/// construction, in every call and at destruction. Move-only.
class FrameRenderer {
 public:
  /// @throws what Renderer's constructor throws (invalid camera or size, shader errors).
  FrameRenderer(const gpu::Capabilities& caps, const tracker::CameraCalibration& calibration,
                const detection::TargetModel& model, const render::AugmentationStyle& style, bool overlay);

  /// Uploads `frameRgb` (tightly packed CV_8UC3, R first, of the calibration's size) and draws
  /// it with the result's augmentations (when `result` is given and found: the axes and, for a flat
  /// target, its outline and the cube; for a curved one the lines on its surface) and the overlay
  /// (state, `fps`, inliers, inlier patches; "NO TARGET" without a result) into `target`.
  /// @throws std::invalid_argument for a frame of another size or type; GpuError.
  void draw(const cv::Mat& frameRgb, const TargetResult* result, double fps, const render::DrawTarget& target);
  /// Several targets: each found one's augmentation with its own size (the pose's unit); the
  /// overlay shows the first result's state, the number found, their inliers and patches.
  void draw(const cv::Mat& frameRgb, const std::vector<std::pair<const TargetResult*, cv::Size2d>>& results, double fps,
            const render::DrawTarget& target);

  /// Shows or hides the overlay / the axes and cube (nft_preview's o and a keys).
  void setOverlayVisible(bool on) { overlay_ = on; }
  bool overlayVisible() const { return overlay_; }
  void setAugmentationsVisible(bool on);
  bool augmentationsVisible() const { return augmentations_; }

 private:
  /// The curved surface's visible lines under `pose` as segment pairs (render::Augmentation).
  std::vector<cv::Vec3d> surfaceSegments(const nft::Pose& pose) const;

  cv::Size frameSize_;
  cv::Size2d targetSize_;
  /// A curved model's surface and label size: its augmentation is drawn on the surface
  /// (its edges, silhouette and grid, tracker/label_outline.h) instead of on a plane.
  std::optional<detection::LabelSurface> surface_;
  cv::Size labelSize_;
  gpu::Texture frame_;
  render::Renderer renderer_;
  render::AugmentationStyle style_;
  bool overlay_ = true;
  bool augmentations_ = true;
};

}  // namespace nft::session
