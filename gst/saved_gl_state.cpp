#include "gst/saved_gl_state.h"

namespace nft::gst {

SavedGlState::SavedGlState() {
  blend_ = glIsEnabled(GL_BLEND);
  scissor_ = glIsEnabled(GL_SCISSOR_TEST);
  depth_ = glIsEnabled(GL_DEPTH_TEST);
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_);
  glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &arrayBuffer_);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &activeTexture_);
  glActiveTexture(GL_TEXTURE1);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures_[1]);
  glActiveTexture(GL_TEXTURE0);  // left selected: textures made in the scope bind to unit 0
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures_[0]);
  glGetIntegerv(GL_VIEWPORT, viewport_.data());
}

SavedGlState::~SavedGlState() {
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_));
  // The app may have deleted its program while it was current: GL kept it until ours replaced
  // it, and its name is gone now (glUseProgram would raise GL_INVALID_VALUE). Then none is bound.
  glUseProgram(program_ != 0 && glIsProgram(static_cast<GLuint>(program_)) ? static_cast<GLuint>(program_) : 0);
  glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(arrayBuffer_));
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(textures_[1]));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(textures_[0]));
  glActiveTexture(static_cast<GLenum>(activeTexture_));
  glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  if (blend_ == GL_TRUE) glEnable(GL_BLEND); else glDisable(GL_BLEND);
  if (scissor_ == GL_TRUE) glEnable(GL_SCISSOR_TEST); else glDisable(GL_SCISSOR_TEST);
  if (depth_ == GL_TRUE) glEnable(GL_DEPTH_TEST); else glDisable(GL_DEPTH_TEST);
}

}  // namespace nft::gst
