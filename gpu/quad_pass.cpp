#include "gpu/quad_pass.h"

#include <GLES2/gl2.h>

#include "gpu/gpu_error.h"
#include "gpu/nft_gpu_shaders.h"

namespace nft::gpu {

QuadPass::QuadPass() {
  // Triangle strip over the unit square.
  const GLfloat corners[8] = {0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 1.f, 1.f};
  glGenBuffers(1, &vertexBuffer_);
  glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
  glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  checkGl("creating the quad vertex buffer");
}

QuadPass::~QuadPass() {
  if (vertexBuffer_ != 0) glDeleteBuffers(1, &vertexBuffer_);
}

QuadPass::QuadPass(QuadPass&& other) noexcept : vertexBuffer_(other.vertexBuffer_) { other.vertexBuffer_ = 0; }

QuadPass& QuadPass::operator=(QuadPass&& other) noexcept {
  if (this != &other) {
    if (vertexBuffer_ != 0) glDeleteBuffers(1, &vertexBuffer_);
    vertexBuffer_ = other.vertexBuffer_;
    other.vertexBuffer_ = 0;
  }
  return *this;
}

Program QuadPass::makeProgram(std::string name, const std::vector<ShaderSource>& fragmentPieces,
                              const std::vector<std::string>& defines,
                              const std::vector<std::string>& fragmentExtensions) {
  std::vector<ShaderSource> fragment{shaders::prelude, shaders::quad_pass};
  fragment.insert(fragment.end(), fragmentPieces.begin(), fragmentPieces.end());
  return Program(std::move(name), {shaders::quad_pass_vert}, fragment, defines, fragmentExtensions);
}

void QuadPass::run(const Program& program, const Framebuffer& target, const Rect& rect) const {
  if (rect.width <= 0 || rect.height <= 0 || rect.x < 0 || rect.y < 0 || rect.x + rect.width > target.width() ||
      rect.y + rect.height > target.height())
    throw GpuError("pass '" + program.name() + "': rectangle (" + std::to_string(rect.x) + ", " +
                   std::to_string(rect.y) + ", " + std::to_string(rect.width) + "x" + std::to_string(rect.height) +
                   ") is empty or outside the " + std::to_string(target.width()) + "x" +
                   std::to_string(target.height()) + " target");
  target.bind();
  glViewport(rect.x, rect.y, rect.width, rect.height);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DITHER);  // GLES2 enables dithering by default; it may perturb exact RGBA8 writes
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  // A pass that ignores v_texel lets the compiler drop u_rect.
  if (program.hasUniform("u_rect"))
    program.setUniform("u_rect", static_cast<float>(rect.x), static_cast<float>(rect.y),
                       static_cast<float>(rect.width), static_cast<float>(rect.height));
  drawUnitQuad(program);
}

void QuadPass::drawUnitQuad(const Program& program) const {
  program.use();
  program.bindTextures();
  glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glDisableVertexAttribArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  checkGl(("drawing '" + program.name() + "'").c_str());
}

}  // namespace nft::gpu
