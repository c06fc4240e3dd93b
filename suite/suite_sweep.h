#pragma once
// The configs of a suite file (suite/suite_spec.h): its `sweep:` — a grid of config keys ×
// values, or named configs (inline maps, config files, null) — over its `base_config`, each merged
// and validated by the config schema (config/config.h) with the suite file's line of the offending
// key or value.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "suite/suite_spec.h"
#include "suite/suite_yaml.h"

namespace nft::eval::suite {

/// The configs of `sweep` (the suite's `sweep:` node; null or missing: one config, "default") over
/// `baseConfig` (the `base_config:` node, a file path; missing: none), and the grid's keys in order
/// into `sweptKeys`. A relative camera.calibration is made absolute from the folder of the file
/// (or the suite) that names it. Two entries with the same effect are refused, naming both.
/// @throws std::runtime_error "<suite>:<line>: <entry>: <message>", for a config file's own error
///   "<suite>:<line>: <entry> '<file>': <file>:<line>: ..."; more than 10000 grid combinations.
std::vector<ConfigSpec> readSweep(const SuiteReader& r, const YAML::Node& baseConfig, const YAML::Node& sweep,
                                  std::vector<std::string>& sweptKeys);

}  // namespace nft::eval::suite
