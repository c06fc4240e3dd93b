// Parsing extractor names with modifiers (see extractor_spec.h).

#include "apps/eval/extractor_spec.h"

#include <sstream>
#include <stdexcept>

namespace nft::eval {

using detection::DescriptorStorage;
using detection::DescriptorType;
using detection::Orientation;

std::string kindName(ExtractorKind kind) {
  switch (kind) {
    case ExtractorKind::SurfEs: return "surf-es";
    case ExtractorKind::SurfCpu: return "surf-cpu";
    case ExtractorKind::Sift: return "sift";
    case ExtractorKind::Orb: return "orb";
  }
  return "?";
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

}  // namespace

ExtractorSpec parseExtractorSpec(const std::string& token, const ExtractorSpec& defaults) {
  const std::vector<std::string> parts = split(token, ':');
  if (parts.empty() || parts[0].empty()) throw std::invalid_argument("extractor '" + token + "': no name");
  ExtractorSpec spec = defaults;
  const std::string& name = parts[0];
  if (name == "surf-es") spec.kind = ExtractorKind::SurfEs;
  else if (name == "surf-cpu") spec.kind = ExtractorKind::SurfCpu;
  else if (name == "sift") spec.kind = ExtractorKind::Sift;
  else if (name == "orb") spec.kind = ExtractorKind::Orb;
  else
    throw std::invalid_argument("extractor '" + token + "': unknown name '" + name +
                                "' (surf-es, surf-cpu, sift or orb)");
  const bool surfEs = spec.kind == ExtractorKind::SurfEs;
  const bool surf = surfEs || spec.kind == ExtractorKind::SurfCpu;
  auto onlyFor = [&](bool allowed, const std::string& modifier, const std::string& who) {
    if (!allowed)
      throw std::invalid_argument("extractor '" + token + "': modifier '" + modifier + "' applies to " + who +
                                  " only");
  };
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& m = parts[i];
    if (m == "auto" || m == "rgba8" || m == "float") {
      onlyFor(surfEs, m, "surf-es");
      spec.storage = m == "rgba8" ? DescriptorStorage::Rgba8 : m == "float" ? DescriptorStorage::Float : DescriptorStorage::Auto;
    } else if (m.size() >= 2 && m[0] == 'p' && m.find_first_not_of("0123456789", 1) == std::string::npos) {
      onlyFor(surfEs, m, "surf-es");
      const int p = std::stoi(m.substr(1));
      if (p < 0 || p > 24) throw std::invalid_argument("extractor '" + token + "': precision " + m + " outside p0..p24");
      spec.precisionBits = p;
    } else if (m == "taps1" || m == "taps2" || m == "lookups") {
      onlyFor(surfEs, m, "surf-es");
      spec.boxTaps = m == "taps1" ? 1 : 2;
      spec.quarterBoxes = m == "lookups" ? detection::QuarterBoxes::Lookups : detection::QuarterBoxes::BoxPyramid;
    } else if (m == "upright" || m == "oriented") {
      spec.orientation = m == "upright" ? Orientation::Upright : Orientation::Oriented;
    } else if (m == "64" || m == "36") {
      onlyFor(surf, m, "surf-es and surf-cpu");
      spec.type = m == "36" ? DescriptorType::Surf36 : DescriptorType::Surf64;
    } else {
      throw std::invalid_argument("extractor '" + token + "': unknown modifier '" + m +
                                  "' (auto|rgba8|float, pN, taps1|taps2|lookups, upright|oriented, 64|36)");
    }
  }
  // Defaults that do not apply to this extractor are dropped, so labels stay honest.
  if (!surfEs) {
    spec.storage = DescriptorStorage::Auto;
    spec.precisionBits = 0;
  }
  if (!surf) spec.type = DescriptorType::Surf64;
  return spec;
}

std::vector<ExtractorSpec> parseExtractorList(const std::string& list, const ExtractorSpec& defaults) {
  std::vector<ExtractorSpec> specs;
  for (const std::string& token : split(list, ','))
    if (!token.empty()) specs.push_back(parseExtractorSpec(token, defaults));
  if (specs.empty()) throw std::invalid_argument("no extractor named in '" + list + "'");
  return specs;
}

}  // namespace nft::eval
