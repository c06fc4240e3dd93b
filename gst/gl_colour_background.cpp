#include "gst/gl_colour_background.h"

#include <GLES2/gl2.h>

#include <array>
#include <utility>

#include "gpu/gpu_error.h"
#include "gst/nft_gst_core_shaders.h"
#include "gst/saved_gl_state.h"

namespace nft::gst {

void GlColourBackground::bindTarget(int width, int height) {
  if (!gl_) {
    gpu::Program program =
        gpu::QuadPass::makeProgram("gst_colour_background", {shaders::gl_luma, shaders::gl_colour_background_frag});
    gl_ = std::make_unique<Gl>(Gl{gpu::probeCapabilities(), gpu::QuadPass(), std::move(program), {}});
  }
  if (!gl_->target || gl_->target->width() != width || gl_->target->height() != height) {
    gl_->target.reset();
    gl_->target.emplace(gl_->caps, width, height);
  }
  gl_->target->framebuffer().bind();
}

void GlColourBackground::composite(unsigned int inputTexture) {
  if (!gl_ || !gl_->target) throw gpu::GpuError("the colour background's composite before its target was rendered");
  const SavedGlState saved;
  const render::OffscreenTarget& target = *gl_->target;
  const gpu::Program& program = gl_->program;
  program.setTexture("u_rendered", 0, target.texture());
  program.setTexture("u_input", 1, inputTexture);
  program.setUniform("u_size", static_cast<float>(target.width()), static_cast<float>(target.height()));
  // The pass covers the viewport GStreamer set; u_rect = that viewport makes v_texel the
  // framebuffer's pixel coordinate (gl_FragCoord.xy), whatever its offset.
  std::array<GLint, 4> viewport{};
  glGetIntegerv(GL_VIEWPORT, viewport.data());
  if (program.hasUniform("u_rect"))
    program.setUniform("u_rect", static_cast<float>(viewport[0]), static_cast<float>(viewport[1]),
                       static_cast<float>(viewport[2]), static_cast<float>(viewport[3]));
  glDisable(GL_BLEND);  // every pixel written as computed (restored after)
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);
  gl_->quad.drawUnitQuad(program);
}

}  // namespace nft::gst
