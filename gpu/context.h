#pragma once
// The EGL display and OpenGL ES 2.0 context every GPU pass and every drawing call runs on
// (MinGPU-ES's GpuContext, seeds/000 section 3.4). One context serves compute and rendering.

#include <memory>
#include <string>
#include <string_view>

namespace nft::gpu {

/// How a headless context is obtained.
enum class EglPlatform {
  Auto,         ///< NFT_EGL_PLATFORM if set, else: hardware EGL device, surfaceless, any device,
                ///< default display with a pbuffer — the first that gives an ES 2.0 context.
  Surfaceless,  ///< EGL_MESA_platform_surfaceless (Mesa; llvmpipe when there is no GPU).
  Device,       ///< EGL_EXT_platform_device over EGL_EXT_device_enumeration or EGL_EXT_device_base
                ///< (Mesa, NVIDIA).
  Default,      ///< eglGetDisplay(EGL_DEFAULT_DISPLAY) with a 1×1 pbuffer surface.
};

/// "auto", "surfaceless", "device" or "default".
std::string_view toString(EglPlatform platform);

/// Parses "auto" | "surfaceless" | "device" | "default".
/// @throws std::invalid_argument naming the value and the allowed ones.
EglPlatform parseEglPlatform(std::string_view name);

/// Whether an EGL client-extension string (eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS): tokens
/// separated by single spaces; nullptr allowed) offers what EglPlatform::Device needs:
/// EGL_EXT_platform_device and device enumeration, named EGL_EXT_device_enumeration (Mesa) or
/// EGL_EXT_device_base (NVIDIA: enumeration and query in one). Whole tokens only. Throws nothing.
bool offersEglDeviceEnumeration(const char* clientExtensions);

/// Options of Context::createHeadless().
struct ContextOptions {
  EglPlatform platform = EglPlatform::Auto;
  /// With EglPlatform::Device: index into eglQueryDevicesEXT's list; -1 = the first that works.
  int deviceIndex = -1;
};

/// An EGL display + OpenGL ES 2.0 context, current on the calling thread after construction.
///
/// Either created headless (createHeadless) and then owned — destroyed with this object — or
/// adopted from whoever made one current (adoptCurrent: a GLFW window with
/// GLFW_EGL_CONTEXT_API, a native window), and then only referenced. GL objects made through
/// the gpu/ layer belong to the context current when they were made; destroy them before it.
/// Move-only. Not thread-safe: use it from the thread that made it current.
class Context {
 public:
  /// Creates a headless ES 2.0 context (no window) and makes it current.
  /// Surfaceless contexts use EGL_KHR_surfaceless_context; otherwise a 1×1 pbuffer is made.
  /// @throws GpuError listing every platform tried and why each failed (EGL error names).
  static Context createHeadless(const ContextOptions& options = {});

  /// Wraps the EGL context current on this thread (made by a window toolkit) without owning it.
  /// In the web build: the WebGL context current through emscripten's HTML5 API.
  /// @throws GpuError if no EGL context is current.
  static Context adoptCurrent();

#ifdef __EMSCRIPTEN__
  /// Web build only (gpu/context_web.cpp): creates a WebGL 1 context (OpenGL ES 2.0 with GLSL ES
  /// 1.00) on the page's canvas that `canvasSelector` names (a CSS selector, e.g. "#view"),
  /// owned by this object and current after construction. The canvas's drawing buffer is what
  /// the renderer draws the augmentations into; every WebGL extension the browser offers is
  /// enabled, for the capability probe to find. (createHeadless() in the browser makes the same
  /// context on a hidden canvas of its own.)
  /// @throws GpuError naming the selector when no such canvas exists or WebGL 1 is unavailable.
  static Context createOnCanvas(const std::string& canvasSelector);
#endif

  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  /// Releases and destroys an owned context (not an adopted one). The EGL display stays
  /// initialized: EGL displays are shared per process, terminating one would kill others.
  ~Context();

  /// Makes this context current on the calling thread. @throws GpuError on EGL failure.
  void makeCurrent() const;
  /// True when this context is the calling thread's current EGL context.
  bool isCurrent() const;
  /// True for contexts made by createHeadless, false for adopted ones.
  bool ownsContext() const;

  /// What gave the context, e.g. "EGL_MESA_platform_surfaceless",
  /// "EGL_EXT_platform_device (device 0 of 2)", "default display + pbuffer", "adopted".
  const std::string& platformDescription() const;
  /// EGL_VENDOR and EGL_VERSION of the display, e.g. "Mesa Project", "1.5".
  std::string eglVendor() const;
  std::string eglVersion() const;
  /// The EGLDisplay and EGLContext handles (as void* to keep EGL headers out of ours).
  void* eglDisplay() const;
  void* eglContext() const;

  /// The EGL handles behind a Context; opaque outside gpu/context.cpp.
  struct State;

 private:
  explicit Context(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

#ifdef __EMSCRIPTEN__
/// Web build only: the GPU's own name for the current WebGL context (WEBGL_debug_renderer_info's
/// UNMASKED_RENDERER_WEBGL, e.g. "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device ...))"), or ""
/// where the browser does not tell (its GL_RENDERER is then a fixed "WebKit WebGL" or similar).
/// The capability probe reports it as glRenderer, so isSoftwareRenderer() sees the real one.
std::string webglUnmaskedRenderer();
#endif

}  // namespace nft::gpu
