#include "apps/train/database_input.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace nft::train {
namespace fs = std::filesystem;

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
  for (const fs::path& f : files) entries.push_back({f.stem().string(), f.string(), 0.0});
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
    std::vector<std::string> f;
    for (std::string s; fields >> s;) f.push_back(s);
    if (f.empty()) continue;
    if (f.size() < 2 || f.size() > 3)
      throw std::runtime_error(where + "expected 'name image [width_m]', got " + std::to_string(f.size()) + " fields");
    TargetEntry e{f[0], f[1], 0.0};
    if (fs::path(e.image).is_relative()) e.image = (base / e.image).string();
    if (f.size() == 3) {
      size_t used = 0;
      try {
        e.widthMetres = std::stod(f[2], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != f[2].size() || !(e.widthMetres > 0) || !std::isfinite(e.widthMetres))
        throw std::runtime_error(where + "width '" + f[2] + "': expected a positive number of metres");
    }
    if (!names.insert(e.name).second) throw std::runtime_error(where + "the name '" + e.name + "' is given twice");
    entries.push_back(std::move(e));
  }
  if (entries.empty()) throw std::runtime_error("target list '" + listFile + "' names no target");
  return entries;
}

}  // namespace nft::train
