#pragma once
// GlColourBackground: with gpu-luma, the Session tracks (and so draws as its background) the grey
// frame; this puts the input's colour back. Session::render draws into an offscreen target of ours
// (RGBA + depth, for the cube), and a composite pass writes, into the framebuffer GStreamer has
// bound for the output texture, the input's colour where the rendered picture is the input's grey
// (the background: within 2 levels, the background's own rounding) and the rendered picture
// elsewhere (the augmentations). The same picture as the RGBA path's but for augmentation pixels
// that are exactly the grey of the pixel under them (a grey-on-grey status text, say): those
// show the input's colour.
//
// Every call needs the GL context current; release() with the same context current.

#include <GLES2/gl2.h>

#include <string>

namespace nft::gst {

class GlColourBackground {
 public:
  /// Binds the offscreen target, `width` × `height`, for Session::render (made or resized here).
  /// @return false with `error` set when it is not a complete framebuffer.
  bool bindTarget(int width, int height, std::string& error);
  /// Into the framebuffer bound and its viewport (the output, the frame's size): the composite
  /// of the last rendered target and `inputTexture` (GL_TEXTURE_2D RGBA, the frame's size).
  /// Restores the GL state it changes. @return false with `error` set on a GL or shader error.
  bool composite(GLuint inputTexture, std::string& error);
  /// Frees the GL objects (context current).
  void release();

 private:
  GLuint program_ = 0, quad_ = 0, texture_ = 0, depth_ = 0, framebuffer_ = 0;
  GLint positionLoc_ = -1, renderedLoc_ = -1, inputLoc_ = -1, sizeLoc_ = -1;
  int width_ = 0, height_ = 0;
};

}  // namespace nft::gst
