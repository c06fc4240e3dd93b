// libFuzzer target: the YAML config loader (config/config.h, parseConfig) on arbitrary text.
// Contract: every input either gives a valid Config or throws ConfigError — never another
// exception, a crash, a hang or a sanitizer report — and a Config that parses survives the
// documented round trip parseConfig(toYaml(c)) == c.

#include <cstddef>
#include <cstdint>
#include <string>

#include "config/config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nft::config::Config config;
  try {
    config = nft::config::parseConfig(text, "<fuzz>");
  } catch (const nft::config::ConfigError&) {
    return 0;  // refused with a message: fine
  }
  try {
    nft::config::validate(config, "<fuzz>");
  } catch (const nft::config::ConfigError& e) {
    nft::fuzz::contractBroken("config_fuzzer", std::string("parsed config fails validate(): ") + e.what());
  }
  const std::string yaml = nft::config::toYaml(config);
  nft::config::Config again;
  try {
    again = nft::config::parseConfig(yaml, "<round trip>");
  } catch (const nft::config::ConfigError& e) {
    nft::fuzz::contractBroken("config_fuzzer", std::string("toYaml() output does not parse: ") + e.what() + "\n" + yaml);
  }
  if (again != config) nft::fuzz::contractBroken("config_fuzzer", "round trip changed the config:\n" + yaml);
  return 0;
}
