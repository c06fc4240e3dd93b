#include "apps/train/database_input.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace nft::train {
namespace fs = std::filesystem;
namespace {

/// The whole of `text` as a finite number; std::nullopt otherwise.
std::optional<double> numberOf(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::vector<TargetEntry> entriesOfFolder(const std::string& folder) {
  if (!fs::is_directory(folder)) throw std::runtime_error("image folder '" + folder + "' does not exist");
  static const std::set<std::string> kImages = {".jpg", ".jpeg", ".png", ".bmp", ".pgm", ".ppm", ".tif", ".tiff", ".webp"};
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (e.is_regular_file() && kImages.count(ext)) files.push_back(e.path());
  }
  if (files.empty()) throw std::runtime_error("image folder '" + folder + "' holds no image (jpg, png, ...)");
  std::sort(files.begin(), files.end());
  std::vector<TargetEntry> entries;
  for (const fs::path& f : files) entries.push_back({f.stem().string(), f.string(), 0.0, {}, f.string()});
  return entries;
}

std::vector<TargetEntry> entriesOfList(const std::string& listFile) {
  std::ifstream in(listFile);
  if (!in) throw std::runtime_error("cannot read target list '" + listFile + "'");
  const fs::path base = fs::path(listFile).parent_path();
  std::vector<TargetEntry> entries;
  std::set<std::string> names;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = listFile + ":" + std::to_string(number) + ": ";
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    std::vector<std::string> positional, keyed;
    for (std::string s; fields >> s;) (s.find('=') == std::string::npos ? positional : keyed).push_back(s);
    if (positional.empty() && keyed.empty()) continue;
    if (positional.size() < 2 || positional.size() > 3)
      throw std::runtime_error(where + "expected 'name image [width_m] [key=value ...]', got " +
                               std::to_string(positional.size()) + " fields besides key=value ones");
    TargetEntry e{positional[0], positional[1], 0.0, {}, listFile + ":" + std::to_string(number)};
    e.geometry.naming = GeometryArguments::Naming::ListKeys;
    if (fs::path(e.image).is_relative()) e.image = (base / e.image).string();
    if (positional.size() == 3) {
      const std::optional<double> w = numberOf(positional[2]);
      if (!w || !(*w > 0))
        throw std::runtime_error(where + "width '" + positional[2] + "': expected a positive number of metres");
      e.widthMetres = *w;
    }
    std::set<std::string> seen;
    for (const std::string& field : keyed) {
      const std::string key = field.substr(0, field.find('='));
      const std::string value = field.substr(field.find('=') + 1);
      if (!seen.insert(key).second) throw std::runtime_error(where + "key '" + key + "' is given twice");
      if (key == "geometry") {
        e.geometry.kind = value;
        continue;
      }
      if (key == "cone_label") {
        e.geometry.coneLabel = value;
        continue;
      }
      std::optional<double>* size = key == "radius_m"          ? &e.geometry.radius
                                    : key == "height_m"        ? &e.geometry.height
                                    : key == "top_radius_m"    ? &e.geometry.topRadius
                                    : key == "bottom_radius_m" ? &e.geometry.bottomRadius
                                    : key == "side_length_m"   ? &e.geometry.sideLength
                                                               : nullptr;
      if (!size)
        throw std::runtime_error(where + "unknown key '" + key +
                                 "' (expected geometry, radius_m, height_m, top_radius_m, bottom_radius_m, "
                                 "side_length_m or cone_label)");
      *size = numberOf(value);
      if (!*size) throw std::runtime_error(where + key + " '" + value + "': expected a number of metres");
    }
    if (!names.insert(e.name).second) throw std::runtime_error(where + "the name '" + e.name + "' is given twice");
    entries.push_back(std::move(e));
  }
  if (entries.empty()) throw std::runtime_error("target list '" + listFile + "' names no target");
  return entries;
}

}  // namespace nft::train
