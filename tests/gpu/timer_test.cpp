#include <cmath>
#include <stdexcept>

#include "gpu/framebuffer.h"
#include "gpu/gpu_timer.h"
#include "gpu/texture.h"
#include "gpu_test.h"

namespace nft::gpu::testing {
namespace {

using GpuTimerTest = GpuTest;

const ShaderSource kBusyPass{"tests/busy.frag.glsl", R"(
void main() {
  vec2 i = nft_texel_index();
  float acc = 0.0;
  for (int k = 0; k < 64; ++k) acc += sin(i.x * 0.01 + float(k)) * cos(i.y * 0.01 - float(k));
  gl_FragColor = vec4(fract(acc));
}
)"};

TEST_F(GpuTimerTest, MeasuresAPassWithTheMethodTheProbeAllows) {
  GpuTimer timer(caps());
  EXPECT_EQ(timer.usesTimerQuery(), caps().has(Extension::ExtDisjointTimerQuery) && !caps().softwareRenderer);
  EXPECT_EQ(timer.method(), timer.usesTimerQuery() ? "GL_EXT_disjoint_timer_query" : "glFinish + steady_clock");
  const Texture target(caps(), 512, 512, TextureFormat::Rgba8);
  const Framebuffer fb(target);
  const Program busy = QuadPass::makeProgram("busy", {kBusyPass});
  int valid = 0;
  for (int i = 0; i < 3; ++i) {
    timer.begin();
    quad().run(busy, fb);
    const double ms = timer.endMs();
    if (std::isnan(ms)) continue;  // a disjoint event: the sample is void, by contract
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 60000.0);
    ++valid;
  }
  EXPECT_GE(valid, 1);
}

TEST_F(GpuTimerTest, EndWithoutBeginIsAnError) {
  GpuTimer timer(caps());
  EXPECT_THROW(timer.endMs(), std::logic_error);
}

TEST_F(GpuTimerTest, CoreOnlyFallsBackToFinishAndClock) {
  GpuTimer timer(probeCapabilities(/*coreOnly=*/true));
  EXPECT_FALSE(timer.usesTimerQuery());
  timer.begin();
  EXPECT_GE(timer.endMs(), 0.0);
}

}  // namespace
}  // namespace nft::gpu::testing
