// glGenerateMipmap against the CPU's 2x2 box average (the mipmap summation of seeds/000
// section 4.2 relies on it), level by level, for RGBA8 and luminance textures.

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu/framebuffer.h"
#include "gpu/texture.h"
#include "gpu_test.h"

namespace nft::gpu::testing {
namespace {

using MipmapTest = GpuTest;

// Reads the level whose size is the viewport's: with texel-centre coordinates of that level,
// the implicit LOD is exactly that level's index, and NEAREST_MIPMAP_NEAREST + NEAREST fetch
// one texel of it unfiltered. (Core GLES2: no texture2DLod in fragment shaders.)
const ShaderSource kReadLevel{"tests/read_level.frag.glsl", R"(
uniform sampler2D u_input;
uniform vec2 u_level_size;
void main() {
  gl_FragColor = texture2D(u_input, nft_texel_uv(nft_texel_index(), u_level_size));
}
)"};

struct Level {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgba;  // width × height × 4
};

// The 2x2 box average of `above` (a 1-texel-wide side averages 2 texels, not 4).
std::vector<double> boxAverage(const Level& above, int width, int height) {
  std::vector<double> out(static_cast<size_t>(width * height * 4));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 4; ++c) {
        double sum = 0;
        int n = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) {
            const int sx = 2 * x + dx, sy = 2 * y + dy;
            if (sx >= above.width || sy >= above.height) continue;
            sum += above.rgba[static_cast<size_t>((sy * above.width + sx) * 4 + c)];
            ++n;
          }
        out[static_cast<size_t>((y * width + x) * 4 + c)] = sum / n;
      }
  return out;
}

void checkMipmapChain(const GpuTest& /*fixture*/, const Capabilities& caps, const QuadPass& quad,
                      TextureFormat format, int width, int height) {
  std::mt19937 rng(static_cast<unsigned>(width * 31 + height));
  const int bpt = bytesPerTexel(format);
  std::vector<std::uint8_t> data(static_cast<size_t>(width * height * bpt));
  for (auto& v : data) v = static_cast<std::uint8_t>(rng() & 0xFF);
  Texture texture(caps, width, height, format, data.data());
  texture.generateMipmap();
  texture.setFilter(Filter::NearestMipmapNearest, Filter::Nearest);
  const Program read = QuadPass::makeProgram("read_level", {kReadLevel});
  read.setTexture("u_input", 0, texture);

  Level above;
  for (int level = 0; level < texture.mipLevelCount(); ++level) {
    SCOPED_TRACE("level " + std::to_string(level));
    const int lw = std::max(1, width >> level), lh = std::max(1, height >> level);
    const Texture target(caps, lw, lh, TextureFormat::Rgba8);
    const Framebuffer fb(target);
    read.setUniform("u_level_size", float(lw), float(lh));
    quad.run(read, fb);
    Level current{lw, lh, fb.readRgba8()};
    if (level == 0) {
      // Level 0 is the upload itself (luminance l is sampled as (l, l, l, 1)).
      for (int i = 0; i < lw * lh; ++i)
        for (int c = 0; c < 4; ++c) {
          const std::uint8_t expected = format == TextureFormat::Rgba8 ? data[static_cast<size_t>(i * 4 + c)]
                                        : c < 3                          ? data[static_cast<size_t>(i)]
                                                                         : std::uint8_t{255};
          ASSERT_EQ(current.rgba[static_cast<size_t>(i * 4 + c)], expected) << "texel " << i;
        }
    } else {
      const std::vector<double> expected = boxAverage(above, lw, lh);
      double worst = 0;
      for (size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, std::abs(current.rgba[i] - expected[i]));
      EXPECT_LE(worst, 1.0) << "largest difference from the 2x2 box average, in LSB";
    }
    above = std::move(current);
  }
}

TEST_F(MipmapTest, Rgba8LevelsAreTwoByTwoBoxAveragesWithinOneLsb) {
  checkMipmapChain(*this, caps(), quad(), TextureFormat::Rgba8, 64, 64);
}

TEST_F(MipmapTest, LuminanceLevelsOfANonSquareTextureAreBoxAveragesWithinOneLsb) {
  checkMipmapChain(*this, caps(), quad(), TextureFormat::Luminance8, 128, 32);
}

}  // namespace
}  // namespace nft::gpu::testing
