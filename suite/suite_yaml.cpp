#include "suite/suite_yaml.h"

#include <algorithm>
#include <stdexcept>

namespace nft::eval::suite {
namespace fs = std::filesystem;

int lineOf(const YAML::Node& node) { return node.Mark().is_null() ? 0 : node.Mark().line + 1; }

SuiteReader::SuiteReader(std::string file) : file_(std::move(file)), folder_(fs::path(file_).parent_path()) {}

void SuiteReader::fail(int line, const std::string& entry, const std::string& message) const {
  throw std::runtime_error(file_ + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + entry + ": " +
                           message);
}

void SuiteReader::fail(const YAML::Node& node, const std::string& entry, const std::string& message) const {
  fail(lineOf(node), entry, message);
}

void SuiteReader::checkKeys(const YAML::Node& map, const std::string& entry, const std::vector<std::string>& allowed) const {
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    fail(kv.first, entry.empty() ? key : entry + "." + key, "unknown key: expected one of " + list);
  }
}

void SuiteReader::requireMap(const YAML::Node& node, const std::string& entry) const {
  if (!node.IsMap()) fail(node, entry, "expected a map of keys");
}

std::string SuiteReader::string(const YAML::Node& node, const std::string& entry) const {
  if (!node.IsScalar() || node.Scalar().empty()) fail(node, entry, "expected a non-empty text");
  return node.Scalar();
}

int SuiteReader::integer(const YAML::Node& node, const std::string& entry, int lo, int hi) const {
  const std::string expected = "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  int value = 0;
  try {
    if (!node.IsScalar() || node.Tag() == "!") throw YAML::BadConversion(node.Mark());
    value = node.as<int>();
  } catch (const YAML::Exception&) {
    fail(node, entry, expected);
  }
  if (value < lo || value > hi) fail(node, entry + " = " + node.Scalar(), expected);
  return value;
}

bool SuiteReader::boolean(const YAML::Node& node, const std::string& entry) const {
  try {
    if (!node.IsScalar() || node.Tag() == "!") throw YAML::BadConversion(node.Mark());
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    fail(node, entry, "expected true or false");
  }
}

std::string SuiteReader::resolve(const std::string& text) const {
  const fs::path p(text);
  return (p.is_absolute() ? p : fs::absolute(folder_ / p)).lexically_normal().string();
}

std::string SuiteReader::existingPath(const YAML::Node& node, const std::string& entry, bool folderOk) const {
  const std::string path = resolve(string(node, entry));
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    fail(node, entry + " '" + path + "'", "no such file" + std::string(folderOk ? " or folder" : ""));
  if (!fs::is_regular_file(st) && !(folderOk && fs::is_directory(st)))
    fail(node, entry + " '" + path + "'", folderOk ? "expected a file or a folder of frames" : "expected a file");
  return path;
}

}  // namespace nft::eval::suite
