#pragma once
// Reading a suite file (suite/suite_spec.h) with yaml-cpp: every error names the file and the
// line of the offending entry ("<file>:<line>: <entry>: <what was expected>"), typed values, and
// paths relative to the suite file.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

namespace nft::eval::suite {

/// 1-based line of `node` in its file (0 when it has none).
int lineOf(const YAML::Node& node);

/// Reads the entries of one suite file. Every method throws std::runtime_error
/// "<file>:<line>: <entry>: <message>" for what it refuses.
class SuiteReader {
 public:
  /// `file`: the suite file, absolute.
  explicit SuiteReader(std::string file);

  /// Throws the error "<file>:<line>: <entry>: <message>" (no ":<line>" for line 0).
  [[noreturn]] void fail(int line, const std::string& entry, const std::string& message) const;
  /// fail() at `node`'s line.
  [[noreturn]] void fail(const YAML::Node& node, const std::string& entry, const std::string& message) const;
  /// Refuses a key of `map` not in `allowed`, listing the allowed ones.
  void checkKeys(const YAML::Node& map, const std::string& entry, const std::vector<std::string>& allowed) const;
  /// Refuses a node that is not a map.
  void requireMap(const YAML::Node& node, const std::string& entry) const;
  /// A non-empty scalar's text.
  std::string string(const YAML::Node& node, const std::string& entry) const;
  /// An unquoted integer in [lo, hi].
  int integer(const YAML::Node& node, const std::string& entry, int lo, int hi) const;
  /// An unquoted true or false.
  bool boolean(const YAML::Node& node, const std::string& entry) const;
  /// `text` relative to the suite file's folder (or absolute), absolute and normalised.
  std::string resolve(const std::string& text) const;
  /// resolve() of a scalar, which must exist: a regular file, or also a folder where `folderOk`.
  std::string existingPath(const YAML::Node& node, const std::string& entry, bool folderOk) const;

  const std::string& file() const { return file_; }                 ///< the suite file
  const std::filesystem::path& folder() const { return folder_; }  ///< its folder

 private:
  std::string file_;
  std::filesystem::path folder_;
};

}  // namespace nft::eval::suite
