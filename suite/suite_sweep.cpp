#include "suite/suite_sweep.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "config/config.h"
#include "suite/suite_files.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

/// Most configs one sweep may expand to (a grid's product): a typo such as a 1000-value list
/// should not silently start a million replays.
constexpr size_t kMaxConfigs = 10000;

/// The source name handed to nft::config::parseConfig, stripped from its messages again.
const char* const kConfigSource = "<suite-config>";

/// One layer of a config and where its keys were written.
struct Layer {
  YAML::Node node;                   ///< a map of config sections, or null
  fs::path folder;                   ///< relative camera.calibration paths are relative to it
  std::map<std::string, int> lines;  ///< dotted key path -> suite line (inline layers only)
};

/// Records the line of every key path under `node` (a map) into `lines`.
void recordLines(const YAML::Node& node, const std::string& prefix, std::map<std::string, int>& lines) {
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    const std::string path = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    lines[path] = lineOf(kv.first);
    recordLines(kv.second, path, lines);
  }
}

/// Overlays `top` onto `base` (both config maps): maps merge, anything else replaces.
void overlay(YAML::Node base, const YAML::Node& top) {
  if (!top.IsMap()) return;
  for (const auto& kv : top) {
    const std::string key = kv.first.Scalar();
    if (kv.second.IsMap() && base[key] && base[key].IsMap()) {
      overlay(base[key], kv.second);
    } else {
      base[key] = YAML::Clone(kv.second);
    }
  }
}

/// A relative camera.calibration in `layer` made absolute from the layer's folder: the replay
/// runs from another folder (and on other hosts).
void absolutizeCalibration(Layer& layer) {
  if (!layer.node.IsMap() || !layer.node["camera"] || !layer.node["camera"].IsMap()) return;
  YAML::Node calibration = layer.node["camera"]["calibration"];
  if (!calibration || !calibration.IsScalar() || calibration.Scalar().empty()) return;
  const fs::path p(calibration.Scalar());
  if (!p.is_absolute()) calibration = fs::absolute(layer.folder / p).lexically_normal().string();
}

/// A config file as a layer, after checking it alone (its errors name its own file and line).
Layer fileLayer(const SuiteReader& r, const YAML::Node& where, const std::string& entry, const std::string& path) {
  try {
    (void)nft::config::loadConfig(path);
  } catch (const std::exception& e) {
    r.fail(where, entry + " '" + path + "'", e.what());
  }
  Layer layer;
  layer.node = YAML::LoadFile(path);
  layer.folder = fs::path(path).parent_path();
  if (layer.node.IsNull()) layer.node = YAML::Node(YAML::NodeType::Map);
  absolutizeCalibration(layer);
  return layer;
}

/// "tracking.min_ncc = 1.5: expected ..." from parseConfig's "<source>:<line>: tracking.min_ncc ...".
std::string withoutSource(const std::string& message) {
  std::string rest = message;
  const std::string source = kConfigSource;
  if (rest.compare(0, source.size(), source) == 0) {
    rest = rest.substr(source.size());
    if (!rest.empty() && rest[0] == ':') {
      size_t i = 1;
      while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
      rest = rest.substr(i);
    }
    if (rest.compare(0, 2, ": ") == 0) rest = rest.substr(2);
  }
  return rest;
}

/// Emits `node` as YAML, quoted scalars (tag "!") quoted again: the schema refuses a quoted "3"
/// for a number, and yaml-cpp's emitter would drop the quotes.
void emit(YAML::Emitter& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (const auto& kv : node) {
        out << YAML::Key << kv.first.Scalar() << YAML::Value;
        emit(out, kv.second);
      }
      out << YAML::EndMap;
      break;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const auto& item : node) emit(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!") out << YAML::DoubleQuoted;
      out << node.Scalar();
      break;
    default:
      out << YAML::Null;
  }
}

/// Merges `layers` and validates the result through the config schema. Errors are placed on the
/// suite line of the offending key (a layer's recorded line), else on `fallbackLine`.
ConfigSpec makeConfig(const SuiteReader& r, const std::vector<Layer>& layers, const std::string& name, int fallbackLine,
                      const std::string& entry) {
  YAML::Node merged(YAML::NodeType::Map);
  for (const Layer& layer : layers) overlay(merged, layer.node);
  YAML::Emitter emitter;
  emit(emitter, merged);
  nft::config::Config config;
  try {
    config = nft::config::parseConfig(emitter.c_str(), kConfigSource);
  } catch (const nft::config::ConfigError& e) {
    std::string key = e.keyPath();
    if (const size_t bracket = key.find('['); bracket != std::string::npos) key = key.substr(0, bracket);
    int line = fallbackLine;
    for (auto it = layers.rbegin(); it != layers.rend(); ++it)
      if (const auto found = it->lines.find(key); found != it->lines.end()) {
        line = found->second;
        break;
      }
    r.fail(line, entry, withoutSource(e.what()));
  }
  ConfigSpec spec;
  spec.name = name;
  spec.yaml = nft::config::toYaml(config);
  spec.hash = stableHash(spec.yaml);
  spec.line = fallbackLine;
  return spec;
}

/// `key.path` split at the dots; each part non-empty.
std::vector<std::string> splitKey(const SuiteReader& r, const YAML::Node& where, const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (parts.back().empty())
      r.fail(where, "sweep.grid." + key, "expected a config key path such as tracking.min_ncc");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

/// Sets `value` at the dotted `parts` of `root` (a map), creating sections.
void setPath(YAML::Node root, const std::vector<std::string>& parts, const YAML::Node& value) {
  if (parts.size() == 1) {
    root[parts[0]] = YAML::Clone(value);
    return;
  }
  YAML::Node child = root[parts[0]];
  if (!child.IsMap()) {
    root[parts[0]] = YAML::Node(YAML::NodeType::Map);
    child = root[parts[0]];
  }
  setPath(child, std::vector<std::string>(parts.begin() + 1, parts.end()), value);
}

/// A value as the tables show it: a scalar as written, anything else in YAML flow style.
std::string valueText(const YAML::Node& value) {
  if (value.IsScalar()) return value.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << value;
  return e.c_str();
}

void readGrid(const SuiteReader& r, const YAML::Node& grid, const Layer& base, std::vector<ConfigSpec>& configs,
              std::vector<std::string>& sweptKeys) {
  r.requireMap(grid, "sweep.grid");
  if (grid.size() == 0) r.fail(grid, "sweep.grid", "expected at least one config key with its values");
  struct Axis {
    std::string key;
    std::vector<std::string> parts;
    std::vector<YAML::Node> values;
  };
  std::vector<Axis> axes;
  size_t combinations = 1;
  for (const auto& kv : grid) {
    Axis axis;
    axis.key = kv.first.Scalar();
    axis.parts = splitKey(r, kv.first, axis.key);
    if (kv.second.IsSequence()) {
      if (kv.second.size() == 0) r.fail(kv.second, "sweep.grid." + axis.key, "expected at least one value");
      for (const auto& v : kv.second) axis.values.push_back(v);
    } else {
      axis.values.push_back(kv.second);
    }
    combinations *= axis.values.size();
    if (combinations > kMaxConfigs)
      r.fail(grid, "sweep.grid", "more than " + std::to_string(kMaxConfigs) + " combinations");
    sweptKeys.push_back(axis.key);
    axes.push_back(std::move(axis));
  }
  std::vector<size_t> index(axes.size(), 0);
  for (size_t n = 0; n < combinations; ++n) {
    Layer layer;
    layer.node = YAML::Node(YAML::NodeType::Map);
    layer.folder = r.folder();
    std::string name;
    std::map<std::string, std::string> params;
    for (size_t a = 0; a < axes.size(); ++a) {
      const YAML::Node& value = axes[a].values[index[a]];
      setPath(layer.node, axes[a].parts, value);
      layer.lines[axes[a].key] = lineOf(value);
      params[axes[a].key] = valueText(value);
      name += (name.empty() ? "" : " ") + axes[a].key + "=" + valueText(value);
    }
    absolutizeCalibration(layer);
    ConfigSpec spec = makeConfig(r, {base, layer}, name, lineOf(grid), "sweep.grid");
    spec.params = params;
    configs.push_back(spec);
    for (size_t a = axes.size(); a-- > 0;) {  // odometer: the last key varies fastest
      if (++index[a] < axes[a].values.size()) break;
      index[a] = 0;
    }
  }
}

void readNamedConfigs(const SuiteReader& r, const YAML::Node& named, const Layer& base, std::vector<ConfigSpec>& configs) {
  r.requireMap(named, "sweep.configs");
  if (named.size() == 0) r.fail(named, "sweep.configs", "expected at least one named config");
  for (const auto& kv : named) {
    const std::string name = kv.first.Scalar();
    const std::string entry = "sweep.configs." + name;
    if (name.empty()) r.fail(kv.first, "sweep.configs", "a config needs a name");
    Layer layer;
    if (kv.second.IsNull()) {
      layer.node = YAML::Node(YAML::NodeType::Map);
      layer.folder = r.folder();
    } else if (kv.second.IsScalar()) {
      layer = fileLayer(r, kv.second, entry, r.existingPath(kv.second, entry, false));
    } else if (kv.second.IsMap()) {
      layer.node = YAML::Clone(kv.second);
      layer.folder = r.folder();
      recordLines(kv.second, "", layer.lines);
      absolutizeCalibration(layer);
    } else {
      r.fail(kv.second, entry, "expected a map of config sections, a config file, or null (the defaults)");
    }
    configs.push_back(makeConfig(r, {base, layer}, name, lineOf(kv.first), entry));
  }
}

}  // namespace

std::vector<ConfigSpec> readSweep(const SuiteReader& r, const YAML::Node& baseConfig, const YAML::Node& sweep,
                                  std::vector<std::string>& sweptKeys) {
  Layer base;
  base.node = YAML::Node(YAML::NodeType::Map);
  base.folder = r.folder();
  if (baseConfig) base = fileLayer(r, baseConfig, "base_config", r.existingPath(baseConfig, "base_config", false));

  std::vector<ConfigSpec> configs;
  if (sweep && !sweep.IsNull()) {
    r.requireMap(sweep, "sweep");
    r.checkKeys(sweep, "sweep", {"grid", "configs"});
    if (sweep["grid"] && sweep["configs"]) r.fail(sweep, "sweep", "give either 'grid' or 'configs', not both");
    if (sweep["grid"]) readGrid(r, sweep["grid"], base, configs, sweptKeys);
    else if (sweep["configs"]) readNamedConfigs(r, sweep["configs"], base, configs);
    else r.fail(sweep, "sweep", "expected 'grid' (config keys and their values) or 'configs' (named configs)");
  } else {
    configs.push_back(makeConfig(r, {base}, "default", 0, "config"));
  }
  // Two entries with the same effect would write the same pairs: refuse, naming both.
  for (size_t i = 0; i < configs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (configs[i].hash == configs[j].hash)
        r.fail(configs[i].line, "sweep",
               "config '" + configs[i].name + "' is the same configuration as '" + configs[j].name + "' (line " +
                   std::to_string(configs[j].line) + ")");
  return configs;
}

}  // namespace nft::eval::suite
