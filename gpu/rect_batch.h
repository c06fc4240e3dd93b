#pragma once
// Many small passes in one draw call: a batch of rectangles of one target texture, each with
// its own data. The GPU work of the detection lane is per keypoint (a 20×20 block of Haar
// samples, a column of descriptor bins): one rectangle per keypoint carries that keypoint's
// values to its fragments through vertex attributes, instead of every fragment looking them
// up in a texture (seeds/001: values computed per vertex; seeds/000 section 4.2).

#include <array>
#include <string>
#include <vector>

#include "gpu/framebuffer.h"
#include "gpu/program.h"

namespace nft::gpu {

/// A set of rectangles drawn together. Move-only; owns a vertex buffer.
class RectBatch {
 public:
  /// One rectangle: where it goes in the target (texels) and 12 floats that its fragments
  /// receive as v_data0 (data[0..3]), v_data1 (data[4..7]) and v_data2 (data[8..11]).
  struct Item {
    Rect rect;
    std::array<float, 12> data{};
  };

  /// Creates the (empty) vertex buffer. Needs a current context. @throws GpuError.
  RectBatch();
  ~RectBatch();
  RectBatch(RectBatch&& other) noexcept;
  RectBatch& operator=(RectBatch&& other) noexcept;
  RectBatch(const RectBatch&) = delete;
  RectBatch& operator=(const RectBatch&) = delete;

  /// Builds a program for batches: vertex shader gpu/rect_batch.vert.glsl; fragment shader
  /// gpu/prelude.glsl + gpu/rect_batch.glsl + `fragmentPieces`. @throws ShaderError.
  static Program makeProgram(std::string name, const std::vector<ShaderSource>& fragmentPieces,
                             const std::vector<std::string>& defines = {});

  /// Replaces the rectangles (one upload of 6 vertices × 16 floats per rectangle).
  /// @throws GpuError for an empty rectangle or a GL error.
  void set(const std::vector<Item>& items);
  /// Number of rectangles set.
  int size() const { return count_; }

  /// Draws every rectangle with `program` into `target` (program uniforms and textures set
  /// beforehand; u_target_size is set here). Same state discipline as QuadPass::run.
  /// Rectangles outside the target are clipped by GL. @throws GpuError on a GL error.
  void draw(const Program& program, const Framebuffer& target) const { draw(program, target, count_); }
  /// Draws the first `count` rectangles only (a batch built once for the most items a
  /// pipeline handles, drawn for as many as a frame has). @throws GpuError if count > size().
  void draw(const Program& program, const Framebuffer& target, int count) const;

 private:
  unsigned int vertexBuffer_ = 0;
  int count_ = 0;
};

}  // namespace nft::gpu
