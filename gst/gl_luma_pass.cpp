#include "gst/gl_luma_pass.h"

#include <utility>

#include "gst/nft_gst_core_shaders.h"
#include "gst/saved_gl_state.h"

namespace nft::gst {

void GlLumaPass::run(unsigned int texture, int width, int height, std::vector<std::uint8_t>& gray) {
  const SavedGlState saved;
  if (!gl_) {
    gpu::Program program = gpu::QuadPass::makeProgram("gst_luma", {shaders::gl_luma, shaders::gl_luma_pass_frag});
    gl_ = std::make_unique<Gl>(Gl{gpu::probeCapabilities(), gpu::QuadPass(), std::move(program), {}, {}});
  }
  const int packedWidth = (width + 3) / 4;
  if (!gl_->target || gl_->target->width() != packedWidth || gl_->target->height() != height) {
    gl_->framebuffer.reset();
    gl_->target.emplace(gl_->caps, packedWidth, height, gpu::TextureFormat::Rgba8);
    gl_->framebuffer.emplace(*gl_->target);
  }
  gl_->program.setTexture("u_texture", 0, texture);
  gl_->program.setUniform("u_size", static_cast<float>(width), static_cast<float>(height));
  gl_->quad.run(gl_->program, *gl_->framebuffer);
  gl_->framebuffer->readRgba8Into(gray);  // the caller's buffer, reused frame after frame
}

}  // namespace nft::gst
