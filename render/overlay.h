#pragma once
// The debugging overlay drawn over a frame by the Renderer: a status line (tracking state,
// frames per second, inliers) in a corner, and optionally the tracked patch positions (points)
// and matches (lines), in camera-image pixels (render/camera.h conventions).
//
// Text is rasterised on the CPU with cv::putText into a small RGBA image, uploaded into a
// texture reused across frames (glTexSubImage2D, only when the text changes) and drawn as a
// blended quad at the top-left of the picture. Points are GL_POINTS (gl_PointSize), matches
// GL_LINES: all GLES 2.0 core.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "gpu/capabilities.h"
#include "gpu/program.h"
#include "gpu/quad_pass.h"
#include "gpu/texture.h"
#include "render/offscreen_target.h"

namespace nft::render {

/// What the overlay shows. Positions are camera-image pixels (x right, y down, pixel (i, j)
/// centred at (i, j), as OpenCV), of the image the Renderer's Camera describes.
struct OverlayInfo {
  std::string state;  ///< Tracking state, e.g. "TRACKING", "LOST".
  double fps = 0.0;   ///< Frames per second (shown with one decimal).
  int inliers = 0;    ///< Pose inliers.
  /// Tracked patch positions, drawn as points (empty: none).
  std::vector<cv::Point2f> patches;
  /// Matches as (from, to) pairs, drawn as lines (e.g. predicted → found positions).
  std::vector<std::pair<cv::Point2f, cv::Point2f>> matches;
  /// False hides the whole overlay.
  bool show = true;
};

/// How the overlay looks. Colours are BGR 0..255 (cv::Scalar), like AugmentationStyle's.
struct OverlayStyle {
  cv::Scalar textColor{255, 255, 255};  ///< Opaque.
  cv::Scalar boxColor{0, 0, 0};         ///< Box behind the text.
  double boxOpacity = 0.6;              ///< In [0, 1].
  double fontScale = 0.5;               ///< cv::putText's fontScale (FONT_HERSHEY_SIMPLEX).
  int margin = 4;                       ///< Pixels between the picture's corner and the box.
  cv::Scalar patchColor{0, 255, 0};     ///< BGR, points.
  float patchSize = 5.0f;               ///< Point size in pixels (clamped to the driver's range).
  cv::Scalar matchColor{255, 255, 0};   ///< BGR, lines (1 px).
};

/// The status line of `info`, e.g. "TRACKING | 29.9 fps | 57 inliers".
std::string overlayText(const OverlayInfo& info);

/// Draws OverlayInfo over a target. Owns its programs, buffer and text texture (made on the
/// context current at construction, which must be current for every call and at destruction).
/// Move-only. Used by Renderer (Renderer::setOverlay); usable alone after drawing a frame.
class Overlay {
 public:
  /// @throws ShaderError / GpuError if the programs cannot be built.
  explicit Overlay(const gpu::Capabilities& caps, const OverlayStyle& style = {});
  ~Overlay();
  Overlay(Overlay&& other) noexcept;
  Overlay& operator=(Overlay&& other) noexcept;
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  /// Replaces the style (the text is re-rasterised at the next draw).
  void setStyle(const OverlayStyle& style);
  const OverlayStyle& style() const { return style_; }

  /// Draws `info` into `target` (its framebuffer is bound here): matches, then patches in the
  /// viewport of the camera image (`imageRect`, picture-row order, from imageRectIn; positions
  /// scaled from `imageSize` pixels), then the text box, blended, without depth test. Sets the
  /// state it needs; leaves blending off, no attribute array enabled, array buffer 0, texture
  /// unit 0 active, the viewport at the image rectangle; the caller restores the rest.
  /// Nothing is drawn when info.show is false. @throws GpuError on a GL error.
  void draw(const OverlayInfo& info, const DrawTarget& target, const cv::Rect& imageRect, cv::Size imageSize);

  /// Where the last draw put the text box: target pixels, picture-row order (y from the top
  /// of the picture), clipped to the target; empty before the first draw and after a hidden one.
  cv::Rect textRect() const { return textRect_; }

 private:
  void updateText(const std::string& text);

  gpu::Capabilities caps_;
  OverlayStyle style_;
  gpu::Program text_;
  gpu::Program marks_;
  gpu::QuadPass unitQuad_;  // the text box
  unsigned int marksBuffer_ = 0;
  float pointSizeRange_[2] = {1.f, 1.f};
  std::optional<gpu::Texture> textTexture_;  // capacity ≥ the text image, reused
  std::optional<std::string> lastText_;      // what textTexture_ holds
  cv::Size textSize_;                        // size of the text image in textTexture_
  cv::Rect textRect_;
};

}  // namespace nft::render
