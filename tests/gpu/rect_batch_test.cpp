// RectBatch: many rectangles in one draw, each fragment seeing its rectangle's data and its
// local index.

#include <cstdint>
#include <vector>

#include "gpu/framebuffer.h"
#include "gpu/gpu_error.h"
#include "gpu/rect_batch.h"
#include "gpu/texture.h"
#include "gpu_test.h"

namespace nft::gpu::testing {
namespace {

using RectBatchTest = GpuTest;

// Writes (data0.x + local i, data0.y + local j, data1.w, data2.z) / 255.
const ShaderSource kBatchPass{"tests/batch.frag.glsl", R"(
void main() {
  vec2 i = nft_local_index();
  gl_FragColor = vec4(v_data0.x + i.x, v_data0.y + i.y, v_data1.w, v_data2.z) / 255.0;
}
)"};

TEST_F(RectBatchTest, EachRectangleGetsItsDataAndLocalIndices) {
  const int w = 70, h = 50;
  const Texture target(caps(), w, h, TextureFormat::Rgba8);
  const Framebuffer fb(target);
  const Program clear = QuadPass::makeProgram("clear", {{"tests/zero.frag.glsl", "void main() { gl_FragColor = vec4(0.0); }\n"}});
  quad().run(clear, fb);

  std::vector<RectBatch::Item> items;
  for (int k = 0; k < 30; ++k) {  // a 6 x 5 tiling of 11 x 9 rectangles with gaps
    RectBatch::Item item;
    item.rect = {(k % 6) * 11 + 1, (k / 6) * 9 + 2, 10, 8};
    item.data = {float(k), float(2 * k), 0, 0, 0, 0, 0, float(100 + k), 0, 0, float(200 + k), 0};
    items.push_back(item);
  }
  RectBatch batch;
  batch.set(items);
  EXPECT_EQ(batch.size(), 30);
  batch.draw(RectBatch::makeProgram("batch", {kBatchPass}), fb);

  const std::vector<std::uint8_t> pixels = fb.readRgba8();
  std::vector<int> owner(static_cast<size_t>(w * h), -1);
  for (int k = 0; k < 30; ++k)
    for (int y = items[k].rect.y; y < items[k].rect.y + items[k].rect.height; ++y)
      for (int x = items[k].rect.x; x < items[k].rect.x + items[k].rect.width; ++x) owner[static_cast<size_t>(y * w + x)] = k;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::uint8_t* p = &pixels[static_cast<size_t>((y * w + x) * 4)];
      const int k = owner[static_cast<size_t>(y * w + x)];
      if (k < 0) {
        ASSERT_EQ(p[3], 0) << "texel (" << x << ", " << y << ") outside every rectangle was written";
        continue;
      }
      const Rect& r = items[static_cast<size_t>(k)].rect;
      ASSERT_EQ(p[0], k + (x - r.x)) << "texel (" << x << ", " << y << ")";
      ASSERT_EQ(p[1], 2 * k + (y - r.y)) << "texel (" << x << ", " << y << ")";
      ASSERT_EQ(p[2], 100 + k);
      ASSERT_EQ(p[3], 200 + k);
    }
}

TEST_F(RectBatchTest, EmptyRectangleIsRejected) {
  RectBatch batch;
  EXPECT_THROW(batch.set({RectBatch::Item{{0, 0, 0, 4}, {}}}), GpuError);
}

}  // namespace
}  // namespace nft::gpu::testing
