#pragma once
// The full-screen-quad pass runner: one GPU pass = one fragment shader run once per texel of
// a rectangle of the output texture (MinGPU-ES's GpuProgram::execute, seeds/000 section 3.4).

#include <string>
#include <vector>

#include "gpu/framebuffer.h"
#include "gpu/program.h"

namespace nft::gpu {

/// Owns the unit-quad vertex buffer shared by all passes. Move-only.
class QuadPass {
 public:
  /// Creates the vertex buffer (needs a current context). @throws GpuError.
  QuadPass();
  ~QuadPass();
  QuadPass(QuadPass&& other) noexcept;
  QuadPass& operator=(QuadPass&& other) noexcept;
  QuadPass(const QuadPass&) = delete;
  QuadPass& operator=(const QuadPass&) = delete;

  /// Builds a pass program: vertex shader gpu/quad_pass.vert.glsl; fragment shader
  /// gpu/prelude.glsl + gpu/quad_pass.glsl + `fragmentPieces`. The fragment shader reads
  /// `v_texel` / nft_texel_index() and writes gl_FragColor (or gl_FragData[i] with
  /// "GL_EXT_draw_buffers" among `fragmentExtensions`, see Program). @throws ShaderError.
  static Program makeProgram(std::string name, const std::vector<ShaderSource>& fragmentPieces,
                             const std::vector<std::string>& defines = {},
                             const std::vector<std::string>& fragmentExtensions = {});

  /// Runs `program` once per texel of `rect` in `target` (the program's textures and
  /// uniforms other than u_rect set beforehand). Sets the state a pass needs and leaves none
  /// behind that drawing depends on: blending, depth, stencil, scissor, culling and dithering
  /// off, the vertex attribute disabled afterwards.
  /// @throws GpuError if `rect` is empty or outside `target`, or on a GL error.
  void run(const Program& program, const Framebuffer& target, const Rect& rect) const;
  /// Runs over the whole target.
  void run(const Program& program, const Framebuffer& target) const {
    run(program, target, {0, 0, target.width(), target.height()});
  }

  /// Draws the unit quad — corners (0,0)..(1,1) as attribute 0 (`a_position`), a triangle strip —
  /// with `program` into whatever framebuffer, viewport and state are current, binding the
  /// program's textures first; the attribute and buffer are unbound again. For drawing code that
  /// sets its own state (render/). @throws GpuError on a GL error.
  void drawUnitQuad(const Program& program) const;

 private:
  unsigned int vertexBuffer_ = 0;
};

}  // namespace nft::gpu
