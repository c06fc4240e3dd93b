// gpu::Context in the web build (issue 25): a WebGL 1 context — OpenGL ES 2.0 with GLSL ES 1.00 —
// on a canvas, through emscripten's HTML5 API. The native file (context.cpp) finds a headless EGL
// display; none of its routes (platform displays, devices, pbuffers) exists in a browser, where a
// context belongs to a canvas element. Everything above this file is the same code as native.
#include "gpu/context.h"

#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "gpu/gpu_error.h"

namespace nft::gpu {

struct Context::State {
  EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = 0;
  bool owned = false;
  std::string description;
  std::string hiddenCanvasId;  // set when createHeadless() made the canvas (removed with it)
};

namespace {

std::string resultName(EMSCRIPTEN_RESULT r) {
  switch (r) {
    case EMSCRIPTEN_RESULT_SUCCESS: return "success";
    case EMSCRIPTEN_RESULT_NOT_SUPPORTED: return "not supported";
    case EMSCRIPTEN_RESULT_INVALID_TARGET: return "invalid target";
    case EMSCRIPTEN_RESULT_UNKNOWN_TARGET: return "unknown target";
    case EMSCRIPTEN_RESULT_INVALID_PARAM: return "invalid parameter";
    case EMSCRIPTEN_RESULT_FAILED: return "failed";
    default: return "error " + std::to_string(r);
  }
}

/// A WebGL 1 context on the canvas `selector` names, current on return; throws otherwise.
EMSCRIPTEN_WEBGL_CONTEXT_HANDLE createWebGl1(const std::string& selector) {
  EmscriptenWebGLContextAttributes attributes;
  emscripten_webgl_init_context_attributes(&attributes);
  attributes.majorVersion = 1;  // WebGL 1 = OpenGL ES 2.0: what every phone browser has
  attributes.minorVersion = 0;
  attributes.alpha = false;
  attributes.depth = true;  // the augmentations' meshes are depth-tested
  attributes.stencil = false;
  attributes.antialias = false;
  attributes.premultipliedAlpha = false;
  attributes.preserveDrawingBuffer = false;
  attributes.powerPreference = EM_WEBGL_POWER_PREFERENCE_HIGH_PERFORMANCE;
  // Every extension the browser offers is enabled now, so GL_EXTENSIONS lists them for the
  // capability probe (WebGL hides an extension until getExtension() asked for it).
  attributes.enableExtensionsByDefault = true;
  const EMSCRIPTEN_WEBGL_CONTEXT_HANDLE handle = emscripten_webgl_create_context(selector.c_str(), &attributes);
  if (handle <= 0)
    throw GpuError("no WebGL 1 context on canvas '" + selector + "' (" +
                   resultName(static_cast<EMSCRIPTEN_RESULT>(handle)) +
                   "): check that the selector names a <canvas> element of the page and that the browser has WebGL");
  const EMSCRIPTEN_RESULT made = emscripten_webgl_make_context_current(handle);
  if (made != EMSCRIPTEN_RESULT_SUCCESS) {
    emscripten_webgl_destroy_context(handle);
    throw GpuError("the WebGL context on canvas '" + selector + "' cannot be made current (" + resultName(made) + ")");
  }
  return handle;
}

}  // namespace

Context Context::createOnCanvas(const std::string& canvasSelector) {
  auto state = std::make_unique<State>();
  state->context = createWebGl1(canvasSelector);
  state->owned = true;
  state->description = "WebGL 1 on canvas " + canvasSelector;
  return Context(std::move(state));
}

Context Context::createHeadless(const ContextOptions& options) {
  if (options.platform != EglPlatform::Auto && options.platform != EglPlatform::Default)
    throw GpuError("EGL platform '" + std::string(toString(options.platform)) +
                   "' does not exist in a browser (expected auto or default)");
  // A canvas of our own, hidden, with a page-unique id: WebGL contexts belong to canvases.
  const int serial = EM_ASM_INT({
    if (typeof document === "undefined") return -1;
    Module.nftHiddenCanvases = (Module.nftHiddenCanvases || 0) + 1;
    const canvas = document.createElement("canvas");
    canvas.id = "nft-headless-" + Module.nftHiddenCanvases;
    canvas.width = 1;
    canvas.height = 1;
    canvas.style.display = "none";
    document.body.appendChild(canvas);
    return Module.nftHiddenCanvases;
  });
  if (serial < 0)
    throw GpuError("no OpenGL ES 2.0 context: WebGL needs a browser page (no document here)");
  const std::string id = "nft-headless-" + std::to_string(serial);
  Context context = createOnCanvas("#" + id);
  context.state_->hiddenCanvasId = id;
  context.state_->description = "WebGL 1 on a hidden canvas";
  return context;
}

Context Context::adoptCurrent() {
  auto state = std::make_unique<State>();
  state->context = emscripten_webgl_get_current_context();
  if (state->context <= 0)
    throw GpuError("no current WebGL context to adopt: make the canvas's context current first "
                   "(emscripten_webgl_make_context_current)");
  state->owned = false;
  state->description = "adopted WebGL";
  return Context(std::move(state));
}

Context::Context(std::unique_ptr<State> state) : state_(std::move(state)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    Context dying(std::move(*this));  // releases what this held
    state_ = std::move(other.state_);
  }
  return *this;
}

Context::~Context() {
  if (!state_ || !state_->owned) return;
  emscripten_webgl_destroy_context(state_->context);
  if (!state_->hiddenCanvasId.empty()) {
    EM_ASM({
      const canvas = document.getElementById(UTF8ToString($0));
      if (canvas) canvas.remove();
    }, state_->hiddenCanvasId.c_str());
  }
}

void Context::makeCurrent() const {
  const EMSCRIPTEN_RESULT made = emscripten_webgl_make_context_current(state_->context);
  if (made != EMSCRIPTEN_RESULT_SUCCESS)
    throw GpuError("the " + state_->description + " context cannot be made current (" + resultName(made) + ")");
}

bool Context::isCurrent() const { return emscripten_webgl_get_current_context() == state_->context; }
bool Context::ownsContext() const { return state_->owned; }
const std::string& Context::platformDescription() const { return state_->description; }

// There is no EGL display in a browser: the context's API is what these report.
std::string Context::eglVendor() const { return "browser (emscripten HTML5 WebGL)"; }
std::string Context::eglVersion() const { return "WebGL 1.0"; }
void* Context::eglDisplay() const { return nullptr; }
void* Context::eglContext() const {
  return reinterpret_cast<void*>(static_cast<intptr_t>(state_->context));
}

std::string webglUnmaskedRenderer() {
  char* name = reinterpret_cast<char*>(static_cast<intptr_t>(EM_ASM_INT({
    const gl = GL.currentContext && GL.currentContext.GLctx;
    const info = gl && gl.getExtension("WEBGL_debug_renderer_info");
    const name = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : "";
    return name ? allocateUTF8(String(name)) : 0;
  })));
  if (name == nullptr) return "";
  std::string out(name);
  std::free(name);
  return out;
}

}  // namespace nft::gpu
