// The configuration schema as one table (schema()): for every key its YAML name, what it
// accepts, how it is read from a YAML node, checked and written back. parseConfig(), validate()
// and toYaml() all walk that table, so a key added there is parsed, checked and dumped alike.

#include "config/config.h"
#include "config/config_schema.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace nft::config {
namespace {

// --- Enum name tables ------------------------------------------------------------------------

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

constexpr EnumName<DescriptorType> kDescriptorTypes[] = {{DescriptorType::Surf64, "surf64"},
                                                         {DescriptorType::Surf36, "surf36"}};
constexpr EnumName<DescriptorOrientation> kOrientations[] = {
    {DescriptorOrientation::Oriented, "oriented"}, {DescriptorOrientation::Upright, "upright"}};
constexpr EnumName<DescriptorStorage> kStorages[] = {{DescriptorStorage::Auto, "auto"},
                                                     {DescriptorStorage::Rgba8, "rgba8"},
                                                     {DescriptorStorage::Float, "float"}};
constexpr EnumName<MatcherBackend> kBackends[] = {
    {MatcherBackend::Gpu, "gpu"}, {MatcherBackend::Cpu, "cpu"}, {MatcherBackend::Auto, "auto"}};
constexpr EnumName<DescriptorBackend> kDescriptorBackends[] = {
    {DescriptorBackend::Gpu, "gpu"}, {DescriptorBackend::Cpu, "cpu"}, {DescriptorBackend::Auto, "auto"}};
constexpr EnumName<RansacMethod> kRansacMethods[] = {{RansacMethod::Magsac, "magsac"},
                                                     {RansacMethod::Ransac, "ransac"},
                                                     {RansacMethod::UsacDefault, "usac_default"},
                                                     {RansacMethod::UsacAccurate, "usac_accurate"},
                                                     {RansacMethod::Lmeds, "lmeds"}};
constexpr EnumName<AsyncDetection> kAsyncDetections[] = {
    {AsyncDetection::Off, "off"}, {AsyncDetection::On, "on"}, {AsyncDetection::Auto, "auto"}};
constexpr EnumName<MotionModel> kMotionModels[] = {{MotionModel::ConstantVelocity, "constant_velocity"},
                                                   {MotionModel::None, "none"},
                                                   {MotionModel::ConstantAcceleration, "constant_acceleration"}};

template <class E, std::size_t N>
std::string_view nameOf(const EnumName<E> (&table)[N], E value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> valueOf(const EnumName<E> (&table)[N], std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

template <class E, std::size_t N>
std::string allNames(const EnumName<E> (&table)[N]) {
  std::string names;
  for (const auto& entry : table) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

// --- Text helpers ----------------------------------------------------------------------------

// Floating-point std::to_chars / std::from_chars: the web build's libc++ (emscripten 3.1.6) has
// only the integral ones, so there the same results come from printf / strtod (the web build's
// locale is always "C"), with the text checked first to be what from_chars accepts.
std::string shortestDecimal(double value) {
#ifdef __EMSCRIPTEN__
  char buffer[64];
  for (int digits = 1; digits <= 17; ++digits) {  // 17 significant digits always read back
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
#else
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
#endif
}

enum class ParsedDouble { Ok, OutOfRange, Invalid };

/// The whole of `text` as a decimal number (as std::from_chars in the general format reads it).
ParsedDouble parseDecimal(const std::string& text, double& value) {
  if (text.empty()) return ParsedDouble::Invalid;
#ifdef __EMSCRIPTEN__
  // from_chars takes an optional '-', digits with at most one '.', and an optional exponent;
  // strtod would also take leading blanks, '+', hexadecimal and inf/nan.
  size_t i = text[0] == '-' ? 1 : 0;
  size_t digits = 0;
  bool point = false;
  for (; i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && !point)); ++i) {
    if (text[i] == '.') point = true;
    else ++digits;
  }
  if (digits == 0) return ParsedDouble::Invalid;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '-' || text[j] == '+')) ++j;
    const size_t start = j;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j > start) i = j;
  }
  if (i != text.size()) return ParsedDouble::Invalid;
  errno = 0;
  value = std::strtod(text.c_str(), nullptr);
  return errno == ERANGE ? ParsedDouble::OutOfRange : ParsedDouble::Ok;
#else
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ptr != text.data() + text.size()) return ParsedDouble::Invalid;
  if (result.ec == std::errc::result_out_of_range) return ParsedDouble::OutOfRange;
  return result.ec == std::errc() ? ParsedDouble::Ok : ParsedDouble::Invalid;
#endif
}

// The fewest digits that read back as exactly `value` (std::to_chars' shortest form); with
// `decimal`, integral values keep a ".0" so that they read as numbers with a fraction.
std::string formatNumber(double value, bool decimal) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  std::string text = shortestDecimal(value);
  if (decimal && text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// A YAML double-quoted scalar: backslash, quote and control characters escaped.
std::string yamlQuoted(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool isQuoted(const YAML::Node& node) { return node.Tag() == "!"; }

// How a value appears in messages: a scalar as written (quoted ones in quotes, long ones cut),
// anything else by its kind.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "(empty)";
    case YAML::NodeType::Sequence:
      return "(a list)";
    case YAML::NodeType::Map:
      return "(a map)";
    case YAML::NodeType::Scalar: {
      std::string text = node.Scalar();
      if (text.size() > 60) text = text.substr(0, 57) + "...";
      return isQuoted(node) ? yamlQuoted(text) : text;
    }
    case YAML::NodeType::Undefined:
      break;
  }
  return "(undefined)";
}

int lineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? 0 : mark.line + 1;
}

// Counts the documents of a YAML text through yaml-cpp's event API, stopping at the second.
// YAML::LoadAll is not used: yaml-cpp 0.7 (Debian 12) never returns from it on some malformed
// texts — after a stray flow end (",a:\nb>3]\n") its parser reports empty documents forever,
// growing memory until the process dies (found by tests/fuzz/config_fuzzer.cpp).
class DocumentCounter : public YAML::EventHandler {
 public:
  int documents = 0;
  /// Where the second document's first node is (null when there is none).
  YAML::Mark secondNode = YAML::Mark::null_mark();

  void OnDocumentStart(const YAML::Mark&) override { ++documents; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { node(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (documents == 2 && secondNode.is_null()) secondNode = mark;
  }
};

// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// --- Errors ----------------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& source, int line, const std::string& keyPath,
                       const std::string& what) {
  std::string location = source;
  if (line > 0) location += ":" + std::to_string(line);
  throw ConfigError(location + ": " + what, source, line, keyPath);
}

// Where a value being read sits, for its error messages.
struct Where {
  const std::string& source;
  int line;
  std::string path;

  [[noreturn]] void badValue(const std::string& valueText, const std::string& expected) const {
    fail(source, line, path, path + " = " + valueText + ": expected " + expected);
  }
};

// --- Value rules -----------------------------------------------------------------------------

// Which numbers a key accepts: a predicate and its wording (" in [1, 32]", " > 0", ...).
struct Rule {
  std::function<bool(double)> ok;
  std::string text;
  std::string noun;  // replaces "an integer" / "a number" when set
};

Rule closed(double lo, double hi) {
  return {[=](double v) { return v >= lo && v <= hi; },
          " in [" + formatNumber(lo, false) + ", " + formatNumber(hi, false) + "]", ""};
}
Rule closedOpen(double lo, double hi) {
  return {[=](double v) { return v >= lo && v < hi; },
          " in [" + formatNumber(lo, false) + ", " + formatNumber(hi, false) + ")", ""};
}
Rule openClosed(double lo, double hi) {
  return {[=](double v) { return v > lo && v <= hi; },
          " in (" + formatNumber(lo, false) + ", " + formatNumber(hi, false) + "]", ""};
}
Rule open(double lo, double hi) {
  return {[=](double v) { return v > lo && v < hi; },
          " in (" + formatNumber(lo, false) + ", " + formatNumber(hi, false) + ")", ""};
}
Rule atLeast(double lo) {
  return {[=](double v) { return v >= lo; }, " >= " + formatNumber(lo, false), ""};
}
Rule above(double lo) {
  return {[=](double v) { return v > lo; }, " > " + formatNumber(lo, false), ""};
}

// --- Readers: one YAML node to one C++ value, or a ConfigError -----------------------------

long long readInteger(const YAML::Node& node, const Where& where, const std::string& expected) {
  if (!node.IsScalar() || isQuoted(node)) where.badValue(describe(node), expected);
  std::string text = node.Scalar();
  if (!text.empty() && text[0] == '+') text.erase(0, 1);
  long long value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size())
    where.badValue(describe(node), expected);
  return value;
}

double readNumber(const YAML::Node& node, const Where& where, const std::string& expected) {
  if (!node.IsScalar() || isQuoted(node)) where.badValue(describe(node), expected);
  std::string text = node.Scalar();
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  const bool yamlSpecial = lower == ".nan" || lower == ".inf" || lower == "+.inf" || lower == "-.inf";
  if (!text.empty() && text[0] == '+') text.erase(0, 1);
  double value = 0.0;
  const ParsedDouble result = parseDecimal(text, value);
  if (!yamlSpecial && result == ParsedDouble::Invalid) where.badValue(describe(node), expected);
  if (yamlSpecial || result != ParsedDouble::Ok || !std::isfinite(value))
    where.badValue(describe(node), expected + " (NaN and infinity are not allowed)");
  return value;
}

bool readBool(const YAML::Node& node, const Where& where, const std::string& expected) {
  if (node.IsScalar() && !isQuoted(node)) {
    const std::string& t = node.Scalar();
    if (t == "true" || t == "True" || t == "TRUE") return true;
    if (t == "false" || t == "False" || t == "FALSE") return false;
  }
  where.badValue(describe(node), expected);
}

std::string readString(const YAML::Node& node, const Where& where, const std::string& expected) {
  if (!node.IsScalar()) where.badValue(describe(node), expected);
  return node.Scalar();
}

// --- The schema table ------------------------------------------------------------------------

struct Field {
  std::string key;
  std::string expected;  // what the key accepts, as messages and toYaml() comments say it
  // Reads the node into the config; throws ConfigError for a wrong type or a bad value.
  std::function<void(Config&, const YAML::Node&, const Where&)> read;
  // Whether the config's value is allowed (the single-key rule; cross-field rules are apart).
  std::function<bool(const Config&)> valid;
  // The value as a YAML scalar (or flow list).
  std::function<std::string(const Config&)> text;
  // A cross-field rule involving the key, for toYaml()'s comment ("" if none).
  std::string crossRule;
};

struct Section {
  std::string key;
  std::vector<Field> fields;
};

template <class S, class T>
struct Member {
  S Config::*section;
  T S::*field;
  T& of(Config& c) const { return (c.*section).*field; }
  const T& of(const Config& c) const { return (c.*section).*field; }
};

template <class S>
Field intField(const char* key, S Config::*section, int S::*member, const Rule& rule) {
  const Member<S, int> m{section, member};
  const std::string expected = (rule.noun.empty() ? "an integer" : rule.noun) + rule.text;
  Field f;
  f.key = key;
  f.expected = expected;
  f.valid = [m, ok = rule.ok](const Config& c) { return ok(m.of(c)); };
  f.read = [m, ok = rule.ok, expected](Config& c, const YAML::Node& node, const Where& where) {
    const long long value = readInteger(node, where, expected);
    if (value < INT_MIN || value > INT_MAX || !ok(static_cast<double>(value)))
      where.badValue(describe(node), expected);
    m.of(c) = static_cast<int>(value);
  };
  f.text = [m](const Config& c) { return std::to_string(m.of(c)); };
  return f;
}

template <class S>
Field numberField(const char* key, S Config::*section, double S::*member, const Rule& rule) {
  const Member<S, double> m{section, member};
  const std::string expected = (rule.noun.empty() ? "a number" : rule.noun) + rule.text;
  Field f;
  f.key = key;
  f.expected = expected;
  f.valid = [m, ok = rule.ok](const Config& c) { return std::isfinite(m.of(c)) && ok(m.of(c)); };
  f.read = [m, ok = rule.ok, expected](Config& c, const YAML::Node& node, const Where& where) {
    const double value = readNumber(node, where, expected);
    if (!ok(value)) where.badValue(describe(node), expected);
    m.of(c) = value;
  };
  f.text = [m](const Config& c) { return formatNumber(m.of(c), true); };
  return f;
}

template <class S>
Field boolField(const char* key, S Config::*section, bool S::*member) {
  const Member<S, bool> m{section, member};
  Field f;
  f.key = key;
  f.expected = "true or false";
  f.valid = [](const Config&) { return true; };
  f.read = [m, expected = f.expected](Config& c, const YAML::Node& node, const Where& where) {
    m.of(c) = readBool(node, where, expected);
  };
  f.text = [m](const Config& c) { return std::string(m.of(c) ? "true" : "false"); };
  return f;
}

template <class S, class E, std::size_t N>
Field enumField(const char* key, S Config::*section, E S::*member, const EnumName<E> (&table)[N]) {
  const Member<S, E> m{section, member};
  Field f;
  f.key = key;
  f.expected = "one of " + allNames(table);
  f.valid = [m, &table](const Config& c) { return nameOf(table, m.of(c)) != "?"; };  // a listed value
  f.read = [m, &table, expected = f.expected](Config& c, const YAML::Node& node, const Where& where) {
    if (!node.IsScalar()) where.badValue(describe(node), expected);
    const auto value = valueOf(table, node.Scalar());
    if (!value) where.badValue(describe(node), expected);
    m.of(c) = *value;
  };
  f.text = [m, &table](const Config& c) { return std::string(nameOf(table, m.of(c))); };
  return f;
}

template <class S>
Field stringField(const char* key, S Config::*section, std::string S::*member, std::string expected,
                  std::function<bool(const std::string&)> ok) {
  const Member<S, std::string> m{section, member};
  Field f;
  f.key = key;
  f.expected = std::move(expected);
  f.valid = [m, ok](const Config& c) { return ok(m.of(c)); };
  f.read = [m, ok, expected = f.expected](Config& c, const YAML::Node& node, const Where& where) {
    std::string value = readString(node, where, expected);
    if (!ok(value)) where.badValue(describe(node), expected);
    m.of(c) = std::move(value);
  };
  f.text = [m](const Config& c) { return yamlQuoted(m.of(c)); };
  return f;
}

// A BGR colour: a list of exactly 3 numbers in [0, 255]; element errors name "key[i]".
template <class S>
Field colorField(const char* key, S Config::*section, std::array<double, 3> S::*member) {
  const Member<S, std::array<double, 3>> m{section, member};
  const std::string component = "a number in [0, 255]";
  Field f;
  f.key = key;
  f.expected = "a list of 3 numbers in [0, 255] ([B, G, R])";
  f.valid = [m](const Config& c) {
    return std::all_of(m.of(c).begin(), m.of(c).end(),
                       [](double v) { return std::isfinite(v) && v >= 0.0 && v <= 255.0; });
  };
  f.read = [m, component, expected = f.expected](Config& c, const YAML::Node& node, const Where& where) {
    if (!node.IsSequence() || node.size() != 3) where.badValue(describe(node), expected);
    std::array<double, 3> value{};
    for (std::size_t i = 0; i < 3; ++i) {
      const YAML::Node element = node[i];
      const int line = lineOf(element);
      const Where at{where.source, line > 0 ? line : where.line, where.path + "[" + std::to_string(i) + "]"};
      value[i] = readNumber(element, at, component);
      if (value[i] < 0.0 || value[i] > 255.0) at.badValue(describe(element), component);
    }
    m.of(c) = value;
  };
  f.text = [m](const Config& c) {
    const auto& v = m.of(c);
    return "[" + formatNumber(v[0], false) + ", " + formatNumber(v[1], false) + ", " +
           formatNumber(v[2], false) + "]";
  };
  return f;
}

const std::vector<Section>& schema() {
  static const std::vector<Section> sections = [] {
    const Rule precision{[](double v) { return v == 0.0 || (v >= 8.0 && v <= 23.0); },
                         ": 0 (the GPU's precision) or in [8, 23]", ""};
    Rule evenPatch = closed(4, 32);
    evenPatch.ok = [](double v) { return v >= 4.0 && v <= 32.0 && std::fmod(v, 2.0) == 0.0; };
    evenPatch.noun = "an even integer";
    const auto fourcc = [](const std::string& s) {
      return s.size() == 4 && std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    };
    const auto anyString = [](const std::string&) { return true; };
    const auto httpUrl = [](const std::string& s) {
      return s.empty() || (s.rfind("http://", 0) == 0 && s.size() > 7) || (s.rfind("https://", 0) == 0 && s.size() > 8);
    };

    std::vector<Section> s;
    s.push_back({"detector",
                 {intField("max_keypoints", &Config::detector, &DetectorConfig::maxKeypoints, closed(0, 65535)),
                  numberField("scale_factor", &Config::detector, &DetectorConfig::scaleFactor, openClosed(1, 4)),
                  intField("levels", &Config::detector, &DetectorConfig::levels, closed(1, 32)),
                  intField("threshold", &Config::detector, &DetectorConfig::threshold, closed(1, 255)),
                  intField("cell_size", &Config::detector, &DetectorConfig::cellSize, atLeast(0)),
                  numberField("base_scale", &Config::detector, &DetectorConfig::baseScale, above(0)),
                  numberField("target_keypoint_factor", &Config::detector, &DetectorConfig::targetKeypointFactor,
                              atLeast(0)),
                  numberField("first_pass_fraction", &Config::detector, &DetectorConfig::firstPassFraction,
                              openClosed(0, 1))}});
    s.push_back({"descriptor",
                 {enumField("type", &Config::descriptor, &DescriptorConfig::type, kDescriptorTypes),
                  enumField("orientation", &Config::descriptor, &DescriptorConfig::orientation, kOrientations),
                  enumField("storage", &Config::descriptor, &DescriptorConfig::storage, kStorages),
                  intField("precision_bits", &Config::descriptor, &DescriptorConfig::precisionBits, precision),
                  intField("box_taps", &Config::descriptor, &DescriptorConfig::boxTaps, closed(1, 2)),
                  enumField("backend", &Config::descriptor, &DescriptorConfig::backend, kDescriptorBackends)}});
    s.push_back({"matcher",
                 {enumField("backend", &Config::matcher, &MatcherConfig::backend, kBackends),
                  numberField("ratio", &Config::matcher, &MatcherConfig::ratio, openClosed(0, 1)),
                  boolField("cross_check", &Config::matcher, &MatcherConfig::crossCheck),
                  intField("shortlist", &Config::matcher, &MatcherConfig::shortlist, closed(1, 64))}});
    s.push_back({"ransac",
                 {enumField("method", &Config::ransac, &RansacConfig::method, kRansacMethods),
                  numberField("threshold_px", &Config::ransac, &RansacConfig::thresholdPx, above(0)),
                  intField("max_iterations", &Config::ransac, &RansacConfig::maxIterations, closed(1, 50000)),
                  numberField("confidence", &Config::ransac, &RansacConfig::confidence, open(0, 1)),
                  intField("min_inliers", &Config::ransac, &RansacConfig::minInliers, atLeast(4))}});
    s.push_back({"quad",
                 {numberField("min_area_fraction", &Config::quad, &QuadConfig::minAreaFraction, openClosed(0, 1)),
                  numberField("max_area_fraction", &Config::quad, &QuadConfig::maxAreaFraction, above(0)),
                  numberField("min_side_px", &Config::quad, &QuadConfig::minSidePx, atLeast(0)),
                  numberField("max_aspect_change", &Config::quad, &QuadConfig::maxAspectChange, atLeast(1)),
                  numberField("max_outside_fraction", &Config::quad, &QuadConfig::maxOutsideFraction,
                              atLeast(0))}});
    s.push_back({"tracking",
                 {boolField("enabled", &Config::tracking, &TrackingConfig::enabled),
                  intField("patch_size", &Config::tracking, &TrackingConfig::patchSize, evenPatch),
                  intField("max_patches", &Config::tracking, &TrackingConfig::maxPatches, closed(4, 1000)),
                  intField("coarse_radius_px", &Config::tracking, &TrackingConfig::coarseRadiusPx, closed(1, 32)),
                  intField("fine_radius_px", &Config::tracking, &TrackingConfig::fineRadiusPx, closed(1, 16)),
                  numberField("min_ncc", &Config::tracking, &TrackingConfig::minNcc, closed(-1, 1)),
                  intField("min_inliers", &Config::tracking, &TrackingConfig::minInliers, atLeast(4)),
                  numberField("ransac_threshold_px", &Config::tracking, &TrackingConfig::ransacThresholdPx,
                              above(0)),
                  numberField("max_corner_jump_px", &Config::tracking, &TrackingConfig::maxCornerJumpPx,
                              above(0)),
                  intField("redetect_every", &Config::tracking, &TrackingConfig::redetectEvery, atLeast(0)),
                  numberField("min_inlier_fraction", &Config::tracking, &TrackingConfig::minInlierFraction,
                              closed(0, 1)),
                  intField("retrack_lost_frames", &Config::tracking, &TrackingConfig::retrackLostFrames, atLeast(0)),
                  boolField("refine_detections", &Config::tracking, &TrackingConfig::refineDetections),
                  boolField("final_refinement", &Config::tracking, &TrackingConfig::finalRefinement),
                  intField("max_search_px", &Config::tracking, &TrackingConfig::maxSearchPx, closed(2, 256)),
                  intField("recovery_search_px", &Config::tracking, &TrackingConfig::recoverySearchPx,
                           closed(2, 256)),
                  numberField("search_speed_factor", &Config::tracking, &TrackingConfig::searchSpeedFactor,
                              atLeast(0)),
                  intField("coarse_patches", &Config::tracking, &TrackingConfig::coarsePatches, closed(4, 1000)),
                  numberField("blur_exposure", &Config::tracking, &TrackingConfig::blurExposure, closed(0, 1)),
                  numberField("min_inlier_spread", &Config::tracking, &TrackingConfig::minInlierSpread,
                              closed(0, 1)),
                  boolField("region_detection", &Config::tracking, &TrackingConfig::regionDetection),
                  numberField("region_margin", &Config::tracking, &TrackingConfig::regionMargin, atLeast(0)),
                  intField("region_search_frames", &Config::tracking, &TrackingConfig::regionSearchFrames, atLeast(0)),
                  intField("max_targets", &Config::tracking, &TrackingConfig::maxTargets, closed(1, 64)),
                  intField("search_every", &Config::tracking, &TrackingConfig::searchEvery, atLeast(0)),
                  enumField("async_detection", &Config::tracking, &TrackingConfig::asyncDetection, kAsyncDetections),
                  intField("async_delay_frames", &Config::tracking, &TrackingConfig::asyncDelayFrames, closed(0, 100)),
                  boolField("pose_filter", &Config::tracking, &TrackingConfig::poseFilter),
                  numberField("pose_filter_min_cutoff_hz", &Config::tracking, &TrackingConfig::poseFilterMinCutoffHz,
                              above(0)),
                  numberField("pose_filter_beta", &Config::tracking, &TrackingConfig::poseFilterBeta, atLeast(0))}});
    s.push_back({"motion", {enumField("model", &Config::motion, &MotionConfig::model, kMotionModels)}});
    s.push_back({"pose", {boolField("refine", &Config::pose, &PoseConfig::refine)}});
    s.push_back({"camera",
                 {stringField("calibration", &Config::camera, &CameraConfig::calibration,
                              "a string (path of an OpenCV calibration file, \"\" for none)", anyString),
                  numberField("hfov_deg", &Config::camera, &CameraConfig::hfovDeg, open(1, 179))}});
    s.push_back({"target",
                 {numberField("width_m", &Config::target, &TargetConfig::widthM, atLeast(0)),
                  intField("working_size", &Config::target, &TargetConfig::workingSize, closed(64, 4096)),
                  intField("max_tracking_patches", &Config::target, &TargetConfig::maxTrackingPatches,
                           closed(0, 5000)),
                  intField("min_size_px", &Config::target, &TargetConfig::minSizePx, closed(0, 4096)),
                  numberField("min_frame_fraction", &Config::target, &TargetConfig::minFrameFraction,
                              openClosed(0, 1)),
                  numberField("view_tilt_deg", &Config::target, &TargetConfig::viewTiltDeg, closedOpen(0, 80)),
                  numberField("view_turn_deg", &Config::target, &TargetConfig::viewTurnDeg, closed(0, 90))}});
    s.push_back({"render",
                 {boolField("enabled", &Config::render, &RenderConfig::enabled),
                  boolField("background", &Config::render, &RenderConfig::background),
                  boolField("axes", &Config::render, &RenderConfig::axes),
                  numberField("axis_length", &Config::render, &RenderConfig::axisLength, above(0)),
                  boolField("cube", &Config::render, &RenderConfig::cube),
                  numberField("cube_size", &Config::render, &RenderConfig::cubeSize, above(0)),
                  numberField("cube_height", &Config::render, &RenderConfig::cubeHeight, above(0)),
                  colorField("cube_color", &Config::render, &RenderConfig::cubeColor),
                  boolField("outline", &Config::render, &RenderConfig::outline),
                  boolField("overlay", &Config::render, &RenderConfig::overlay)}});
    s.push_back({"output",
                 {numberField("video_fps", &Config::output, &OutputConfig::videoFps, atLeast(0)),
                  stringField("codec", &Config::output, &OutputConfig::codec,
                              "a string of exactly 4 ASCII characters (a FOURCC such as mp4v or MJPG)",
                              fourcc)}});
    s.push_back({"recognition",
                 {stringField("url", &Config::recognition, &RecognitionConfig::url,
                              "a string: \"\" (no service) or a URL that starts with http:// or https://", httpUrl),
                  stringField("token_file", &Config::recognition, &RecognitionConfig::tokenFile,
                              "a string (path of a file holding the bearer token, \"\" for none)", anyString),
                  numberField("min_interval_s", &Config::recognition, &RecognitionConfig::minIntervalS, atLeast(0)),
                  numberField("timeout_s", &Config::recognition, &RecognitionConfig::timeoutS, above(0)),
                  stringField("models_dir", &Config::recognition, &RecognitionConfig::modelsDir,
                              "a string (path of a folder, \"\" for a temporary one)", anyString),
                  intField("jpeg_quality", &Config::recognition, &RecognitionConfig::jpegQuality, closed(10, 100))}});
    const auto field = [&s](const std::string& section, const std::string& key) -> Field& {
      for (auto& sec : s)
        for (auto& f : sec.fields)
          if (sec.key == section && f.key == key) return f;
      throw std::logic_error("config schema: no key " + section + "." + key);
    };
    field("quad", "max_area_fraction").crossRule = "; > min_area_fraction";
    field("tracking", "fine_radius_px").crossRule = "; <= 2 * coarse_radius_px";
    field("tracking", "max_search_px").crossRule = "; >= 2 * coarse_radius_px";
    field("tracking", "recovery_search_px").crossRule = "; >= max_search_px";
    return s;
  }();
  return sections;
}

const Section* findSection(const std::string& key) {
  for (const auto& section : schema())
    if (section.key == key) return &section;
  return nullptr;
}

const Field* findField(const Section& section, const std::string& key) {
  for (const auto& field : section.fields)
    if (field.key == key) return &field;
  return nullptr;
}

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

// "; did you mean 'min_ncc'?" for the closest of `known` within edit distance 2, else
// "; known <what>: a, b, c".
std::string suggestion(const std::string& key, const std::vector<std::string>& known, const std::string& what) {
  std::size_t best = 3;
  std::string closest;
  for (const auto& candidate : known) {
    const std::size_t d = editDistance(key, candidate);
    if (d < best) {
      best = d;
      closest = candidate;
    }
  }
  if (!closest.empty()) return "; did you mean '" + closest + "'?";
  return "; known " + what + ": " + joined(known);
}

// The cross-field rules. `lineOf(path)` gives the line where a key was set (0: not in the file).
void checkCrossFields(const Config& c, const std::string& source,
                      const std::function<int(const std::string&)>& lineOfKey) {
  // The line of whichever of the two keys the file sets last (the one that broke the rule).
  const auto lineFor = [&](const std::string& a, const std::string& b) {
    return std::max(lineOfKey(a), lineOfKey(b));
  };
  if (c.tracking.fineRadiusPx > 2 * c.tracking.coarseRadiusPx) {
    const std::string path = "tracking.fine_radius_px";
    fail(source, lineFor(path, "tracking.coarse_radius_px"), path,
         path + " = " + std::to_string(c.tracking.fineRadiusPx) +
             ": expected at most 2 * tracking.coarse_radius_px = " + std::to_string(2 * c.tracking.coarseRadiusPx) +
             " (the fine search cannot reach further than the coarse one)");
  }
  if (c.tracking.maxSearchPx < 2 * c.tracking.coarseRadiusPx) {
    const std::string path = "tracking.max_search_px";
    fail(source, lineFor(path, "tracking.coarse_radius_px"), path,
         path + " = " + std::to_string(c.tracking.maxSearchPx) +
             ": expected at least 2 * tracking.coarse_radius_px = " + std::to_string(2 * c.tracking.coarseRadiusPx) +
             " (the widest search cannot be narrower than the standard one)");
  }
  if (c.tracking.recoverySearchPx < c.tracking.maxSearchPx) {
    const std::string path = "tracking.recovery_search_px";
    fail(source, lineFor(path, "tracking.max_search_px"), path,
         path + " = " + std::to_string(c.tracking.recoverySearchPx) +
             ": expected at least tracking.max_search_px = " + std::to_string(c.tracking.maxSearchPx));
  }
  if (!(c.quad.maxAreaFraction > c.quad.minAreaFraction)) {
    const std::string path = "quad.max_area_fraction";
    fail(source, lineFor(path, "quad.min_area_fraction"), path,
         path + " = " + formatNumber(c.quad.maxAreaFraction, true) +
             ": expected a number > quad.min_area_fraction = " + formatNumber(c.quad.minAreaFraction, true));
  }
}

}  // namespace

// --- Enums -----------------------------------------------------------------------------------

std::string_view toString(DescriptorType value) { return nameOf(kDescriptorTypes, value); }
std::string_view toString(DescriptorOrientation value) { return nameOf(kOrientations, value); }
std::string_view toString(DescriptorStorage value) { return nameOf(kStorages, value); }
std::string_view toString(MatcherBackend value) { return nameOf(kBackends, value); }
std::string_view toString(DescriptorBackend value) { return nameOf(kDescriptorBackends, value); }
std::string_view toString(RansacMethod value) { return nameOf(kRansacMethods, value); }
std::string_view toString(MotionModel value) { return nameOf(kMotionModels, value); }
std::string_view toString(AsyncDetection value) { return nameOf(kAsyncDetections, value); }

std::optional<DescriptorType> parseDescriptorType(std::string_view name) { return valueOf(kDescriptorTypes, name); }
std::optional<DescriptorOrientation> parseDescriptorOrientation(std::string_view name) {
  return valueOf(kOrientations, name);
}
std::optional<DescriptorStorage> parseDescriptorStorage(std::string_view name) { return valueOf(kStorages, name); }
std::optional<MatcherBackend> parseMatcherBackend(std::string_view name) { return valueOf(kBackends, name); }
std::optional<DescriptorBackend> parseDescriptorBackend(std::string_view name) {
  return valueOf(kDescriptorBackends, name);
}
std::optional<RansacMethod> parseRansacMethod(std::string_view name) { return valueOf(kRansacMethods, name); }
std::optional<MotionModel> parseMotionModel(std::string_view name) { return valueOf(kMotionModels, name); }
std::optional<AsyncDetection> parseAsyncDetection(std::string_view name) { return valueOf(kAsyncDetections, name); }

// --- Config ----------------------------------------------------------------------------------

std::vector<SchemaKey> schemaKeys() {
  const Config defaults;
  std::vector<SchemaKey> keys;
  for (const auto& section : schema())
    for (const auto& field : section.fields) {
      std::string rule = field.crossRule;  // "; > min_area_fraction" as toYaml() appends it
      if (rule.rfind("; ", 0) == 0) rule.erase(0, 2);
      keys.push_back({section.key, field.key, field.expected, rule, field.text(defaults)});
    }
  return keys;
}

bool operator==(const Config& a, const Config& b) {
  // Every value has a canonical text (numbers in their shortest exact form), so equal texts
  // mean equal values; the table guarantees no field is forgotten.
  for (const auto& section : schema())
    for (const auto& field : section.fields)
      if (field.text(a) != field.text(b)) return false;
  return true;
}

bool operator!=(const Config& a, const Config& b) { return !(a == b); }

Config parseConfig(const std::string& yamlText, const std::string& sourceName) {
  DocumentCounter counter;
  YAML::Node root;
  try {
    std::istringstream in(yamlText);
    YAML::Parser parser(in);
    while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
    }
    if (counter.documents == 1) root = YAML::Load(yamlText);
  } catch (const YAML::Exception& e) {
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    std::string what = "malformed YAML: " + e.msg;
    if (!e.mark.is_null()) what += " (column " + std::to_string(e.mark.column + 1) + ")";
    fail(sourceName, line, "", what);
  }
  Config config;
  if (counter.documents == 0) return config;
  if (counter.documents > 1)
    fail(sourceName, counter.secondNode.is_null() ? 0 : counter.secondNode.line + 1, "",
         "a second YAML document begins here; a config file holds one document");
  if (root.IsNull()) return config;

  std::vector<std::string> sectionNames;
  for (const auto& section : schema()) sectionNames.push_back(section.key);
  if (!root.IsMap())
    fail(sourceName, lineOf(root), "",
         "the top level must be a map of sections (" + joined(sectionNames) + "), not " + describe(root));

  std::map<std::string, int> lines;  // key path -> line where the file sets it
  for (auto it = root.begin(); it != root.end(); ++it) {
    const YAML::Node keyNode = it->first;
    const YAML::Node value = it->second;
    const int keyLine = lineOf(keyNode);
    const std::string name = keyNode.IsScalar() ? keyNode.Scalar() : describe(keyNode);
    const Section* section = keyNode.IsScalar() ? findSection(name) : nullptr;
    if (section == nullptr)
      fail(sourceName, keyLine, name, name + ": unknown section" + suggestion(name, sectionNames, "sections"));
    if (const auto seen = lines.find(name); seen != lines.end())
      fail(sourceName, keyLine, name, name + ": duplicate section (first at line " +
                                          std::to_string(seen->second) + ")");
    lines[name] = keyLine;
    if (value.IsNull()) continue;  // a section whose keys are all commented out
    if (!value.IsMap())
      fail(sourceName, keyLine, name,
           name + " = " + describe(value) + ": expected a map of " + name + " keys (key: value lines)");

    std::vector<std::string> fieldNames;
    for (const auto& field : section->fields) fieldNames.push_back(field.key);
    for (auto entry = value.begin(); entry != value.end(); ++entry) {
      const YAML::Node fieldKey = entry->first;
      const int line = lineOf(fieldKey);
      const std::string key = fieldKey.IsScalar() ? fieldKey.Scalar() : describe(fieldKey);
      const std::string path = name + "." + key;
      const Field* field = fieldKey.IsScalar() ? findField(*section, key) : nullptr;
      if (field == nullptr) {
        std::string hint = suggestion(key, fieldNames, name + " keys");
        for (const auto& other : schema())
          if (&other != section && findField(other, key) != nullptr && hint.rfind("; did", 0) != 0)
            hint = "; '" + key + "' belongs to section '" + other.key + "'";
        fail(sourceName, line, path, path + ": unknown key" + hint);
      }
      if (const auto seen = lines.find(path); seen != lines.end())
        fail(sourceName, line, path, path + ": duplicate key (first at line " + std::to_string(seen->second) + ")");
      lines[path] = line;
      field->read(config, entry->second, Where{sourceName, line, path});
    }
  }
  checkCrossFields(config, sourceName, [&](const std::string& path) {
    const auto found = lines.find(path);
    return found == lines.end() ? 0 : found->second;
  });
  return config;
}

Config loadConfig(const std::string& path) {
  const auto cannotRead = [&](const std::string& reason) {
    throw ConfigError("cannot read config file '" + path + "': " + reason, path, 0, "");
  };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) cannotRead(ec.message());
  if (std::filesystem::is_directory(status)) cannotRead(std::generic_category().message(EISDIR));
  std::ifstream in(path, std::ios::binary);
  if (!in) cannotRead(std::generic_category().message(errno != 0 ? errno : EIO));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) cannotRead(std::generic_category().message(EIO));
  return parseConfig(text.str(), path);
}

void validate(const Config& config, const std::string& sourceName) {
  for (const auto& section : schema()) {
    for (const auto& field : section.fields) {
      if (!field.valid(config)) {
        const std::string path = section.key + "." + field.key;
        fail(sourceName, 0, path, path + " = " + field.text(config) + ": expected " + field.expected);
      }
    }
  }
  checkCrossFields(config, sourceName, [](const std::string&) { return 0; });
}

std::string toYaml(const Config& config) {
  std::string out =
      "# nft configuration: every key with its value (config/config.h documents each).\n";
  for (const auto& section : schema()) {
    out += "\n" + section.key + ":\n";
    std::vector<std::string> lines;
    std::size_t width = 0;
    for (const auto& field : section.fields) {
      lines.push_back("  " + field.key + ": " + field.text(config));
      width = std::max(width, lines.back().size());
    }
    for (std::size_t i = 0; i < lines.size(); ++i)
      out += lines[i] + std::string(width + 2 - lines[i].size(), ' ') + "# " + section.fields[i].expected +
             section.fields[i].crossRule + "\n";
  }
  return out;
}

}  // namespace nft::config
