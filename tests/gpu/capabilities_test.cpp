#include <GLES2/gl2.h>

#include <sstream>
#include <string>

#include "gpu/framebuffer.h"
#include "gpu/gpu_error.h"
#include "gpu/texture.h"
#include "gpu_test.h"

namespace nft::gpu::testing {
namespace {

using CapabilitiesTest = GpuTest;

const PrecisionFormat& fragment(const Capabilities& c, Qualifier q) { return c.fragmentFloat[static_cast<size_t>(q)]; }

TEST_F(CapabilitiesTest, PrecisionMeetsGlslEs100Minimums) {
  // GLSL ES 1.00 section 4.5.2: lowp >= 8 bits, mediump >= 10, highp (optional in the
  // fragment shader, required in the vertex shader) >= 16.
  const PrecisionFormat& low = fragment(caps(), Qualifier::Lowp);
  const PrecisionFormat& medium = fragment(caps(), Qualifier::Mediump);
  const PrecisionFormat& high = fragment(caps(), Qualifier::Highp);
  ASSERT_TRUE(low.supported());
  ASSERT_TRUE(medium.supported());
  EXPECT_GE(low.precision, 8);
  EXPECT_GE(medium.precision, 10);
  EXPECT_GE(medium.precision, low.precision);
  EXPECT_GE(medium.rangeMax, 14);
  if (high.supported()) {
    EXPECT_GE(high.precision, 16);
    EXPECT_GE(high.precision, medium.precision);
    EXPECT_EQ(caps().fragmentPrecisionBits(), high.precision);
  } else {
    EXPECT_EQ(caps().fragmentPrecisionBits(), medium.precision);
  }
  const PrecisionFormat& vertexHigh = caps().vertexFloat[static_cast<size_t>(Qualifier::Highp)];
  ASSERT_TRUE(vertexHigh.supported());
  EXPECT_GE(vertexHigh.precision, 16);
}

TEST_F(CapabilitiesTest, ReportsLimitsAndStrings) {
  EXPECT_EQ(caps().glVersion.rfind("OpenGL ES ", 0), 0u) << caps().glVersion;
  EXPECT_FALSE(caps().glRenderer.empty());
  // GLES2 guarantees 64; every GPU the project targets has at least 2048 (llvmpipe 8192+).
  EXPECT_GE(caps().maxTextureSize, 2048);
  EXPECT_GE(caps().maxTextureImageUnits, 8);  // GLES2 minimum
  // GL_EXT_draw_buffers promises at least 4 outputs (its MAX_DRAW_BUFFERS_EXT minimum, as in
  // ES 3.0); without it a fragment shader has one.
  if (caps().has(Extension::ExtDrawBuffers))
    EXPECT_GE(caps().maxDrawBuffers, 4);
  else
    EXPECT_EQ(caps().maxDrawBuffers, 1);
}

TEST_F(CapabilitiesTest, ExtensionFlagsMatchTheExtensionString) {
  std::istringstream list(reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS)));
  std::set<std::string> advertised;
  for (std::string name; list >> name;) advertised.insert(name);
  EXPECT_EQ(caps().advertisedExtensions, advertised);
  for (int i = 0; i < kExtensionCount; ++i) {
    const auto e = static_cast<Extension>(i);
    EXPECT_EQ(caps().has(e), advertised.count(std::string(toString(e))) == 1) << toString(e);
  }
}

TEST_F(CapabilitiesTest, CoreOnlyMasksEveryOptionalExtension) {
  const Capabilities core = probeCapabilities(/*coreOnly=*/true);
  EXPECT_TRUE(core.coreOnly);
  for (int i = 0; i < kExtensionCount; ++i) EXPECT_FALSE(core.has(static_cast<Extension>(i)));
  EXPECT_FALSE(core.floatRenderable);
  EXPECT_FALSE(core.halfFloatRenderable);
  EXPECT_EQ(core.maxDrawBuffers, 1);  // gl_FragColor only
  // The masked probe refuses float textures, as a phone without the extension would.
  EXPECT_THROW(Texture(core, 4, 4, TextureFormat::Rgba32F), GpuError);
  EXPECT_THROW(Texture(core, 4, 4, TextureFormat::Rgba16F), GpuError);
  // The unmasked limits are unchanged.
  EXPECT_EQ(core.maxTextureSize, caps().maxTextureSize);
  EXPECT_EQ(core.fragmentPrecisionBits(), caps().fragmentPrecisionBits());
}

TEST_F(CapabilitiesTest, RenderableFlagsAreWhatAFramebufferSays) {
  // The probe measured renderability; a framebuffer made now must agree with it.
  const struct {
    Extension needs;
    TextureFormat format;
    bool renderable;
  } cases[] = {{Extension::OesTextureHalfFloat, TextureFormat::Rgba16F, caps().halfFloatRenderable},
               {Extension::OesTextureFloat, TextureFormat::Rgba32F, caps().floatRenderable}};
  for (const auto& c : cases) {
    if (!caps().has(c.needs)) {
      EXPECT_FALSE(c.renderable);
      continue;
    }
    const Texture texture(caps(), 8, 8, c.format);
    if (c.renderable) {
      EXPECT_NO_THROW(Framebuffer{texture});
    } else {
      EXPECT_THROW(Framebuffer{texture}, GpuError);
    }
  }
}

}  // namespace
}  // namespace nft::gpu::testing
