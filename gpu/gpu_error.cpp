#include "gpu/gpu_error.h"

#include <EGL/egl.h>
#include <GLES2/gl2.h>

#include <cstdio>

namespace nft::gpu {

namespace {
std::string hex(unsigned int code) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04X", code);
  return buf;
}
}  // namespace

std::string glErrorName(unsigned int code) {
  switch (code) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return hex(code);
  }
}

std::string eglErrorName(int code) {
  switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return hex(static_cast<unsigned int>(code));
  }
}

void checkGl(const char* what) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  // Drain: GL may queue one error per flag; leaving them would blame the next caller.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  throw GpuError(std::string(what) + ": " + glErrorName(first));
}

}  // namespace nft::gpu
