// nft_config_reference: writes the configuration reference (docs/configuration.md) on stdout from
// the one schema the library parses, checks and dumps configurations with (config/config.cpp,
// nft::config::schemaKeys(): every key, what it accepts, its cross-field rule and default) and
// the descriptions of config/config.h (each key's `/// \`key\`: ...` comment). It fails, naming
// the key, when the two disagree: a key of the schema without a description or the other way
// round, or a description whose "Default ..." is not the schema's default. The test
// docs.configuration_reference compares its output with docs/configuration.md, so the page
// cannot drift from the schema either (cmake --build <build> --target nft_config_reference_update
// rewrites the page).
//
//   nft_config_reference CONFIG_H > docs/configuration.md
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_schema.h"

namespace {

struct SectionText {
  std::string structName;           // "TrackingConfig"
  std::string intro;                // the struct's own comment
  std::map<std::string, std::string> keys;  // key -> its description
  std::vector<std::string> order;   // keys in the header's order
};

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  const auto b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  // A path broken after its '/' ("tracker/" + "detection_lane.h") joins without a space.
  for (const auto& line : lines) out += (out.empty() || out.back() == '/' ? "" : " ") + line;
  return out;
}

// The `/// ...` comments of every `struct XConfig { ... };` of config.h: the struct's own comment
// (the lines just above it) and each member's, keyed by the `key` its first line names.
std::map<std::string, SectionText> readHeader(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "nft_config_reference: cannot read '%s'\n", path.c_str());
    std::exit(1);
  }
  const std::regex structLine(R"(^struct (\w+)Config \{)");
  const std::regex keyStart("^`([a-z0-9_]+)`: *(.*)$");
  std::map<std::string, SectionText> sections;
  std::vector<std::string> comment;
  SectionText* current = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    std::smatch m;
    if (t.rfind("///", 0) == 0) {
      comment.push_back(trim(t.substr(3)));
      continue;
    }
    if (!current && std::regex_search(line, m, structLine) && !m[1].str().empty()) {
      std::string name = m[1].str();
      std::string section = name;
      section[0] = static_cast<char>(section[0] - 'A' + 'a');
      current = &sections[section];
      current->structName = name + "Config";
      current->intro = joinLines(comment);
    } else if (current && t == "};") {
      current = nullptr;
    } else if (current && !t.empty() && !comment.empty()) {
      const std::string text = joinLines(comment);
      if (std::regex_match(text, m, keyStart)) {
        current->keys[m[1].str()] = m[2].str();
        current->order.push_back(m[1].str());
      }
    }
    comment.clear();
  }
  return sections;
}

// The value a description states as its default: the word after "Default " (a number, a name, a
// quoted string or a [list]); for a word that is no number followed by "(number)", that number
// ("Default √2 (1.4142135623730951)").
std::optional<std::string> statedDefault(const std::string& text) {
  const auto at = text.find("Default ");
  if (at == std::string::npos) return std::nullopt;
  std::string rest = text.substr(at + 8);
  std::string value;
  if (!rest.empty() && rest[0] == '[') {
    value = rest.substr(0, rest.find(']') + 1);
  } else if (!rest.empty() && rest[0] == '"') {
    value = rest.substr(0, rest.find('"', 1) + 1);
  } else {
    value = rest.substr(0, rest.find(' '));
    while (!value.empty() && (value.back() == '.' || value.back() == ',' || value.back() == ':' || value.back() == ';'))
      value.pop_back();
    const std::regex number(R"(^-?[0-9.]+(e-?[0-9]+)?$)");
    std::smatch m;
    const std::regex paren(R"(^\S+ \((-?[0-9.]+)\))");
    if (!std::regex_match(value, number) && std::regex_search(rest, m, paren)) value = m[1].str();
  }
  return value;
}

// Numbers compare as numbers ("0.20" = "0.2", "65" = "65.0"), lists element by element, quoted
// strings without their quotes, names as they are.
bool sameValue(const std::string& stated, const std::string& schema) {
  const auto unquote = [](std::string s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    return s;
  };
  const auto numbers = [](const std::string& s, std::vector<double>& out) {
    std::string body = s;
    if (!body.empty() && body.front() == '[') body = body.substr(1, body.size() - 2);
    std::stringstream in(body);
    std::string item;
    while (std::getline(in, item, ',')) {
      item = trim(item);
      char* end = nullptr;
      const double v = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0') return false;
      out.push_back(v);
    }
    return !out.empty();
  };
  std::vector<double> a, b;
  if (numbers(stated, a) && numbers(schema, b)) return a == b;
  return unquote(stated) == unquote(schema);
}

// Markdown table cells and text: a | would end the cell.
std::string cell(std::string s) {
  for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nft_config_reference CONFIG_H > configuration.md\n");
    return 2;
  }
  const std::map<std::string, SectionText> header = readHeader(argv[1]);
  const std::vector<nft::config::SchemaKey> keys = nft::config::schemaKeys();

  std::vector<std::string> problems;
  std::map<std::string, int> schemaCount;
  for (const auto& k : keys) {
    ++schemaCount[k.section + "." + k.key];
    const auto section = header.find(k.section);
    if (section == header.end()) {
      problems.push_back(k.section + ": a section of the schema without a struct in " + std::string(argv[1]));
      continue;
    }
    const auto text = section->second.keys.find(k.key);
    if (text == section->second.keys.end()) {
      problems.push_back(k.section + "." + k.key + ": in the schema, but config.h has no `" + k.key + "`: description");
      continue;
    }
    const auto stated = statedDefault(text->second);
    if (!stated)
      problems.push_back(k.section + "." + k.key + ": its description in config.h states no \"Default ...\"");
    else if (!sameValue(*stated, k.defaultValue))
      problems.push_back(k.section + "." + k.key + ": config.h says Default " + *stated + ", the schema's default is " +
                         k.defaultValue);
  }
  for (const auto& [section, text] : header)
    for (const auto& key : text.order)
      if (!schemaCount.count(section + "." + key))
        problems.push_back(section + "." + key + ": described in config.h, but not a key of the schema");
  if (!problems.empty()) {
    for (const auto& p : problems) std::fprintf(stderr, "nft_config_reference: %s\n", p.c_str());
    std::fprintf(stderr, "nft_config_reference: config.h and the schema (config/config.cpp) disagree on %zu key(s)\n",
                 problems.size());
    return 1;
  }

  std::printf(
      "# Configuration reference {#configuration}\n\n"
      "<!-- Generated by docs/config_reference.cpp from config's schema table (config/config.cpp) and the\n"
      "     key descriptions of config/config.h: do not edit. ctest -R docs.configuration_reference fails\n"
      "     when this file differs from what it generates; cmake --build build/release --target\n"
      "     nft_config_reference_update rewrites it. -->\n\n"
      "Every tunable of the pipeline, as a YAML file names it. A file names any subset of these keys:\n"
      "the keys it leaves out keep their defaults, so a profile overrides only what it names\n"
      "(`config/profiles/`), and an empty file is the default configuration (`config/default.yaml`\n"
      "lists every key with its default). The programs take a file with `--config`, an app with\n"
      "nft::sessionOptionsFromFile() or by setting nft::config::Config's fields (`camelCase` names of\n"
      "the same keys), Python with `nft.Session(\"file.yaml\")` or a dict, the web module with an\n"
      "object of the same shape.\n\n"
      "Everything a file says is checked before anything runs: unknown sections and keys (with the\n"
      "closest known key), wrong types, NaN and infinity, values out of range, unknown names and the\n"
      "rules between keys, each reported with the file, the line, the key, the value and what was\n"
      "expected: `c.yaml:12: tracking.min_ncc = 1.5: expected a number in [-1, 1]`.\n"
      "`nft_replay --print-config` prints the configuration a run would use.\n\n"
      "This page is generated from the schema the library parses configurations with and from the\n"
      "descriptions of `config/config.h` (nft::config::Config in the API reference); a test fails when\n"
      "they disagree.\n\n");
  std::string section;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& k = keys[i];
    const SectionText& text = header.at(k.section);
    if (k.section != section) {
      section = k.section;
      std::printf("## %s {#config_%s}\n\n%s C++: nft::config::%s.\n\n| key | accepts | default |\n|---|---|---|\n",
                  section.c_str(), section.c_str(), cell(text.intro).c_str(), text.structName.c_str());
      for (std::size_t j = i; j < keys.size() && keys[j].section == section; ++j) {
        const auto& row = keys[j];
        std::printf("| `%s` | %s%s | `%s` |\n", row.key.c_str(), cell(row.accepts).c_str(),
                    row.crossRule.empty() ? "" : ("; " + cell(row.crossRule)).c_str(), row.defaultValue.c_str());
      }
      std::printf("\n");
    }
    std::printf("- **`%s.%s`**: %s\n", k.section.c_str(), k.key.c_str(), text.keys.at(k.key).c_str());
    if (i + 1 == keys.size() || keys[i + 1].section != section) std::printf("\n");
  }
  return 0;
}
