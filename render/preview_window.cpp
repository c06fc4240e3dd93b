#include "render/preview_window.h"

#include <GLES2/gl2.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "gpu/gpu_error.h"

namespace nft::render {

namespace {

std::string& lastGlfwError() {
  static std::string error;
  return error;
}

void onGlfwError(int code, const char* description) {
  lastGlfwError() = std::string(description ? description : "unknown error") + " (GLFW error 0x" +
                    [code] {
                      char hex[16];
                      std::snprintf(hex, sizeof hex, "%X", static_cast<unsigned>(code));
                      return std::string(hex);
                    }() +
                    ")";
}

void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
  if (key == GLFW_KEY_ESCAPE && action == GLFW_PRESS) glfwSetWindowShouldClose(window, GLFW_TRUE);
}

std::string glfwReason() {
  const std::string& e = lastGlfwError();
  return e.empty() ? std::string("no reason given") : e;
}

}  // namespace

PreviewWindow::PreviewWindow(const PreviewWindowOptions& options) {
  if (options.width < 1 || options.height < 1)
    throw std::invalid_argument("PreviewWindow: window size must be positive, got " + std::to_string(options.width) +
                                "x" + std::to_string(options.height));
  lastGlfwError().clear();
  glfwSetErrorCallback(onGlfwError);
  if (glfwInit() != GLFW_TRUE)
    throw std::runtime_error("PreviewWindow: glfwInit failed: " + glfwReason() +
                             " — no display: set DISPLAY or run under xvfb-run");
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 2);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  glfwWindowHint(GLFW_DEPTH_BITS, 24);
  glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
  window_ = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (window_ == nullptr) {
    const std::string reason = glfwReason();
    glfwTerminate();
    throw std::runtime_error("PreviewWindow: could not create a " + std::to_string(options.width) + "x" +
                             std::to_string(options.height) +
                             " window with an OpenGL ES 2.0 context through EGL (GLFW_EGL_CONTEXT_API): " + reason);
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(options.swapInterval);
  glfwSetKeyCallback(window_, onKey);
  try {
    context_.emplace(gpu::Context::adoptCurrent());
  } catch (...) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw;
  }
}

PreviewWindow::~PreviewWindow() {
  context_.reset();
  if (window_ != nullptr) {
    glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(window_);
  }
  glfwTerminate();
}

cv::Size PreviewWindow::framebufferSize() const {
  int width = 0, height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  return {width, height};
}

DrawTarget PreviewWindow::drawTarget() const {
  const cv::Size size = framebufferSize();
  return DrawTarget::window(size.width, size.height, true);
}

bool PreviewWindow::shouldClose() const { return glfwWindowShouldClose(window_) == GLFW_TRUE; }

void PreviewWindow::swapBuffers() { glfwSwapBuffers(window_); }

void PreviewWindow::pollEvents() { glfwPollEvents(); }

cv::Mat PreviewWindow::screenshot() const {
  const cv::Size size = framebufferSize();
  cv::Mat rgba(size, CV_8UC4);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, size.width, size.height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  gpu::checkGl("PreviewWindow::screenshot (glReadPixels)");
  cv::Mat bgr, flipped;
  cv::cvtColor(rgba, bgr, cv::COLOR_RGBA2BGR);
  cv::flip(bgr, flipped, 0);  // GL row 0 is the bottom
  return flipped;
}

}  // namespace nft::render
