#include "gpu/gpu_timer.h"

#define EGL_NO_X11
#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpu/capabilities.h"

namespace nft::gpu {

namespace {
// GL_EXT_disjoint_timer_query entry points, resolved once through EGL (they are not part of
// the GLES 2.0 core library's exports).
struct TimerQueryApi {
  PFNGLGENQUERIESEXTPROC genQueries = nullptr;
  PFNGLDELETEQUERIESEXTPROC deleteQueries = nullptr;
  PFNGLBEGINQUERYEXTPROC beginQuery = nullptr;
  PFNGLENDQUERYEXTPROC endQuery = nullptr;
  PFNGLGETQUERYOBJECTUIVEXTPROC getObjectuiv = nullptr;
  PFNGLGETQUERYOBJECTUI64VEXTPROC getObjectui64v = nullptr;
  bool complete() const {
    return genQueries && deleteQueries && beginQuery && endQuery && getObjectuiv && getObjectui64v;
  }
};

const TimerQueryApi& timerQueryApi() {
  static const TimerQueryApi api = [] {
    TimerQueryApi a;
    a.genQueries = reinterpret_cast<PFNGLGENQUERIESEXTPROC>(eglGetProcAddress("glGenQueriesEXT"));
    a.deleteQueries = reinterpret_cast<PFNGLDELETEQUERIESEXTPROC>(eglGetProcAddress("glDeleteQueriesEXT"));
    a.beginQuery = reinterpret_cast<PFNGLBEGINQUERYEXTPROC>(eglGetProcAddress("glBeginQueryEXT"));
    a.endQuery = reinterpret_cast<PFNGLENDQUERYEXTPROC>(eglGetProcAddress("glEndQueryEXT"));
    a.getObjectuiv = reinterpret_cast<PFNGLGETQUERYOBJECTUIVEXTPROC>(eglGetProcAddress("glGetQueryObjectuivEXT"));
    a.getObjectui64v =
        reinterpret_cast<PFNGLGETQUERYOBJECTUI64VEXTPROC>(eglGetProcAddress("glGetQueryObjectui64vEXT"));
    return a;
  }();
  return api;
}
}  // namespace

GpuTimer::GpuTimer(const Capabilities& caps) {
  if (caps.has(Extension::ExtDisjointTimerQuery) && !caps.softwareRenderer && timerQueryApi().complete()) {
    debugAssertExtension(caps, Extension::ExtDisjointTimerQuery, "GpuTimer");  // every query call needs query_
    timerQueryApi().genQueries(1, &query_);
  }
}

GpuTimer::~GpuTimer() {
  if (query_ != 0) timerQueryApi().deleteQueries(1, &query_);
}

std::string_view GpuTimer::method() const {
  return query_ != 0 ? "GL_EXT_disjoint_timer_query" : "glFinish + steady_clock";
}

void GpuTimer::begin() {
  if (query_ != 0) {
    GLint disjoint = 0;
    glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);  // reading clears the flag
    timerQueryApi().beginQuery(GL_TIME_ELAPSED_EXT, query_);
  } else {
    glFinish();
  }
  start_ = std::chrono::steady_clock::now();
  running_ = true;
}

double GpuTimer::endMs() {
  if (!running_) throw std::logic_error("GpuTimer::endMs() called without begin()");
  running_ = false;
  auto wallMs = [this] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  };
  if (query_ == 0) {
    glFinish();
    return wallMs();
  }
  const TimerQueryApi& api = timerQueryApi();
  api.endQuery(GL_TIME_ELAPSED_EXT);
  GLuint available = GL_FALSE;
  while (available == GL_FALSE) {
    glFlush();
    api.getObjectuiv(query_, GL_QUERY_RESULT_AVAILABLE_EXT, &available);
  }
  GLuint64 ns = 0;
  api.getObjectui64v(query_, GL_QUERY_RESULT_EXT, &ns);
  GLint disjoint = 0;
  glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
  const double ms = static_cast<double>(ns) * 1e-6;
  // Some drivers return a raw timestamp for the first query of a context: impossible values.
  if (disjoint || ms > wallMs()) return std::numeric_limits<double>::quiet_NaN();
  return ms;
}

}  // namespace nft::gpu
