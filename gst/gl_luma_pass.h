#pragma once
// GlLumaPass: the luma of an RGBA texture computed on the GPU (OpenGL ES 2.0) and read back as a
// quarter of the RGBA bytes — nftgloverlay's alternative to reading the RGBA frame back and
// turning it grey on the CPU (property gpu-luma). A fragment shader packs the luma of 4
// consecutive pixels of a row into one RGBA texel of a ceil(width/4) × height render target;
// glReadPixels of that target is the GRAY8 frame, rows 4·ceil(width/4) bytes apart.
//
// The luma is OpenCV's RGBA→GRAY, bit for bit (cv::cvtColor COLOR_RGBA2GRAY on 8 bits:
// (9798·R + 19235·G + 3735·B + 2^14) >> 15, the Session's own conversion of an RGBA view), so the
// Session tracks the same bytes either way. Exact where the fragment shader has highp floats
// (GL_FRAGMENT_PRECISION_HIGH: the sums stay below 2^24); mediump-only GPUs may differ by a level.
//
// Every call needs the GL context current (GStreamer's GL thread); the GL objects are made at the
// first run and freed by release(), with the same context current.

#include <GLES2/gl2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nft::gst {

class GlLumaPass {
 public:
  /// Renders the luma of `texture` (GL_TEXTURE_2D, RGBA, `width` × `height`, row 0 at t = 0) and
  /// reads it into `gray` (resized to stride() · height bytes; pixel (x, y) at y·stride() + x).
  /// GL state it changes (framebuffer, program, array buffer, texture of unit 0, viewport, the
  /// vertex attribute it uses) is restored. @return false with `error` set on a GL error or a
  /// shader that does not compile or link.
  bool run(GLuint texture, int width, int height, std::vector<std::uint8_t>& gray, std::string& error);
  /// Bytes between rows of the last run's output: 4·ceil(width/4).
  int stride() const { return 4 * packedWidth_; }
  /// Frees the GL objects (context current). The next run makes them again.
  void release();

 private:
  bool ensureProgram(std::string& error);
  bool ensureTarget(int width, int height, std::string& error);

  GLuint program_ = 0, vertexBuffer_ = 0, target_ = 0, framebuffer_ = 0;
  GLint positionLoc_ = -1, textureLoc_ = -1, sizeLoc_ = -1;
  int packedWidth_ = 0, height_ = 0;
};

}  // namespace nft::gst
