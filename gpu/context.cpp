#include "gpu/context.h"

// Keep X11's macros (None, Status, Bool…) out: we never use a native X display here.
#define EGL_NO_X11
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "gpu/gpu_error.h"

namespace nft::gpu {

struct Context::State {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface drawSurface = EGL_NO_SURFACE;
  EGLSurface readSurface = EGL_NO_SURFACE;
  bool owned = false;
  std::string description;
};

namespace {

bool hasToken(const char* list, std::string_view token) {
  if (list == nullptr) return false;
  std::string_view rest(list);
  while (!rest.empty()) {
    size_t end = rest.find(' ');
    if (rest.substr(0, end) == token) return true;
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return false;
}

std::string lastEglError() { return eglErrorName(eglGetError()); }

template <typename Fn>
Fn eglProc(const char* name) {
  return reinterpret_cast<Fn>(eglGetProcAddress(name));
}

/// Tries to get an ES 2.0 context current on `display`. On failure appends a line to `log`
/// and returns false; what it made is destroyed again.
bool makeOnDisplay(EGLDisplay display, const std::string& label,
                                             std::vector<std::string>& log,
                                             std::unique_ptr<Context::State>& out) {
  auto fail = [&](const std::string& why) {
    log.push_back(label + ": " + why);
    return false;
  };
  if (display == EGL_NO_DISPLAY) return fail("no display (" + lastEglError() + ")");
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor)) return fail("eglInitialize failed (" + lastEglError() + ")");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) return fail("eglBindAPI(EGL_OPENGL_ES_API) failed (" + lastEglError() + ")");

  const bool surfaceless = hasToken(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context");
  const EGLint configAttribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
                                  EGL_SURFACE_TYPE, surfaceless ? 0 : EGL_PBUFFER_BIT,
                                  EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
                                  EGL_ALPHA_SIZE, 8, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!eglChooseConfig(display, configAttribs, &config, 1, &count) || count < 1)
    return fail("no RGBA8 ES 2.0 EGLConfig (" + lastEglError() + ")");

  const EGLint contextAttribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, contextAttribs);
  if (context == EGL_NO_CONTEXT) return fail("eglCreateContext(ES 2.0) failed (" + lastEglError() + ")");

  EGLSurface surface = EGL_NO_SURFACE;
  if (!surfaceless) {
    const EGLint pbufferAttribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    surface = eglCreatePbufferSurface(display, config, pbufferAttribs);
    if (surface == EGL_NO_SURFACE) {
      std::string why = "eglCreatePbufferSurface failed (" + lastEglError() + ")";
      eglDestroyContext(display, context);
      return fail(why);
    }
  }
  if (!eglMakeCurrent(display, surface, surface, context)) {
    std::string why = "eglMakeCurrent failed (" + lastEglError() + ")";
    if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
    eglDestroyContext(display, context);
    return fail(why);
  }
  const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  if (version == nullptr || std::strncmp(version, "OpenGL ES", 9) != 0) {
    std::string why = std::string("context is not OpenGL ES (GL_VERSION ") + (version ? version : "null") + ")";
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
    eglDestroyContext(display, context);
    return fail(why);
  }
  out = std::make_unique<Context::State>();
  out->display = display;
  out->context = context;
  out->drawSurface = out->readSurface = surface;
  out->owned = true;
  out->description = surfaceless ? label : label + " + 1x1 pbuffer";
  return true;
}

}  // namespace

bool offersEglDeviceEnumeration(const char* clientExtensions) {
  // NVIDIA's driver names only EGL_EXT_device_base, the older extension that is
  // EGL_EXT_device_enumeration plus EGL_EXT_device_query in one (EGL_EXT_device_enumeration's
  // spec, "Dependencies"); Mesa names both. Asking for device_enumeration alone missed every
  // NVIDIA GPU (seen on an H100, driver 580).
  return hasToken(clientExtensions, "EGL_EXT_platform_device") &&
         (hasToken(clientExtensions, "EGL_EXT_device_enumeration") ||
          hasToken(clientExtensions, "EGL_EXT_device_base"));
}

namespace {

struct DeviceList {
  std::vector<EGLDeviceEXT> devices;
  std::string error;  // why enumeration is impossible; empty when it worked
};

DeviceList enumerateDevices(const char* clientExtensions) {
  DeviceList list;
  if (!offersEglDeviceEnumeration(clientExtensions)) {
    list.error = "EGL_EXT_platform_device with EGL_EXT_device_enumeration (or EGL_EXT_device_base) not offered by libEGL";
    return list;
  }
  auto queryDevices = eglProc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
  EGLint count = 0;
  if (queryDevices == nullptr || !queryDevices(0, nullptr, &count)) {
    list.error = "eglQueryDevicesEXT failed (" + lastEglError() + ")";
    return list;
  }
  list.devices.resize(static_cast<size_t>(count));
  if (count > 0 && !queryDevices(count, list.devices.data(), &count)) {
    list.error = "eglQueryDevicesEXT failed (" + lastEglError() + ")";
    list.devices.clear();
    return list;
  }
  list.devices.resize(static_cast<size_t>(count));
  if (list.devices.empty()) list.error = "no EGL device found";
  return list;
}

bool isSoftwareDevice(EGLDeviceEXT device) {
  auto queryString = eglProc<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
  return queryString != nullptr && hasToken(queryString(device, EGL_EXTENSIONS), "EGL_MESA_device_software");
}

/// Tries EGL devices: `index` >= 0 only that one; else all (hardware ones only if
/// `hardwareOnly`). Returns true when `out` holds a context.
bool tryDevices(const char* clientExtensions, int index, bool hardwareOnly,
                std::vector<std::string>& log, std::unique_ptr<Context::State>& out) {
  DeviceList list = enumerateDevices(clientExtensions);
  if (!list.error.empty()) {
    log.push_back("EGL_EXT_platform_device: " + list.error);
    return false;
  }
  const int n = static_cast<int>(list.devices.size());
  if (index >= n) {
    log.push_back("EGL_EXT_platform_device: device index " + std::to_string(index) +
                  " out of range (found " + std::to_string(n) + " device(s))");
    return false;
  }
  auto getPlatformDisplay = eglProc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
  bool triedAny = false;
  for (int i = (index >= 0 ? index : 0); i < (index >= 0 ? index + 1 : n); ++i) {
    if (hardwareOnly && isSoftwareDevice(list.devices[static_cast<size_t>(i)])) continue;
    triedAny = true;
    const std::string label = "EGL_EXT_platform_device (device " + std::to_string(i) + " of " + std::to_string(n) + ")";
    EGLDisplay display = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, list.devices[static_cast<size_t>(i)], nullptr);
    if (makeOnDisplay(display, label, log, out)) return true;
  }
  if (!triedAny) log.push_back("EGL_EXT_platform_device: no hardware device among " + std::to_string(n));
  return false;
}

bool trySurfaceless(const char* clientExtensions, std::vector<std::string>& log,
                    std::unique_ptr<Context::State>& out) {
  const std::string label = "EGL_MESA_platform_surfaceless";
  if (!hasToken(clientExtensions, "EGL_MESA_platform_surfaceless")) {
    log.push_back(label + ": not offered by libEGL");
    return false;
  }
  auto getPlatformDisplay = eglProc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
  EGLDisplay display = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  return makeOnDisplay(display, label, log, out);
}

bool tryDefault(std::vector<std::string>& log, std::unique_ptr<Context::State>& out) {
  return makeOnDisplay(eglGetDisplay(EGL_DEFAULT_DISPLAY), "default display", log, out);
}

}  // namespace

Context Context::createHeadless(const ContextOptions& options) {
  EglPlatform platform = options.platform;
  if (platform == EglPlatform::Auto) {
    if (const char* env = std::getenv("NFT_EGL_PLATFORM"); env != nullptr && *env != '\0') {
      try {
        platform = parseEglPlatform(env);
      } catch (const std::invalid_argument& e) {
        throw GpuError(std::string("environment variable NFT_EGL_PLATFORM: ") + e.what());
      }
    }
  }
  // Client extensions (EGL 1.5 / EGL_EXT_client_extensions); null on very old libEGL.
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (client == nullptr) eglGetError();  // clear EGL_BAD_DISPLAY

  std::vector<std::string> log;
  std::unique_ptr<State> state;
  bool ok = false;
  switch (platform) {
    case EglPlatform::Surfaceless: ok = trySurfaceless(client, log, state); break;
    case EglPlatform::Device: ok = tryDevices(client, options.deviceIndex, false, log, state); break;
    case EglPlatform::Default: ok = tryDefault(log, state); break;
    case EglPlatform::Auto:
      // A real GPU first; then Mesa's surfaceless platform (llvmpipe without a GPU); then any
      // device (Mesa's software device); then the pbuffer route of old drivers.
      ok = tryDevices(client, -1, true, log, state) || trySurfaceless(client, log, state) ||
           tryDevices(client, -1, false, log, state) || tryDefault(log, state);
      break;
  }
  if (!ok) {
    std::string msg = "no OpenGL ES 2.0 context could be created (platform '" +
                      std::string(toString(platform)) + "'); tried:";
    for (const std::string& line : log) msg += "\n  - " + line;
    msg += "\nInstall Mesa's EGL and llvmpipe driver (scripts/install-deps.sh) or a GPU driver with EGL.";
    throw GpuError(msg);
  }
  return Context(std::move(state));
}

Context Context::adoptCurrent() {
  auto state = std::make_unique<State>();
  state->context = eglGetCurrentContext();
  if (state->context == EGL_NO_CONTEXT)
    throw GpuError("no current EGL context to adopt: make the window's OpenGL ES 2.0 context current "
                   "first (with GLFW: GLFW_CLIENT_API = GLFW_OPENGL_ES_API, GLFW_CONTEXT_CREATION_API = "
                   "GLFW_EGL_CONTEXT_API, then glfwMakeContextCurrent)");
  state->display = eglGetCurrentDisplay();
  state->drawSurface = eglGetCurrentSurface(EGL_DRAW);
  state->readSurface = eglGetCurrentSurface(EGL_READ);
  state->owned = false;
  state->description = "adopted";
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
  if (eglGetCurrentContext() == state_->context)
    eglMakeCurrent(state_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (state_->drawSurface != EGL_NO_SURFACE) eglDestroySurface(state_->display, state_->drawSurface);
  eglDestroyContext(state_->display, state_->context);
}

void Context::makeCurrent() const {
  if (!eglMakeCurrent(state_->display, state_->drawSurface, state_->readSurface, state_->context))
    throw GpuError("eglMakeCurrent failed for the " + state_->description + " context (" + lastEglError() + ")");
}

bool Context::isCurrent() const { return eglGetCurrentContext() == state_->context; }
bool Context::ownsContext() const { return state_->owned; }
const std::string& Context::platformDescription() const { return state_->description; }

std::string Context::eglVendor() const {
  const char* s = eglQueryString(state_->display, EGL_VENDOR);
  return s ? s : "";
}
std::string Context::eglVersion() const {
  const char* s = eglQueryString(state_->display, EGL_VERSION);
  return s ? s : "";
}
void* Context::eglDisplay() const { return state_->display; }
void* Context::eglContext() const { return state_->context; }

}  // namespace nft::gpu
