#pragma once
// RAII 2D textures (MinGPU-ES's GpuArray, seeds/000 section 3.4): the inputs and outputs of
// every GPU pass.
//
// Layout convention of the whole gpu/ layer: texel (x, y) is column x of row y, row 0 is the
// first row uploaded and the first row read back; a pass writing to framebuffer pixel (x, y)
// writes texel (x, y). No vertical flip anywhere (window output flips in render/).

#include <cstdint>

namespace nft::gpu {

struct Capabilities;
class Framebuffer;
struct Rect;

/// Texel formats. Float formats need the probe's consent (Capabilities).
enum class TextureFormat {
  Luminance8,  ///< 1 byte per texel, sampled as (l, l, l, 1). Not renderable in GLES2.
  Rgb8,        ///< 3 bytes per texel (r, g, b), sampled with a = 1. Not renderable in GLES2.
  Rgba8,       ///< 4 bytes per texel (r, g, b, a). Always renderable.
  Rgba16F,     ///< 4 half floats per texel (OES_texture_half_float), upload as uint16 halves.
  Rgba32F,     ///< 4 floats per texel (OES_texture_float).
};

/// Bytes per texel of a format: 1, 3, 4, 8 or 16.
int bytesPerTexel(TextureFormat format);

/// Texture sampling filters (GL_TEXTURE_MIN_FILTER / GL_TEXTURE_MAG_FILTER values).
enum class Filter { Nearest, Linear, NearestMipmapNearest, LinearMipmapNearest, LinearMipmapLinear };

/// A GL_TEXTURE_2D with clamp-to-edge wrapping (the only wrap GLES2 allows for NPOT sizes).
/// Move-only; deletes the GL texture on destruction (its context must be current).
class Texture {
 public:
  /// Allocates a `width`×`height` texture; uploads `data` if not null (rows of
  /// width × bytesPerTexel(format) bytes, tightly packed, row 0 first; Rgba16F as uint16_t
  /// halves, Rgba32F as floats). Filters start as Nearest/Nearest.
  /// @throws GpuError if a side is not in [1, caps.maxTextureSize], if the format needs an
  ///         extension the probe did not allow, or if GL fails.
  Texture(const Capabilities& caps, int width, int height, TextureFormat format, const void* data = nullptr);
  ~Texture();
  Texture(Texture&& other) noexcept;
  Texture& operator=(Texture&& other) noexcept;
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;

  /// Replaces level 0 with `data` (same layout as the constructor's). @throws GpuError.
  void upload(const void* data);
  /// Replaces `region` of level 0 with `data`: region.width × region.height texels, rows
  /// tightly packed, first row first. @throws GpuError if the region is not inside.
  void upload(const void* data, const Rect& region);
  /// Sets the min and mag filters. Mipmap min filters need generateMipmap() first.
  /// @throws std::invalid_argument for a mipmap filter as mag filter, or a linear filter on a
  ///         float texture (OES_texture_float_linear is not probed: not GLES2 core).
  void setFilter(Filter min, Filter mag);
  /// Builds the mipmap chain from level 0 (glGenerateMipmap: each level a 2×2 box average of
  /// the one above, seeds/000 section 4.2). GLES2 core needs power-of-two sides.
  /// @throws GpuError for a non-power-of-two texture or a GL error.
  void generateMipmap();
  /// Number of levels of a full mipmap chain: floor(log2(max(width, height))) + 1.
  int mipLevelCount() const;
  /// Copies `sourceRect` of `source`'s colour attachment into level 0 at (x, y)
  /// (glCopyTexSubImage2D, core GLES2). `source` must not render into this texture.
  /// @throws GpuError if a rectangle is outside its texture or GL fails.
  void copyFrom(const Framebuffer& source, const Rect& sourceRect, int x, int y);

  unsigned int id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }
  TextureFormat format() const { return format_; }

 private:
  void bind() const;
  unsigned int id_ = 0;
  int width_ = 0;
  int height_ = 0;
  TextureFormat format_ = TextureFormat::Rgba8;
};

}  // namespace nft::gpu
