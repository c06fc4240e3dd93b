#include "gst/gl_colour_background.h"

#include "gst/gl_program.h"

namespace nft::gst {
namespace {

// The input's grey as gl_luma_pass.cpp computes it (OpenCV's RGBA→GRAY); where the rendered pixel
// is that grey (R = G = B = Y within 2 levels), the input's colour.
constexpr const char* kCompositeShader = R"(
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
uniform sampler2D u_rendered;
uniform sampler2D u_input;
uniform vec2 u_size;  // the frame's width and height, pixels
void main() {
  vec2 uv = gl_FragCoord.xy / u_size;
  vec4 c = texture2D(u_input, uv);
  vec4 r = texture2D(u_rendered, uv);
  vec3 bytes = floor(c.rgb * 255.0 + 0.5);
  float y = floor((dot(bytes, vec3(9798.0, 19235.0, 3735.0)) + 16384.0) / 32768.0) / 255.0;
  vec3 d = abs(r.rgb - vec3(y));
  gl_FragColor = max(max(d.r, d.g), d.b) <= 2.5 / 255.0 ? vec4(c.rgb, 1.0) : vec4(r.rgb, 1.0);
}
)";

}  // namespace

bool GlColourBackground::bindTarget(int width, int height, std::string& error) {
  if (framebuffer_ == 0 || width != width_ || height != height_) {
    if (texture_ != 0) glDeleteTextures(1, &texture_);
    if (depth_ != 0) glDeleteRenderbuffers(1, &depth_);
    if (framebuffer_ != 0) glDeleteFramebuffers(1, &framebuffer_);
    width_ = width;
    height_ = height;
    texture_ = makeRgbaTexture(width_, height_);
    glGenRenderbuffers(1, &depth_);
    glBindRenderbuffer(GL_RENDERBUFFER, depth_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, width_, height_);
    glGenFramebuffers(1, &framebuffer_);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      error = "the render target (" + std::to_string(width_) + "x" + std::to_string(height_) +
              " RGBA + depth) is not a complete framebuffer";
      return false;
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  return true;
}

bool GlColourBackground::composite(GLuint inputTexture, std::string& error) {
  SavedGlState saved;
  if (program_ == 0) {
    program_ = linkProgram(kFullScreenVertexShader, kCompositeShader, "colour background", error);
    if (program_ == 0) return false;
    positionLoc_ = glGetAttribLocation(program_, "a_position");
    renderedLoc_ = glGetUniformLocation(program_, "u_rendered");
    inputLoc_ = glGetUniformLocation(program_, "u_input");
    sizeLoc_ = glGetUniformLocation(program_, "u_size");
    quad_ = makeFullScreenQuad();
  }
  glUseProgram(program_);
  glActiveTexture(GL_TEXTURE1);
  const GLint previousUnit1 = [] {
    GLint t = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &t);
    return t;
  }();
  glBindTexture(GL_TEXTURE_2D, inputTexture);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glUniform1i(renderedLoc_, 0);
  glUniform1i(inputLoc_, 1);
  glUniform2f(sizeLoc_, static_cast<GLfloat>(width_), static_cast<GLfloat>(height_));
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);
  drawFullScreenQuad(quad_, positionLoc_);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previousUnit1));
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    error = "GL error " + std::to_string(e) + " in the colour background pass";
    return false;
  }
  return true;
}

void GlColourBackground::release() {
  if (program_ != 0) glDeleteProgram(program_);
  if (quad_ != 0) glDeleteBuffers(1, &quad_);
  if (texture_ != 0) glDeleteTextures(1, &texture_);
  if (depth_ != 0) glDeleteRenderbuffers(1, &depth_);
  if (framebuffer_ != 0) glDeleteFramebuffers(1, &framebuffer_);
  program_ = quad_ = texture_ = depth_ = framebuffer_ = 0;
  positionLoc_ = renderedLoc_ = inputLoc_ = sizeLoc_ = -1;
  width_ = height_ = 0;
}

}  // namespace nft::gst
