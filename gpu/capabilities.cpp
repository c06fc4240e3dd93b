#include "gpu/capabilities.h"

#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "gpu/context.h"
#include "gpu/gpu_error.h"

namespace nft::gpu {

namespace {

std::string glString(GLenum name) {
  const char* s = reinterpret_cast<const char*>(glGetString(name));
  return s ? s : "";
}

PrecisionFormat precisionOf(GLenum shader, GLenum type) {
  GLint range[2] = {0, 0};
  GLint precision = 0;
  glGetShaderPrecisionFormat(shader, type, range, &precision);
  return {range[0], range[1], precision};
}

/// Whether a `width`×`height` texture of (format, type) can be a complete colour attachment.
/// Restores the previous framebuffer and texture bindings.
bool isRenderable(GLenum format, GLenum type) {
  GLint oldFbo = 0, oldTex = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &oldFbo);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &oldTex);
  GLuint tex = 0, fbo = 0;
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(format), 4, 4, 0, format, type, nullptr);
  bool ok = glGetError() == GL_NO_ERROR;
  if (ok) {
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(oldFbo));
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(oldTex));
  if (fbo) glDeleteFramebuffers(1, &fbo);
  glDeleteTextures(1, &tex);
  while (glGetError() != GL_NO_ERROR) {
  }
  return ok;
}

}  // namespace

std::string_view toString(Qualifier q) {
  switch (q) {
    case Qualifier::Lowp: return "lowp";
    case Qualifier::Mediump: return "mediump";
    case Qualifier::Highp: return "highp";
  }
  return "?";
}

std::string_view toString(Extension e) {
  switch (e) {
    case Extension::OesTextureFloat: return "GL_OES_texture_float";
    case Extension::OesTextureHalfFloat: return "GL_OES_texture_half_float";
    case Extension::ExtColorBufferHalfFloat: return "GL_EXT_color_buffer_half_float";
    case Extension::ExtColorBufferFloat: return "GL_EXT_color_buffer_float";
    case Extension::ExtShaderTextureLod: return "GL_EXT_shader_texture_lod";
    case Extension::OesStandardDerivatives: return "GL_OES_standard_derivatives";
    case Extension::ExtDisjointTimerQuery: return "GL_EXT_disjoint_timer_query";
    case Extension::ExtDrawBuffers: return "GL_EXT_draw_buffers";
    case Extension::Count: break;
  }
  return "?";
}

namespace {
/// The name WebGL 1 gives an extension where it differs from the OpenGL ES one (emscripten lists
/// WebGL's extensions in GL_EXTENSIONS with a "GL_" prefix); empty where the names agree.
std::string_view webglName(Extension e) {
  switch (e) {
    case Extension::ExtDrawBuffers: return "GL_WEBGL_draw_buffers";
    case Extension::ExtColorBufferFloat: return "GL_WEBGL_color_buffer_float";
    default: return {};
  }
}
}  // namespace

int Capabilities::fragmentPrecisionBits() const {
  const PrecisionFormat& high = fragmentFloat[static_cast<size_t>(Qualifier::Highp)];
  return high.supported() ? high.precision : fragmentFloat[static_cast<size_t>(Qualifier::Mediump)].precision;
}

bool isSoftwareRenderer(std::string_view glRenderer) {
  std::string lower(glRenderer);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  for (const char* cpu : {"llvmpipe", "softpipe", "swiftshader", "software rasterizer"})
    if (lower.find(cpu) != std::string::npos) return true;
  return false;
}

bool coreOnlyFromEnvironment() {
  const char* env = std::getenv("NFT_CORE_ONLY");
  return env != nullptr && *env != '\0' && std::string_view(env) != "0";
}

void debugAssertExtension([[maybe_unused]] const Capabilities& caps, [[maybe_unused]] Extension e,
                          [[maybe_unused]] const char* where) {
#ifndef NDEBUG
  if (caps.has(e)) return;
  std::fprintf(stderr, "nft: %s uses %s, which the capability probe did not allow%s\n", where,
               std::string(toString(e)).c_str(), caps.coreOnly ? " (core-only)" : "");
  std::abort();
#endif
}

Capabilities probeCapabilities(bool coreOnly) {
  coreOnly = coreOnly || coreOnlyFromEnvironment();
  Capabilities caps;
  caps.glVersion = glString(GL_VERSION);
  if (caps.glVersion.empty())
    throw GpuError("capability probe: no current OpenGL ES context (GL_VERSION is null)");
  caps.glRenderer = glString(GL_RENDERER);
#ifdef __EMSCRIPTEN__
  // Browsers report a fixed GL_RENDERER ("WebKit WebGL"); the GPU's own name decides whether the
  // renderer is a CPU one (SwiftShader), as it does natively.
  if (const std::string unmasked = webglUnmaskedRenderer(); !unmasked.empty()) caps.glRenderer = unmasked;
#endif
  caps.glVendor = glString(GL_VENDOR);
  caps.glslVersion = glString(GL_SHADING_LANGUAGE_VERSION);
  caps.softwareRenderer = isSoftwareRenderer(caps.glRenderer);

  const GLenum qualifiers[3] = {GL_LOW_FLOAT, GL_MEDIUM_FLOAT, GL_HIGH_FLOAT};
  for (size_t i = 0; i < 3; ++i) {
    caps.fragmentFloat[i] = precisionOf(GL_FRAGMENT_SHADER, qualifiers[i]);
    caps.vertexFloat[i] = precisionOf(GL_VERTEX_SHADER, qualifiers[i]);
  }
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &caps.maxTextureSize);
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &caps.maxRenderbufferSize);
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, caps.maxViewportDims.data());
  glGetIntegerv(GL_MAX_TEXTURE_IMAGE_UNITS, &caps.maxTextureImageUnits);
  glGetIntegerv(GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS, &caps.maxVertexTextureImageUnits);

  std::istringstream list(glString(GL_EXTENSIONS));
  for (std::string name; list >> name;) caps.advertisedExtensions.insert(name);

  caps.coreOnly = coreOnly;
  for (int i = 0; i < kExtensionCount; ++i) {
    const auto e = static_cast<Extension>(i);
    const bool advertised = caps.advertisedExtensions.count(std::string(toString(e))) > 0 ||
                            (!webglName(e).empty() && caps.advertisedExtensions.count(std::string(webglName(e))) > 0);
    caps.extensions[static_cast<size_t>(i)] = !coreOnly && advertised;
#ifdef __EMSCRIPTEN__
    // A timer query's result arrives in a browser only after the page yields to its event loop,
    // which a synchronous frame call never does: the extension is there but not usable.
    if (e == Extension::ExtDisjointTimerQuery) caps.extensions[static_cast<size_t>(i)] = false;
#endif
  }
  if (caps.has(Extension::OesTextureHalfFloat)) caps.halfFloatRenderable = isRenderable(GL_RGBA, GL_HALF_FLOAT_OES);
  if (caps.has(Extension::OesTextureFloat)) caps.floatRenderable = isRenderable(GL_RGBA, GL_FLOAT);
  if (caps.has(Extension::ExtDrawBuffers)) {
    glGetIntegerv(GL_MAX_DRAW_BUFFERS_EXT, &caps.maxDrawBuffers);
    caps.maxDrawBuffers = std::max(caps.maxDrawBuffers, 1);
  }
  checkGl("capability probe");
  return caps;
}

}  // namespace nft::gpu
