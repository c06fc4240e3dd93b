#include "gpu/texture.h"

#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu/capabilities.h"
#include "gpu/framebuffer.h"
#include "gpu/gpu_error.h"

namespace nft::gpu {

namespace {

struct GlFormat {
  GLenum format;  // GLES2: internal format == format
  GLenum type;
};

GlFormat glFormat(TextureFormat f) {
  switch (f) {
    case TextureFormat::Luminance8: return {GL_LUMINANCE, GL_UNSIGNED_BYTE};
    case TextureFormat::Rgb8: return {GL_RGB, GL_UNSIGNED_BYTE};
    case TextureFormat::Rgba8: return {GL_RGBA, GL_UNSIGNED_BYTE};
    case TextureFormat::Rgba16F: return {GL_RGBA, GL_HALF_FLOAT_OES};
    case TextureFormat::Rgba32F: return {GL_RGBA, GL_FLOAT};
  }
  throw std::logic_error("unknown TextureFormat");
}

const char* formatName(TextureFormat f) {
  switch (f) {
    case TextureFormat::Luminance8: return "Luminance8";
    case TextureFormat::Rgb8: return "Rgb8";
    case TextureFormat::Rgba8: return "Rgba8";
    case TextureFormat::Rgba16F: return "Rgba16F";
    case TextureFormat::Rgba32F: return "Rgba32F";
  }
  return "?";
}

GLint glFilter(Filter f) {
  switch (f) {
    case Filter::Nearest: return GL_NEAREST;
    case Filter::Linear: return GL_LINEAR;
    case Filter::NearestMipmapNearest: return GL_NEAREST_MIPMAP_NEAREST;
    case Filter::LinearMipmapNearest: return GL_LINEAR_MIPMAP_NEAREST;
    case Filter::LinearMipmapLinear: return GL_LINEAR_MIPMAP_LINEAR;
  }
  return GL_NEAREST;
}

bool isPowerOfTwo(int v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

int bytesPerTexel(TextureFormat format) {
  switch (format) {
    case TextureFormat::Luminance8: return 1;
    case TextureFormat::Rgb8: return 3;
    case TextureFormat::Rgba8: return 4;
    case TextureFormat::Rgba16F: return 8;
    case TextureFormat::Rgba32F: return 16;
  }
  return 0;
}

Texture::Texture(const Capabilities& caps, int width, int height, TextureFormat format, const void* data)
    : width_(width), height_(height), format_(format) {
  const std::string what = std::string(formatName(format)) + " texture " + std::to_string(width) + "x" +
                           std::to_string(height);
  if (width < 1 || height < 1 || width > caps.maxTextureSize || height > caps.maxTextureSize)
    throw GpuError(what + ": each side must be in [1, " + std::to_string(caps.maxTextureSize) +
                   "] (GL_MAX_TEXTURE_SIZE)");
  if (format == TextureFormat::Rgba16F && !caps.has(Extension::OesTextureHalfFloat))
    throw GpuError(what + ": needs GL_OES_texture_half_float, which this context lacks or is masked off");
  if (format == TextureFormat::Rgba32F && !caps.has(Extension::OesTextureFloat))
    throw GpuError(what + ": needs GL_OES_texture_float, which this context lacks or is masked off");
  if (format == TextureFormat::Rgba16F) debugAssertExtension(caps, Extension::OesTextureHalfFloat, what.c_str());
  if (format == TextureFormat::Rgba32F) debugAssertExtension(caps, Extension::OesTextureFloat, what.c_str());
  glGenTextures(1, &id_);
  bind();
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  const GlFormat gl = glFormat(format);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(gl.format), width, height, 0, gl.format, gl.type, data);
  try {
    checkGl(("allocating " + what).c_str());
  } catch (...) {
    glDeleteTextures(1, &id_);
    id_ = 0;
    throw;
  }
}

Texture::~Texture() {
  if (id_ != 0) glDeleteTextures(1, &id_);
}

Texture::Texture(Texture&& other) noexcept
    : id_(other.id_), width_(other.width_), height_(other.height_), format_(other.format_) {
  other.id_ = 0;
}

Texture& Texture::operator=(Texture&& other) noexcept {
  if (this != &other) {
    if (id_ != 0) glDeleteTextures(1, &id_);
    id_ = other.id_;
    width_ = other.width_;
    height_ = other.height_;
    format_ = other.format_;
    other.id_ = 0;
  }
  return *this;
}

void Texture::bind() const { glBindTexture(GL_TEXTURE_2D, id_); }

void Texture::upload(const void* data) {
  const GlFormat gl = glFormat(format_);
  bind();
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, gl.format, gl.type, data);
  checkGl("Texture::upload");
}

void Texture::upload(const void* data, const Rect& region) {
  if (region.x < 0 || region.y < 0 || region.width < 1 || region.height < 1 || region.x + region.width > width_ ||
      region.y + region.height > height_)
    throw GpuError("Texture::upload: region " + std::to_string(region.width) + "x" + std::to_string(region.height) +
                   " at (" + std::to_string(region.x) + ", " + std::to_string(region.y) + ") is not inside the " +
                   std::to_string(width_) + "x" + std::to_string(height_) + " texture");
  const GlFormat gl = glFormat(format_);
  bind();
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexSubImage2D(GL_TEXTURE_2D, 0, region.x, region.y, region.width, region.height, gl.format, gl.type, data);
  checkGl("Texture::upload (region)");
}

void Texture::setFilter(Filter min, Filter mag) {
  if (mag != Filter::Nearest && mag != Filter::Linear)
    throw std::invalid_argument("Texture::setFilter: the magnification filter must be Nearest or Linear");
  // GLES 2.0 core samples such textures as incomplete (black): linear filtering of float
  // textures needs OES_texture_float_linear / OES_texture_half_float_linear, which nothing probes.
  if ((format_ == TextureFormat::Rgba16F || format_ == TextureFormat::Rgba32F) &&
      (mag == Filter::Linear || (min != Filter::Nearest && min != Filter::NearestMipmapNearest)))
    throw std::invalid_argument(std::string("Texture::setFilter: ") + formatName(format_) +
                                " textures take Nearest or NearestMipmapNearest filters only (linear filtering "
                                "of float textures is not in OpenGL ES 2.0 core)");
  bind();
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, glFilter(min));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, glFilter(mag));
  checkGl("Texture::setFilter");
}

void Texture::generateMipmap() {
  if (!isPowerOfTwo(width_) || !isPowerOfTwo(height_))
    throw GpuError("generateMipmap: texture " + std::to_string(width_) + "x" + std::to_string(height_) +
                   " is not power-of-two sized, which OpenGL ES 2.0 requires for mipmaps (pad it)");
  bind();
  glGenerateMipmap(GL_TEXTURE_2D);
  checkGl("glGenerateMipmap");
}

int Texture::mipLevelCount() const {
  int levels = 1;
  for (int size = std::max(width_, height_); size > 1; size >>= 1) ++levels;
  return levels;
}

void Texture::copyFrom(const Framebuffer& source, const Rect& sourceRect, int x, int y) {
  const Rect& r = sourceRect;
  if (r.x < 0 || r.y < 0 || r.width < 1 || r.height < 1 || r.x + r.width > source.width() ||
      r.y + r.height > source.height() || x < 0 || y < 0 || x + r.width > width_ || y + r.height > height_)
    throw GpuError("Texture::copyFrom: " + std::to_string(r.width) + "x" + std::to_string(r.height) + " from (" +
                   std::to_string(r.x) + ", " + std::to_string(r.y) + ") of a " + std::to_string(source.width()) +
                   "x" + std::to_string(source.height()) + " framebuffer to (" + std::to_string(x) + ", " +
                   std::to_string(y) + ") of a " + std::to_string(width_) + "x" + std::to_string(height_) +
                   " texture does not fit");
  source.bind();
  bind();
  glCopyTexSubImage2D(GL_TEXTURE_2D, 0, x, y, r.x, r.y, r.width, r.height);
  checkGl("glCopyTexSubImage2D");
}

}  // namespace nft::gpu
