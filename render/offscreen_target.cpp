#include "render/offscreen_target.h"

#include <GLES2/gl2.h>

#include <string>

#include <opencv2/imgproc.hpp>

#include "gpu/capabilities.h"
#include "gpu/gpu_error.h"

namespace nft::render {

namespace {
gpu::Texture makeColor(const gpu::Capabilities& caps, int width, int height) {
  if (width < 1 || height < 1 || width > caps.maxRenderbufferSize || height > caps.maxRenderbufferSize)
    throw gpu::GpuError("OffscreenTarget " + std::to_string(width) + "x" + std::to_string(height) +
                        ": each side must be in [1, " + std::to_string(caps.maxRenderbufferSize) +
                        "] (GL_MAX_RENDERBUFFER_SIZE)");
  return gpu::Texture(caps, width, height, gpu::TextureFormat::Rgba8);
}
}  // namespace

OffscreenTarget::OffscreenTarget(const gpu::Capabilities& caps, int width, int height)
    : color_(makeColor(caps, width, height)), framebuffer_(color_) {
  glGenRenderbuffers(1, &depth_);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, width, height);
  framebuffer_.bind();
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    glDeleteRenderbuffers(1, &depth_);
    depth_ = 0;
    while (glGetError() != GL_NO_ERROR) {
    }
    throw gpu::GpuError("OffscreenTarget " + std::to_string(width) + "x" + std::to_string(height) +
                        ": RGBA8 + DEPTH_COMPONENT16 framebuffer is not complete (status " +
                        gpu::glErrorName(status) + ")");
  }
  gpu::checkGl("creating an OffscreenTarget");
}

OffscreenTarget::~OffscreenTarget() {
  if (depth_ != 0) glDeleteRenderbuffers(1, &depth_);
}

OffscreenTarget::OffscreenTarget(OffscreenTarget&& other) noexcept
    : color_(std::move(other.color_)), framebuffer_(std::move(other.framebuffer_)), depth_(other.depth_) {
  other.depth_ = 0;
}

OffscreenTarget& OffscreenTarget::operator=(OffscreenTarget&& other) noexcept {
  if (this != &other) {
    if (depth_ != 0) glDeleteRenderbuffers(1, &depth_);
    // The framebuffer goes before the texture it renders into.
    framebuffer_ = std::move(other.framebuffer_);
    color_ = std::move(other.color_);
    depth_ = other.depth_;
    other.depth_ = 0;
  }
  return *this;
}

cv::Mat OffscreenTarget::read() const {
  const std::vector<std::uint8_t> rgba = framebuffer_.readRgba8();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  const cv::Mat view(height(), width(), CV_8UC4, const_cast<std::uint8_t*>(rgba.data()));
  cv::Mat bgr;
  cv::cvtColor(view, bgr, cv::COLOR_RGBA2BGR);
  return bgr;
}

}  // namespace nft::render
