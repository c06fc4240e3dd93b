#pragma once
// The configuration schema as data, for tools that list or document the keys: the table that
// parseConfig(), validate() and toYaml() walk (config.cpp), one row per key. Not installed:
// docs/config_reference.cpp writes the configuration reference (docs/configuration.md) from it.

#include <string>
#include <vector>

namespace nft::config {

/// One key of the schema, as the YAML file names it.
struct SchemaKey {
  std::string section;       ///< The section, e.g. "tracking".
  std::string key;           ///< The key in the section, e.g. "min_ncc".
  std::string accepts;       ///< What the key accepts, as error messages say it: "a number in [-1, 1]".
  std::string crossRule;     ///< A rule the value must keep with other keys, e.g. "<= 2 * coarse_radius_px"; "" if none.
  std::string defaultValue;  ///< The default as YAML text (toYaml() of a default Config), e.g. "0.7".
};

/// Every key of the schema, in schema order (sections and keys as toYaml() writes them).
std::vector<SchemaKey> schemaKeys();

}  // namespace nft::config
