#include "gst/gl_program.h"

#include <array>

namespace nft::gst {
namespace {

GLuint compile(GLenum type, const char* source, const char* what, std::string& error) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    std::array<char, 1024> log{};
    glGetShaderInfoLog(shader, static_cast<GLsizei>(log.size()), nullptr, log.data());
    error = std::string("the ") + what + " shader does not compile: " + log.data();
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

}  // namespace

const char* const kFullScreenVertexShader = R"(
attribute vec2 a_position;
void main() { gl_Position = vec4(a_position, 0.0, 1.0); }
)";

GLuint linkProgram(const char* vertex, const char* fragment, const char* what, std::string& error) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex, what, error);
  if (vs == 0) return 0;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fragment, what, error);
  if (fs == 0) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    std::array<char, 1024> log{};
    glGetProgramInfoLog(program, static_cast<GLsizei>(log.size()), nullptr, log.data());
    error = std::string("the ") + what + " shaders do not link: " + log.data();
    glDeleteProgram(program);
    program = 0;
  }
  return program;
}

GLuint makeFullScreenQuad() {
  static const GLfloat kQuad[8] = {-1.f, -1.f, 1.f, -1.f, -1.f, 1.f, 1.f, 1.f};
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, sizeof(kQuad), kQuad, GL_STATIC_DRAW);
  return buffer;
}

GLuint makeRgbaTexture(int width, int height) {
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  return texture;
}

void drawFullScreenQuad(GLuint quad, GLint positionLoc) {
  const auto position = static_cast<GLuint>(positionLoc);
  glBindBuffer(GL_ARRAY_BUFFER, quad);
  GLint wasEnabled = GL_FALSE;
  glGetVertexAttribiv(position, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &wasEnabled);
  glEnableVertexAttribArray(position);
  glVertexAttribPointer(position, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  if (wasEnabled != GL_TRUE) glDisableVertexAttribArray(position);
}

SavedGlState::SavedGlState() {
  blend_ = glIsEnabled(GL_BLEND);
  scissor_ = glIsEnabled(GL_SCISSOR_TEST);
  depth_ = glIsEnabled(GL_DEPTH_TEST);
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_);
  glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &arrayBuffer_);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &activeTexture_);
  glActiveTexture(GL_TEXTURE0);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture_);
  glGetIntegerv(GL_VIEWPORT, viewport_.data());
}

SavedGlState::~SavedGlState() {
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_));
  glUseProgram(static_cast<GLuint>(program_));
  glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(arrayBuffer_));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture_));
  glActiveTexture(static_cast<GLenum>(activeTexture_));
  glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  if (blend_ == GL_TRUE) glEnable(GL_BLEND); else glDisable(GL_BLEND);
  if (scissor_ == GL_TRUE) glEnable(GL_SCISSOR_TEST); else glDisable(GL_SCISSOR_TEST);
  if (depth_ == GL_TRUE) glEnable(GL_DEPTH_TEST); else glDisable(GL_DEPTH_TEST);
}

}  // namespace nft::gst
