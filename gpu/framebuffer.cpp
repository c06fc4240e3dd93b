#include "gpu/framebuffer.h"

#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include <string>

#include "gpu/capabilities.h"
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

Framebuffer::Framebuffer(const Texture& color) : width_(color.width()), height_(color.height()) { attach({&color}); }

Framebuffer::Framebuffer(const Capabilities& caps, const std::vector<const Texture*>& colors) {
  const int n = static_cast<int>(colors.size());
  if (n == 0) throw GpuError("framebuffer: no colour attachment given");
  for (const Texture* color : colors)
    if (color == nullptr) throw GpuError("framebuffer: a null colour attachment");
  width_ = colors[0]->width();
  height_ = colors[0]->height();
  for (int i = 1; i < n; ++i)
    if (colors[static_cast<size_t>(i)]->width() != width_ || colors[static_cast<size_t>(i)]->height() != height_)
      throw GpuError("framebuffer: attachment " + std::to_string(i) + " is " +
                     std::to_string(colors[static_cast<size_t>(i)]->width()) + "x" +
                     std::to_string(colors[static_cast<size_t>(i)]->height()) + ", attachment 0 " +
                     std::to_string(width_) + "x" + std::to_string(height_) + " (all must be the same size)");
  if (n > 1 && !caps.has(Extension::ExtDrawBuffers))
    throw GpuError("framebuffer: " + std::to_string(n) + " colour attachments need GL_EXT_draw_buffers, which " +
                   (caps.coreOnly ? "the core-only probe masks off" : "this GPU does not offer"));
  if (n > caps.maxDrawBuffers)
    throw GpuError("framebuffer: " + std::to_string(n) + " colour attachments, more than this GPU's " +
                   std::to_string(caps.maxDrawBuffers) + " draw buffers");
  attach(colors);
}

void Framebuffer::attach(const std::vector<const Texture*>& colors) {
  glGenFramebuffers(1, &id_);
  glBindFramebuffer(GL_FRAMEBUFFER, id_);
  std::vector<GLenum> buffers;
  for (size_t i = 0; i < colors.size(); ++i) {
    buffers.push_back(static_cast<GLenum>(GL_COLOR_ATTACHMENT0_EXT + i));
    glFramebufferTexture2D(GL_FRAMEBUFFER, buffers.back(), GL_TEXTURE_2D, colors[i]->id(), 0);
  }
  if (colors.size() > 1) {
    // An extension entry point: through EGL, as libGLESv2 need not export it.
    static const auto drawBuffers =
        reinterpret_cast<PFNGLDRAWBUFFERSEXTPROC>(eglGetProcAddress("glDrawBuffersEXT"));
    if (drawBuffers == nullptr) {
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      glDeleteFramebuffers(1, &id_);
      id_ = 0;
      throw GpuError("framebuffer: GL_EXT_draw_buffers is advertised but eglGetProcAddress has no glDrawBuffersEXT");
    }
    drawBuffers(static_cast<GLsizei>(buffers.size()), buffers.data());
  }
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &id_);
    id_ = 0;
    while (glGetError() != GL_NO_ERROR) {
    }
    throw GpuError("framebuffer on " + (colors.size() == 1 ? std::string("a") : std::to_string(colors.size())) + " " +
                   std::to_string(width_) + "x" + std::to_string(height_) +
                   (colors.size() == 1 ? " texture" : " textures") + " is not complete: " + statusName(status) +
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
  readInto(rect, pixels.data());
  return pixels;
}

void Framebuffer::readRgba8Into(std::vector<std::uint8_t>& pixels) const {
  pixels.resize(static_cast<size_t>(width_) * static_cast<size_t>(height_) * 4);
  readInto({0, 0, width_, height_}, pixels.data());
}

void Framebuffer::readInto(const Rect& rect, std::uint8_t* pixels) const {
  if (rect.width == 0 || rect.height == 0) return;
  bind();
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(rect.x, rect.y, rect.width, rect.height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  checkGl("glReadPixels");
}

}  // namespace nft::gpu
