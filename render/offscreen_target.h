#pragma once
// Render targets of the Renderer: an offscreen RGBA8 colour texture with a 16-bit depth
// buffer (read back as an image, e.g. for a video file), or a window's default framebuffer.

#include <opencv2/core.hpp>

#include "gpu/framebuffer.h"
#include "gpu/texture.h"

namespace nft::gpu {
struct Capabilities;
}

namespace nft::render {

/// What a Renderer draws into: a GL framebuffer name and its size. `yDown` says which way
/// rows go (render/camera.h): true when row 0 of the framebuffer is the picture's top row
/// (offscreen targets read back with the gpu/ layer), false for a window's default
/// framebuffer (row 0 at the bottom, shown upright by the window system). `hasDepth` says
/// whether a depth buffer is attached; without one solid augmentations are drawn without depth
/// testing (the cube's hidden faces would show), so the Renderer refuses to draw the cube.
struct DrawTarget {
  unsigned int framebuffer = 0;  ///< GL framebuffer name (0 = the window's default framebuffer).
  int width = 0;                 ///< Pixels.
  int height = 0;                ///< Pixels.
  bool yDown = true;
  bool hasDepth = false;
  /// Lower-left corner of the drawing area within the framebuffer, pixels (glViewport's x, y):
  /// width × height from there is drawn and cleared, the rest of the framebuffer is untouched.
  int x = 0;
  int y = 0;
  /// The current window's default framebuffer of `width` × `height` pixels (made with a depth
  /// buffer, e.g. GLFW's default 24 bits: pass hasDepth accordingly).
  static DrawTarget window(int width, int height, bool hasDepth = true) { return {0, width, height, false, hasDepth}; }
};

/// An offscreen frame: RGBA8 colour texture + framebuffer + GL_DEPTH_COMPONENT16 renderbuffer
/// (all GLES 2.0 core). Row 0 of the framebuffer is the picture's top row. Move-only; its GL
/// objects belong to the context current at construction, which must be current when it is
/// destroyed.
class OffscreenTarget {
 public:
  /// @throws GpuError if a side is not in [1, caps.maxRenderbufferSize / maxTextureSize] or the
  ///         framebuffer is not complete.
  OffscreenTarget(const gpu::Capabilities& caps, int width, int height);
  ~OffscreenTarget();
  OffscreenTarget(OffscreenTarget&& other) noexcept;
  OffscreenTarget& operator=(OffscreenTarget&& other) noexcept;
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  int width() const { return framebuffer_.width(); }
  int height() const { return framebuffer_.height(); }
  /// The colour texture (RGBA8, width × height), e.g. to sample the frame in a later pass.
  const gpu::Texture& texture() const { return color_; }
  /// The framebuffer (colour + depth attached).
  const gpu::Framebuffer& framebuffer() const { return framebuffer_; }
  /// This target for Renderer::drawFrame: yDown, with depth.
  DrawTarget drawTarget() const { return {framebuffer_.id(), width(), height(), true, true}; }

  /// Reads the whole frame back: CV_8UC3, BGR, height × width, row 0 the top row of the
  /// picture (so it goes straight into cv::VideoWriter / cv::imwrite). Stalls the pipeline.
  /// @throws GpuError on a GL error.
  cv::Mat read() const;

 private:
  gpu::Texture color_;
  gpu::Framebuffer framebuffer_;
  unsigned int depth_ = 0;
};

}  // namespace nft::render
