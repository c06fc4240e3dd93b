#pragma once
// GlLumaPass: the luma of an RGBA texture computed on the GPU (OpenGL ES 2.0) and read back as a
// quarter of the RGBA bytes — nftgloverlay's alternative to reading the RGBA frame back and
// turning it grey on the CPU (property gpu-luma). A quad pass (gpu/quad_pass.h, fragment shader
// gst/gl_luma_pass.frag.glsl) packs the luma of 4 consecutive pixels of a row into one RGBA texel
// of a ceil(width/4) × height render target; reading that target back is the GRAY8 frame, rows
// 4·ceil(width/4) bytes apart.
//
// The luma is OpenCV's RGBA→GRAY, bit for bit (gst/gl_luma.glsl: cv::cvtColor COLOR_RGBA2GRAY on
// 8 bits, the Session's own conversion of an RGBA view), so the Session tracks the same bytes
// either way. Exact where the fragment shader has highp floats (GL_FRAGMENT_PRECISION_HIGH);
// mediump-only GPUs may differ by a level.
//
// Every call needs the GL context current (GStreamer's GL thread); the GL objects are made at the
// first run and freed by release(), with the same context current.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "gpu/capabilities.h"
#include "gpu/framebuffer.h"
#include "gpu/program.h"
#include "gpu/quad_pass.h"
#include "gpu/texture.h"

namespace nft::gst {

class GlLumaPass {
 public:
  /// Renders the luma of `texture` (the GL name of a GL_TEXTURE_2D, RGBA, `width` × `height`, row
  /// 0 at t = 0, owned by the caller, e.g. GStreamer's input memory) and reads it into `gray`
  /// (stride() · height bytes; pixel (x, y) at y·stride() + x). The GL state it changes is
  /// restored (gst/saved_gl_state.h) but for what gpu::QuadPass::run leaves: vertex attribute 0
  /// disabled; stencil test, face culling and dithering off (as the Session's own passes leave them).
  /// @throws gpu::ShaderError if the pass does not compile; gpu::GpuError for a size the GPU
  ///         cannot render to or a GL error.
  void run(unsigned int texture, int width, int height, std::vector<std::uint8_t>& gray);
  /// Bytes between rows of the last run's output: 4·ceil(width/4).
  int stride() const { return gl_ && gl_->target ? 4 * gl_->target->width() : 0; }
  /// Frees the GL objects (context current). The next run makes them again.
  void release() { gl_.reset(); }

 private:
  struct Gl {  // members destroyed in reverse: the framebuffer before its texture
    gpu::Capabilities caps;
    gpu::QuadPass quad;
    gpu::Program program;
    std::optional<gpu::Texture> target;  // ceil(width/4) × height RGBA8
    std::optional<gpu::Framebuffer> framebuffer;
  };
  std::unique_ptr<Gl> gl_;  // made at the first use (a pointer: GCC 12 misjudges a nested optional)
};

}  // namespace nft::gst
