#pragma once
// The exceptions of the public API (nft::Session and the types of include/nft/): one hierarchy,
// so an app can catch nft::Error for everything the library reports. Every message names the
// argument, key, file or value at fault and what was expected, e.g.
//
//   process: image view stride 600 is smaller than a row of 640 GRAY8 pixels (640 bytes)
//   tracking.min_ncc = 1.5: expected a number in [-1, 1] (c.yaml:12)
//
// A call that throws leaves the Session as it was before the call: the next good call works.

#include <stdexcept>
#include <string>
#include <utility>

namespace nft {

/// Base of every exception the library throws on purpose (std::bad_alloc and the like pass
/// through unchanged).
class Error : public std::runtime_error {
 public:
  /// `message` is what what() returns.
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// A configuration that cannot be read, parsed, validated or run by the pipeline: a YAML file
/// (see config/config.h for every key), a camera calibration file, or settings the pipeline
/// cannot honour. The parts of the message are also available for tools that point at the spot.
class ConfigError : public Error {
 public:
  /// `source`: the file (or "<config>" for a Config built in code); `line`: 1-based line of the
  /// offending key, 0 when unknown; `keyPath`: dotted key such as "tracking.min_ncc", "" when the
  /// error is not about one key.
  ConfigError(const std::string& message, std::string source = {}, int line = 0, std::string keyPath = {})
      : Error(message), source_(std::move(source)), line_(line), keyPath_(std::move(keyPath)) {}
  /// The file or source name the error is in ("" when not about a file).
  const std::string& source() const noexcept { return source_; }
  /// 1-based line of the offending key or value; 0 when unknown.
  int line() const noexcept { return line_; }
  /// Dotted key path, or "" when the error is not about one key.
  const std::string& keyPath() const noexcept { return keyPath_; }

 private:
  std::string source_;
  int line_;
  std::string keyPath_;
};

/// A bad argument: a frame or image view (size, type, stride, pointer, pixel format), a target
/// (missing or unreadable file, an image too plain to track, a corrupt model), an unknown or
/// removed target id, a call the Session's state does not allow yet (e.g. projectionMatrix()
/// before the camera is known).
class InputError : public Error {
 public:
  /// `message` is what what() returns.
  explicit InputError(const std::string& message) : Error(message) {}
};

/// The GPU side failed: no EGL display or OpenGL ES 2.0 context, a shader that does not compile
/// on this driver, a GL error, a texture larger than the GPU allows, or a call made from another
/// thread than the one whose GL context the Session uses.
class GpuError : public Error {
 public:
  /// `message` is what what() returns.
  explicit GpuError(const std::string& message) : Error(message) {}
};

}  // namespace nft
