#pragma once
// The augmentation renderer: camera frame as background, then the augmentations drawn with the
// pose and the intrinsics, on the same EGL/GLES2 context as the GPU compute passes (DESIGN.md:
// RENDER lane). Conventions (camera, pose, target coordinates, rows): render/camera.h.
//
//   auto caps = nft::gpu::probeCapabilities();
//   nft::render::Renderer renderer(caps, camera, {0.187, 0.235});   // target size in metres
//   nft::render::OffscreenTarget out(caps, 640, 480);
//   renderer.drawFrame(frameTexture, pose, out.drawTarget());      // pose: std::optional<Pose>
//   cv::Mat bgr = out.read();                                      // for cv::VideoWriter
//
// State hygiene: drawFrame() sets every piece of GL state it relies on (framebuffer, viewport,
// depth test and mask, blending, culling, scissor, stencil, dithering, colour mask, line
// width, program, vertex attributes, buffers, texture units) and leaves the context as the
// gpu/ layer expects it: depth test, blending, culling, scissor, stencil and dithering off,
// depth mask on, no vertex attribute array enabled, no array/element buffer bound, texture
// unit 0 active, line width 1, no program, framebuffer 0 bound. It never changes a texture's
// parameters (the camera frame keeps the filters the detection lane set).

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "gpu/capabilities.h"
#include "gpu/framebuffer.h"
#include "gpu/program.h"
#include "gpu/quad_pass.h"
#include "gpu/texture.h"
#include "render/camera.h"
#include "render/offscreen_target.h"
#include "render/overlay.h"

namespace nft::render {

/// What is drawn and how. Colours are BGR in 0..255 like OpenCV's drawing functions (the
/// fourth value of the cv::Scalar is ignored: augmentations are opaque). Sizes relative to the target are fractions of the
/// target's width w (metres = fraction × w).
struct AugmentationStyle {
  /// Draw the camera frame behind everything (else the frame is cleared to clearColor).
  bool background = true;
  /// Colour of the letterbox/pillarbox bars, and of everything when background is off.
  cv::Scalar clearColor{0, 0, 0};

  /// Coordinate axes at the target's origin (its top-left corner): +x red, +y green and the
  /// "up" direction −z (towards the camera) blue, each axisLength long, axisWidth pixels wide.
  bool axes = true;
  double axisLength = 0.3;      ///< Fraction of w.
  float axisWidth = 3.0f;       ///< Pixels (clamped to the driver's GL_ALIASED_LINE_WIDTH_RANGE).

  /// A box standing on the target (on z = 0, extending along −z), centred on the target's
  /// centre: cubeSize × cubeSize base, cubeHeight tall. Depth-tested.
  bool cube = true;
  double cubeSize = 0.4;        ///< Base side, fraction of w.
  double cubeHeight = 0.4;      ///< Height, fraction of w.
  cv::Scalar cubeColor{40, 160, 240};  ///< BGR.
  /// Shading: each face's colour × (ambient + (1 − ambient)·max(0, n·l)), n the face normal
  /// and l the direction from the face's centre to the camera (a headlight). False: flat.
  bool cubeShaded = true;
  double ambient = 0.35;        ///< In [0, 1].
  /// Per-face flat colours (overriding cubeColor and shading), for debugging and tests.
  /// Order: bottom (z = 0), top (z = −height), −y side (y small), +y side, −x side, +x side.
  std::optional<std::array<cv::Scalar, 6>> cubeFaceColors;

  /// The target's outline (its four edges on z = 0), outlineWidth pixels wide.
  bool outline = true;
  cv::Scalar outlineColor{0, 255, 255};  ///< BGR (yellow: distinct from the axes).
  float outlineWidth = 2.0f;    ///< Pixels (clamped like axisWidth).

  /// The image set by Renderer::setQuadTexture mapped onto the whole target (its top-left
  /// corner on the target's origin), blended with quadOpacity. Skipped while no image is set.
  bool texturedQuad = false;
  double quadOpacity = 1.0;     ///< In [0, 1].
};

/// One target's augmentation: its pose and its size (width, height) in the pose's unit.
struct Augmentation {
  Pose pose;
  cv::Size2d targetSize;
  /// A curved target's lines on its surface (issue 47: a label's edges, its can's or cup's
  /// silhouette and a grid on the label, tracker/label_outline.h): line segments as pairs of
  /// points in the target's frame, the pose's unit. When given they are drawn in outlineColor
  /// instead of the flat outline, and the cube (which stands on a plane) is not drawn.
  std::vector<cv::Vec3d> surfaceSegments;
};

/// Draws frames: background + augmentations. Owns its GL programs and buffers (made on the
/// context current at construction, which must stay current for every call and at
/// destruction). Move-only. Not thread-safe.
class Renderer {
 public:
  /// @param caps        the probe of the current context (texture size limits).
  /// @param camera      intrinsics, image size, near/far (render/camera.h).
  /// @param targetSize  the target's width and height in metres (h = w·rows/cols).
  /// @param style       what to draw.
  /// @throws std::invalid_argument for a non-positive target size or an invalid camera;
  ///         ShaderError / GpuError if the programs cannot be built.
  Renderer(const gpu::Capabilities& caps, const Camera& camera, cv::Size2d targetSize,
           const AugmentationStyle& style = {});
  ~Renderer();
  Renderer(Renderer&& other) noexcept;
  Renderer& operator=(Renderer&& other) noexcept;
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Replaces the camera. @throws std::invalid_argument as the constructor.
  void setCamera(const Camera& camera);
  const Camera& camera() const { return camera_; }
  /// Replaces the style (takes effect at the next drawFrame).
  void setStyle(const AugmentationStyle& style) { style_ = style; }
  const AugmentationStyle& style() const { return style_; }
  /// Sets (or, with std::nullopt, removes) the debugging overlay (render/overlay.h) drawn last
  /// by every following drawFrame, over the augmentations, also for frames without a pose.
  void setOverlay(std::optional<OverlayInfo> info) { overlayInfo_ = std::move(info); }
  /// The overlay set by setOverlay, if any.
  const std::optional<OverlayInfo>& overlay() const { return overlayInfo_; }
  /// Replaces the overlay's look.
  void setOverlayStyle(const OverlayStyle& style) { overlay_.setStyle(style); }
  /// Where the last drawFrame put the overlay's text box (target pixels, picture-row order:
  /// y from the picture's top); empty if the last frame drew no overlay text.
  cv::Rect overlayTextRect() const { return overlay_.textRect(); }
  /// The target's size in metres.
  cv::Size2d targetSize() const { return targetSize_; }

  /// Sets the image of the textured quad: CV_8UC1 (gray), CV_8UC3 (BGR) or CV_8UC4 (BGRA,
  /// alpha multiplies quadOpacity); row 0 goes on the target's top edge (y = 0). Uploaded once.
  /// @throws std::invalid_argument for another type or an empty image; GpuError if it is
  ///         larger than the GPU's maximum texture size.
  void setQuadTexture(const cv::Mat& image);

  /// Draws one frame into `target`: clear, the camera frame aspect-correct in
  /// imageRectIn(camera().imageSize, target size) (bars in clearColor), then — if `pose` is
  /// set — the textured quad, the outline, the cube and the axes; last the overlay, if one is set
  /// (setOverlay). Without a pose only the background (and the overlay) is drawn. `cameraFrame` is sampled as it is (Luminance8 → gray, Rgb8/Rgba8 →
  /// colour), never re-uploaded nor re-configured; it must show the whole camera image
  /// (any resolution; it is stretched to the image rectangle).
  /// @throws std::invalid_argument if the style asks for the cube and the target has no
  ///         depth buffer; GpuError on a GL error.
  void drawFrame(const gpu::Texture& cameraFrame, const std::optional<Pose>& pose, const DrawTarget& target);
  /// Same, with the camera image in `frameRegion` (texels, row 0 = image top) of a larger
  /// texture, e.g. a frame padded to power-of-two sides for mipmapping.
  /// @throws std::invalid_argument if the region is empty or outside the texture.
  void drawFrame(const gpu::Texture& cameraFrame, const gpu::Rect& frameRegion, const std::optional<Pose>& pose,
                 const DrawTarget& target);
  /// Several targets at once: the background, then each augmentation at its pose with its own
  /// target size (the style's fractions apply to each target's width).
  /// @throws std::invalid_argument for a non-positive target size, and as above.
  void drawFrame(const gpu::Texture& cameraFrame, const std::vector<Augmentation>& augmentations,
                 const DrawTarget& target);
  /// Same, with the camera image in `frameRegion` of a larger texture.
  void drawFrame(const gpu::Texture& cameraFrame, const gpu::Rect& frameRegion,
                 const std::vector<Augmentation>& augmentations, const DrawTarget& target);
  /// Convenience: draws into an OffscreenTarget.
  void drawFrame(const gpu::Texture& cameraFrame, const std::optional<Pose>& pose, const OffscreenTarget& target) {
    drawFrame(cameraFrame, pose, target.drawTarget());
  }

 private:
  void drawAugmentations(const Augmentation& augmentation, const DrawTarget& target);
  void resetState() const;

  Camera camera_;
  cv::Size2d targetSize_;
  AugmentationStyle style_;
  int maxTextureSize_ = 0;
  float lineWidthRange_[2] = {1.f, 1.f};
  gpu::Program background_;
  gpu::Program mesh_;
  gpu::Program textured_;
  int meshColorAttrib_ = -1;     // a_color of mesh_
  int texturedUvAttrib_ = -1;    // a_uv of textured_
  gpu::QuadPass unitQuad_;         // unit square, background
  unsigned int meshBuffer_ = 0;   // per-frame: cube triangles, outline and axis lines
  unsigned int texturedBuffer_ = 0;  // target quad with uv
  std::optional<gpu::Texture> quadTexture_;
  Overlay overlay_;
  std::optional<OverlayInfo> overlayInfo_;
};

}  // namespace nft::render
