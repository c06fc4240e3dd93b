#pragma once
// SavedGlState: the GL state nftgloverlay's own passes (gl_luma_pass.h, gl_colour_background.h)
// and the Session's render into our target change, saved and put back for GStreamer, whose draws
// that follow expect theirs. (session.cpp keeps only the caller's framebuffer and viewport; the
// gpu/ passes set what they need and restore nothing.) The GL context current.

#include <GLES2/gl2.h>

#include <array>

namespace nft::gst {

/// The GL state a pass of ours changes — framebuffer, viewport, program, array buffer, active
/// texture unit and the 2D textures of units 0 and 1, blending, scissor and depth tests —, saved
/// when made and restored when it goes out of scope (also when an exception leaves the scope).
class SavedGlState {
 public:
  SavedGlState();
  ~SavedGlState();
  SavedGlState(const SavedGlState&) = delete;
  SavedGlState& operator=(const SavedGlState&) = delete;

 private:
  GLint framebuffer_ = 0, program_ = 0, arrayBuffer_ = 0, activeTexture_ = 0;
  std::array<GLint, 2> textures_{};  // GL_TEXTURE_BINDING_2D of units 0 and 1
  std::array<GLint, 4> viewport_{};
  GLboolean blend_ = GL_FALSE, scissor_ = GL_FALSE, depth_ = GL_FALSE;
};

}  // namespace nft::gst
