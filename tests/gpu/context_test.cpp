#include <GLES2/gl2.h>
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "gpu/context.h"
#include "gpu/gpu_error.h"

namespace nft::gpu {
namespace {

std::string glVersion() {
  const char* v = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  return v ? v : "";
}

TEST(Context, CreatesHeadlessOpenGlEs2Context) {
  const Context context = Context::createHeadless();
  EXPECT_TRUE(context.isCurrent());
  EXPECT_TRUE(context.ownsContext());
  EXPECT_FALSE(context.platformDescription().empty());
  EXPECT_EQ(glVersion().rfind("OpenGL ES ", 0), 0u) << glVersion();
  // A trivial GL round trip works on it.
  glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
  GLfloat clear[4] = {};
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
  EXPECT_FLOAT_EQ(clear[1], 0.5f);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
}

TEST(Context, AdoptsTheCurrentContextWithoutOwningIt) {
  const Context owner = Context::createHeadless();
  {
    const Context adopted = Context::adoptCurrent();
    EXPECT_EQ(adopted.eglContext(), owner.eglContext());
    EXPECT_EQ(adopted.eglDisplay(), owner.eglDisplay());
    EXPECT_FALSE(adopted.ownsContext());
    EXPECT_EQ(adopted.platformDescription(), "adopted");
  }
  // Destroying the adopted wrapper left the owner's context alive and current.
  EXPECT_TRUE(owner.isCurrent());
  EXPECT_FALSE(glVersion().empty());
}

TEST(Context, AdoptingWithNoCurrentContextThrows) {
  { const Context gone = Context::createHeadless(); }  // its destructor releases it
  try {
    (void)Context::adoptCurrent();
    FAIL() << "adoptCurrent() succeeded with no current context";
  } catch (const GpuError& e) {
    EXPECT_NE(std::string(e.what()).find("no current EGL context"), std::string::npos) << e.what();
  }
}

TEST(Context, TwoContextsCoexistAndOneSurvivesTheOther) {
  const Context first = Context::createHeadless();
  {
    const Context second = Context::createHeadless();
    EXPECT_TRUE(second.isCurrent());
    EXPECT_NE(second.eglContext(), first.eglContext());
  }
  first.makeCurrent();
  EXPECT_TRUE(first.isCurrent());
  EXPECT_FALSE(glVersion().empty());
}

TEST(Context, FailureNamesEveryPlatformTried) {
  ContextOptions options;
  options.platform = EglPlatform::Device;
  options.deviceIndex = 999;
  try {
    (void)Context::createHeadless(options);
    FAIL() << "an EGL device with index 999 was found";
  } catch (const GpuError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no OpenGL ES 2.0 context"), std::string::npos) << msg;
    EXPECT_NE(msg.find("EGL_EXT_platform_device"), std::string::npos) << msg;
    EXPECT_NE(msg.find("999"), std::string::npos) << msg;
  }
}

TEST(Context, ParsesPlatformNames) {
  EXPECT_EQ(parseEglPlatform("surfaceless"), EglPlatform::Surfaceless);
  EXPECT_EQ(parseEglPlatform("device"), EglPlatform::Device);
  EXPECT_EQ(parseEglPlatform("default"), EglPlatform::Default);
  EXPECT_EQ(parseEglPlatform("auto"), EglPlatform::Auto);
  try {
    parseEglPlatform("wayland");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'wayland'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nft::gpu

// The device platform's gate: Mesa names EGL_EXT_device_enumeration, NVIDIA's driver only
// EGL_EXT_device_base (client extensions read off an H100, driver 580.159.04).
TEST(Context, DevicePlatformAcceptsDeviceBaseOrDeviceEnumeration) {
  EXPECT_TRUE(nft::gpu::offersEglDeviceEnumeration(
      "EGL_EXT_platform_base EGL_EXT_device_base EGL_KHR_client_get_all_proc_addresses "
      "EGL_EXT_client_extensions EGL_KHR_debug EGL_KHR_platform_x11 EGL_EXT_platform_x11 "
      "EGL_EXT_platform_device EGL_MESA_platform_surfaceless EGL_EXT_explicit_device"));
  EXPECT_TRUE(nft::gpu::offersEglDeviceEnumeration(
      "EGL_EXT_device_base EGL_EXT_device_enumeration EGL_EXT_device_query EGL_EXT_platform_base "
      "EGL_EXT_platform_device EGL_MESA_platform_surfaceless"));
  EXPECT_FALSE(nft::gpu::offersEglDeviceEnumeration("EGL_EXT_device_base EGL_EXT_platform_base"));
  EXPECT_FALSE(nft::gpu::offersEglDeviceEnumeration("EGL_EXT_platform_device EGL_EXT_device_query"));
  EXPECT_FALSE(nft::gpu::offersEglDeviceEnumeration("EGL_EXT_platform_device EGL_EXT_device_base_x"));
  EXPECT_FALSE(nft::gpu::offersEglDeviceEnumeration(nullptr));
}
