#pragma once
// The desktop preview: a GLFW window whose OpenGL ES 2.0 context (made through GLFW's EGL
// context API) is the one context of the process — gpu/ compute passes and the Renderer run on
// it (gpu::Context::adoptCurrent()). Under X11 without a display, run under xvfb-run.
//
//   nft::render::PreviewWindow window({640, 480, "nft"});
//   auto caps = nft::gpu::probeCapabilities();
//   nft::render::Renderer renderer(caps, camera, targetSize);
//   while (!window.shouldClose()) {
//     renderer.drawFrame(frame, pose, window.drawTarget());
//     window.swapBuffers();
//     window.pollEvents();
//   }

#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "gpu/context.h"
#include "render/offscreen_target.h"

struct GLFWwindow;

namespace nft::render {

/// Options of a PreviewWindow.
struct PreviewWindowOptions {
  int width = 640;   ///< Client area, screen coordinates.
  int height = 480;  ///< Client area, screen coordinates.
  std::string title = "nft preview";
  bool visible = true;  ///< False: a hidden window (its default framebuffer still renders).
  int swapInterval = 0;  ///< glfwSwapInterval: 0 = no vsync, 1 = vsync.
};

/// A GLFW window with an OpenGL ES 2.0 context (GLFW_EGL_CONTEXT_API, 24-bit depth buffer),
/// current on the constructing thread and adopted as a gpu::Context. Initialises GLFW on
/// construction and terminates it on destruction: one PreviewWindow at a time. GL objects made
/// on its context (Renderer, textures) must be destroyed before it. Not movable, not copyable.
class PreviewWindow {
 public:
  /// Opens the window and makes its context current.
  /// @throws std::runtime_error naming what failed and GLFW's reason, e.g. "no display: set
  ///         DISPLAY or run under xvfb-run" when glfwInit fails, or when the ES 2.0 / EGL
  ///         window cannot be created.
  explicit PreviewWindow(const PreviewWindowOptions& options = {});
  ~PreviewWindow();
  PreviewWindow(const PreviewWindow&) = delete;
  PreviewWindow& operator=(const PreviewWindow&) = delete;

  /// The window's context (adopted: not owned, destroyed with the window).
  gpu::Context& context() { return *context_; }
  /// Framebuffer size in pixels (can differ from the window size on high-DPI screens).
  cv::Size framebufferSize() const;
  /// The default framebuffer as a Renderer target (yDown = false, with depth).
  DrawTarget drawTarget() const;
  /// True once the user asked to close the window (close button, or Escape).
  bool shouldClose() const;
  /// Presents the frame drawn into the default framebuffer.
  void swapBuffers();
  /// Processes pending window events (call once per frame).
  void pollEvents();
  /// Reads the back buffer (what was drawn since the last swap: call before swapBuffers) with
  /// glReadPixels on framebuffer 0: CV_8UC3 BGR, row 0 the picture's top row (cv::imwrite-ready).
  /// @throws GpuError on a GL error.
  cv::Mat screenshot() const;
  /// The GLFW window handle, for input callbacks.
  GLFWwindow* handle() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
  std::optional<gpu::Context> context_;
};

}  // namespace nft::render
