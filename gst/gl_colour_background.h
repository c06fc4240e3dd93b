#pragma once
// GlColourBackground: with gpu-luma, the Session tracks (and so draws as its background) the grey
// frame; this puts the input's colour back. Session::render draws into an offscreen target of ours
// (render::OffscreenTarget: RGBA + depth, for the cube), and a composite pass (fragment shader
// gst/gl_colour_background.frag.glsl) writes, into the framebuffer GStreamer has bound for the
// output texture, the input's colour where the rendered picture is the input's grey (the
// background: within 2 levels, the background's own rounding) and the rendered picture elsewhere
// (the augmentations). The same picture as the RGBA path's but for augmentation pixels that are
// exactly the grey of the pixel under them (a grey-on-grey status text, say): those show the
// input's colour.
//
// Every call needs the GL context current; release() with the same context current.

#include <memory>
#include <optional>

#include "gpu/capabilities.h"
#include "gpu/program.h"
#include "gpu/quad_pass.h"
#include "render/offscreen_target.h"

namespace nft::gst {

class GlColourBackground {
 public:
  /// Binds the offscreen target, `width` × `height`, for Session::render (made or resized here).
  /// @throws gpu::ShaderError if the composite pass does not compile; gpu::GpuError for a size
  ///         the GPU cannot render to or an incomplete framebuffer.
  void bindTarget(int width, int height);
  /// Into the framebuffer bound and its viewport (the output, the frame's size): the composite
  /// of the last rendered target and `inputTexture` (GL name of a GL_TEXTURE_2D, RGBA, the
  /// frame's size, owned by the caller). Restores the GL state it changes (gst/saved_gl_state.h)
  /// but for vertex attribute 0, left disabled (gpu::QuadPass).
  /// @throws gpu::GpuError before bindTarget or on a GL error.
  void composite(unsigned int inputTexture);
  /// Frees the GL objects (context current).
  void release() { gl_.reset(); }

 private:
  struct Gl {
    gpu::Capabilities caps;
    gpu::QuadPass quad;
    gpu::Program program;
    std::optional<render::OffscreenTarget> target;
  };
  std::unique_ptr<Gl> gl_;  // made at the first use (a pointer: GCC 12 misjudges a nested optional)
};

}  // namespace nft::gst
