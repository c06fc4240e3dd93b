#pragma once
// A framebuffer object rendering into one texture, or into several at once with
// GL_EXT_draw_buffers: the output of a GPU pass, and readback.

#include <cstdint>
#include <vector>

namespace nft::gpu {

class Texture;
struct Capabilities;

/// An axis-aligned rectangle of texels: x, y of its first texel, width × height.
struct Rect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

/// A GL framebuffer with `color`'s level 0 as its colour attachment. Does not own the
/// texture, which must outlive it. Move-only; deletes the GL framebuffer on destruction.
class Framebuffer {
 public:
  /// @throws GpuError naming the glCheckFramebufferStatus result when the texture cannot be
  ///         rendered to (e.g. Luminance8, or a float format the driver cannot render).
  explicit Framebuffer(const Texture& color);
  /// Several colour attachments: colors[i]'s level 0 as GL_COLOR_ATTACHMENTi_EXT, written by
  /// a fragment shader's gl_FragData[i] (GL_EXT_draw_buffers; glDrawBuffersEXT selects them
  /// all). The textures must outlive it. Readback (readRgba8) reads attachment 0 only: GLES2
  /// has no glReadBuffer, so read the others through a Framebuffer of their own.
  /// @throws GpuError if `colors` is empty, holds a null texture or textures of different
  ///         sizes, has more than caps.maxDrawBuffers textures, if the extension is not usable
  ///         with more than one, or if the framebuffer is not complete.
  Framebuffer(const Capabilities& caps, const std::vector<const Texture*>& colors);
  ~Framebuffer();
  Framebuffer(Framebuffer&& other) noexcept;
  Framebuffer& operator=(Framebuffer&& other) noexcept;
  Framebuffer(const Framebuffer&) = delete;
  Framebuffer& operator=(const Framebuffer&) = delete;

  /// Binds it as GL_FRAMEBUFFER.
  void bind() const;
  unsigned int id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }

  /// Reads `rect` back as RGBA8: rect.width × rect.height × 4 bytes, row rect.y first
  /// (glReadPixels with GL_RGBA / GL_UNSIGNED_BYTE, always supported by GLES2). For float
  /// attachments the values are clamped to [0, 1] and quantised, as GLES2 defines.
  /// Readback stalls the pipeline: read only what is needed (DESIGN.md).
  /// @throws GpuError if `rect` is not inside the framebuffer, or on a GL error.
  std::vector<std::uint8_t> readRgba8(const Rect& rect) const;
  /// The whole attachment.
  std::vector<std::uint8_t> readRgba8() const { return readRgba8({0, 0, width_, height_}); }
  /// The whole attachment into `pixels` (resized to width() × height() × 4 bytes; its capacity
  /// is reused, so a per-frame readback allocates nothing once the size is steady).
  /// @throws GpuError on a GL error.
  void readRgba8Into(std::vector<std::uint8_t>& pixels) const;

 private:
  void attach(const std::vector<const Texture*>& colors);
  /// glReadPixels of `rect` (inside the framebuffer: the callers check) into `pixels`
  /// (rect.width × rect.height × 4 bytes).
  void readInto(const Rect& rect, std::uint8_t* pixels) const;
  unsigned int id_ = 0;
  int width_ = 0;
  int height_ = 0;
};

}  // namespace nft::gpu
