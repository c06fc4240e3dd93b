#include "gst/gl_luma_pass.h"

#include "gst/gl_program.h"

namespace nft::gst {
namespace {

// Output texel (X, y) = the luma of input pixels 4X .. 4X+3 of row y (the last texel of a row
// repeats the row's last pixel where the width is not a multiple of 4). gl_FragCoord is at texel
// centres (X + 0.5, y + 0.5); the input is sampled at its texel centres, and each channel rounded
// back to its byte, so that the sum is OpenCV's integer one (exact in fp32: < 2^24).
constexpr const char* kFragmentShader = R"(
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
uniform sampler2D u_texture;
uniform vec2 u_size;  // the input's width and height, pixels
float luma(float x) {
  vec4 c = texture2D(u_texture, vec2((min(x, u_size.x - 1.0) + 0.5) / u_size.x, gl_FragCoord.y / u_size.y));
  vec3 bytes = floor(c.rgb * 255.0 + 0.5);
  return floor((dot(bytes, vec3(9798.0, 19235.0, 3735.0)) + 16384.0) / 32768.0) / 255.0;
}
void main() {
  float x = floor(gl_FragCoord.x) * 4.0;
  gl_FragColor = vec4(luma(x), luma(x + 1.0), luma(x + 2.0), luma(x + 3.0));
}
)";

}  // namespace

bool GlLumaPass::ensureProgram(std::string& error) {
  if (program_ != 0) return true;
  program_ = linkProgram(kFullScreenVertexShader, kFragmentShader, "luma", error);
  if (program_ == 0) return false;
  positionLoc_ = glGetAttribLocation(program_, "a_position");
  textureLoc_ = glGetUniformLocation(program_, "u_texture");
  sizeLoc_ = glGetUniformLocation(program_, "u_size");
  vertexBuffer_ = makeFullScreenQuad();
  return true;
}

bool GlLumaPass::ensureTarget(int width, int height, std::string& error) {
  const int packed = (width + 3) / 4;
  if (framebuffer_ != 0 && packed == packedWidth_ && height == height_) return true;
  if (target_ != 0) glDeleteTextures(1, &target_);
  if (framebuffer_ != 0) glDeleteFramebuffers(1, &framebuffer_);
  packedWidth_ = packed;
  height_ = height;
  target_ = makeRgbaTexture(packedWidth_, height_);
  glGenFramebuffers(1, &framebuffer_);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target_, 0);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    error = "the luma render target (" + std::to_string(packedWidth_) + "x" + std::to_string(height_) +
            " RGBA) is not a complete framebuffer";
    return false;
  }
  return true;
}

bool GlLumaPass::run(GLuint texture, int width, int height, std::vector<std::uint8_t>& gray, std::string& error) {
  SavedGlState saved;
  if (!ensureProgram(error) || !ensureTarget(width, height, error)) return false;
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glViewport(0, 0, packedWidth_, height_);
  glUseProgram(program_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture);
  glUniform1i(textureLoc_, 0);
  glUniform2f(sizeLoc_, static_cast<GLfloat>(width), static_cast<GLfloat>(height));
  glDisable(GL_BLEND);  // every texel written as computed (restored after)
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);
  drawFullScreenQuad(vertexBuffer_, positionLoc_);
  gray.resize(static_cast<size_t>(stride()) * static_cast<size_t>(height_));
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, packedWidth_, height_, GL_RGBA, GL_UNSIGNED_BYTE, gray.data());
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    error = "GL error " + std::to_string(e) + " in the luma pass";
    return false;
  }
  return true;
}

void GlLumaPass::release() {
  if (program_ != 0) glDeleteProgram(program_);
  if (vertexBuffer_ != 0) glDeleteBuffers(1, &vertexBuffer_);
  if (target_ != 0) glDeleteTextures(1, &target_);
  if (framebuffer_ != 0) glDeleteFramebuffers(1, &framebuffer_);
  program_ = vertexBuffer_ = target_ = framebuffer_ = 0;
  positionLoc_ = textureLoc_ = sizeLoc_ = -1;
  packedWidth_ = height_ = 0;
}

}  // namespace nft::gst
