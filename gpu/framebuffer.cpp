#include "gpu/framebuffer.h"

#include <GLES2/gl2.h>

#include <string>

#include "gpu/gpu_error.h"
#include "gpu/texture.h"

namespace nft::gpu {

namespace {
std::string statusName(GLenum status) {
  switch (status) {
    case GL_FRAMEBUFFER_COMPLETE: return "GL_FRAMEBUFFER_COMPLETE";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_DIMENSIONS: return "GL_FRAMEBUFFER_INCOMPLETE_DIMENSIONS";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
    default: return glErrorName(status);
  }
}
}  // namespace

Framebuffer::Framebuffer(const Texture& color) : width_(color.width()), height_(color.height()) {
  glGenFramebuffers(1, &id_);
  glBindFramebuffer(GL_FRAMEBUFFER, id_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color.id(), 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &id_);
    id_ = 0;
    while (glGetError() != GL_NO_ERROR) {
    }
    throw GpuError("framebuffer on a " + std::to_string(width_) + "x" + std::to_string(height_) +
                   " texture is not complete: " + statusName(status) +
                   " (this texture format cannot be rendered to here)");
  }
  checkGl("creating a framebuffer");
}

Framebuffer::~Framebuffer() {
  if (id_ != 0) glDeleteFramebuffers(1, &id_);
}

Framebuffer::Framebuffer(Framebuffer&& other) noexcept
    : id_(other.id_), width_(other.width_), height_(other.height_) {
  other.id_ = 0;
}

Framebuffer& Framebuffer::operator=(Framebuffer&& other) noexcept {
  if (this != &other) {
    if (id_ != 0) glDeleteFramebuffers(1, &id_);
    id_ = other.id_;
    width_ = other.width_;
    height_ = other.height_;
    other.id_ = 0;
  }
  return *this;
}

void Framebuffer::bind() const { glBindFramebuffer(GL_FRAMEBUFFER, id_); }

std::vector<std::uint8_t> Framebuffer::readRgba8(const Rect& rect) const {
  if (rect.x < 0 || rect.y < 0 || rect.width < 0 || rect.height < 0 || rect.x + rect.width > width_ ||
      rect.y + rect.height > height_)
    throw GpuError("readRgba8: rectangle (" + std::to_string(rect.x) + ", " + std::to_string(rect.y) + ", " +
                   std::to_string(rect.width) + "x" + std::to_string(rect.height) + ") is not inside the " +
                   std::to_string(width_) + "x" + std::to_string(height_) + " framebuffer");
  std::vector<std::uint8_t> pixels(static_cast<size_t>(rect.width) * static_cast<size_t>(rect.height) * 4);
  if (pixels.empty()) return pixels;
  bind();
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(rect.x, rect.y, rect.width, rect.height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  checkGl("glReadPixels");
  return pixels;
}

}  // namespace nft::gpu
