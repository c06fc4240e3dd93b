#pragma once
// ConfigError: what loadConfig(), parseConfig() and validate() (config/config.h) throw when a
// configuration cannot be used. The message is meant for the person who wrote the file:
//
//   c.yaml:12: tracking.min_ncc = 1.5: expected a number in [-1, 1]
//
// i.e. "<source>:<line>: <key path> = <value as written>: <what is allowed>", with ":<line>"
// left out where there is no line (a Config built in code, a file that cannot be read).

#include <stdexcept>
#include <string>
#include <utility>

namespace nft::config {

/// A configuration that cannot be read, parsed or validated. what() is the full message; the
/// parts are also available separately for programs that want to point at the spot.
class ConfigError : public std::runtime_error {
 public:
  /// `message` is the complete text what() returns; `source` the file name (or the sourceName
  /// given to parseConfig()), `line` the 1-based line of the offending key or value (0 when
  /// unknown), `keyPath` the dotted key path such as "tracking.min_ncc" ("" when the error is
  /// not about one key, e.g. malformed YAML or a missing file).
  ConfigError(const std::string& message, std::string source, int line, std::string keyPath)
      : std::runtime_error(message), source_(std::move(source)), line_(line), keyPath_(std::move(keyPath)) {}

  /// The file name or source name the error is in.
  const std::string& source() const noexcept { return source_; }
  /// 1-based line of the offending key or value; 0 when there is none.
  int line() const noexcept { return line_; }
  /// Dotted key path ("tracking.min_ncc", "render.cube_color[1]"), or "" when not about one key.
  const std::string& keyPath() const noexcept { return keyPath_; }

 private:
  std::string source_;
  int line_;
  std::string keyPath_;
};

}  // namespace nft::config
