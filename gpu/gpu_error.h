#pragma once
// Errors of the GPU layer and the helpers that turn GL/EGL error codes into them.

#include <stdexcept>
#include <string>

namespace nft::gpu {

/// Any failure of the GPU layer: no EGL display or context, an incomplete framebuffer, a GL
/// error after a call, an unsupported texture format. The message names what was attempted.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A shader that does not compile or a program that does not link. what() names the program,
/// the stage, the source piece and line the driver complained about, the driver's log and the
/// offending source line.
class ShaderError : public GpuError {
 public:
  /// @param message   the full message (what()).
  /// @param piece     name of the ShaderSource the first error points into ("" if unknown).
  /// @param line      1-based line inside that piece (0 if the driver gave none).
  ShaderError(const std::string& message, std::string piece, int line)
      : GpuError(message), piece_(std::move(piece)), line_(line) {}
  /// Name of the source piece holding the first reported error, e.g. "gpu/float_codec.glsl".
  const std::string& piece() const { return piece_; }
  /// 1-based line of the first reported error inside piece(); 0 when the log had no line.
  int line() const { return line_; }

 private:
  std::string piece_;
  int line_;
};

/// Name of a GL error code, e.g. "GL_INVALID_OPERATION"; "0x…" for unknown codes.
std::string glErrorName(unsigned int code);

/// Name of an EGL error code, e.g. "EGL_BAD_MATCH"; "0x…" for unknown codes.
std::string eglErrorName(int code);

/// Throws GpuError("<what>: GL_…") if glGetError() reports an error; drains all pending
/// errors so the next check starts clean. Call after a group of GL calls, not after each.
void checkGl(const char* what);

}  // namespace nft::gpu
