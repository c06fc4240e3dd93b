#pragma once
// The small GL helpers of nftgloverlay's own passes (gl_luma_pass.h, gl_colour_background.h): a
// program from GLSL ES 1.00 sources and a full-screen triangle strip. The GL context current.

#include <GLES2/gl2.h>

#include <array>
#include <string>

namespace nft::gst {

/// Compiles and links `vertex` and `fragment` (GLSL ES 1.00); `what` names the pass in the error.
/// @return the program, or 0 with `error` set (the compiler's or linker's log).
GLuint linkProgram(const char* vertex, const char* fragment, const char* what, std::string& error);

/// The vertex shader of a full-screen pass: attribute a_position, clip coordinates.
extern const char* const kFullScreenVertexShader;

/// A buffer of the 4 vertices (x, y) of a triangle strip covering clip space.
GLuint makeFullScreenQuad();

/// A GL_TEXTURE_2D of `width` × `height` RGBA bytes, uninitialised, nearest filtering, clamped
/// (a render target read back or sampled texel for texel); left bound to the active unit.
GLuint makeRgbaTexture(int width, int height);

/// Draws that strip with `positionLoc` (the program in use), leaving the attribute as it was.
void drawFullScreenQuad(GLuint quad, GLint positionLoc);

/// The GL state a pass of ours changes — framebuffer, viewport, program, array buffer, active
/// texture unit and unit 0's 2D texture, blending, scissor and depth tests —, saved when made and
/// restored when it goes out of scope, so that GStreamer's and the Session's draws that follow
/// find theirs.
class SavedGlState {
 public:
  SavedGlState();
  ~SavedGlState();
  SavedGlState(const SavedGlState&) = delete;
  SavedGlState& operator=(const SavedGlState&) = delete;

 private:
  GLint framebuffer_ = 0, program_ = 0, arrayBuffer_ = 0, activeTexture_ = 0, texture_ = 0;
  std::array<GLint, 4> viewport_{};
  GLboolean blend_ = GL_FALSE, scissor_ = GL_FALSE, depth_ = GL_FALSE;
};

}  // namespace nft::gst
