// Loading an Oxford sequence folder (see oxford_sequence.h).

#include "apps/eval/oxford_sequence.h"

#include <array>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>

namespace nft::eval {

namespace fs = std::filesystem;

cv::Matx33d readHomography(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw std::runtime_error("homography file '" + file.string() + "' does not exist");
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open homography file '" + file.string() + "'");
  cv::Matx33d h;
  for (int i = 0; i < 9; ++i) {
    double v = 0;
    if (!(in >> v))
      throw std::runtime_error("homography file '" + file.string() + "': expected 9 numbers, could read only " +
                               std::to_string(i));
    h.val[i] = v;
  }
  const double det = cv::determinant(h);
  if (!std::isfinite(det) || std::abs(det) < 1e-12)
    throw std::runtime_error("homography file '" + file.string() + "' holds a singular or non-finite matrix");
  return h;
}

OxfordSequence loadOxfordSequence(const fs::path& folder) {
  if (!fs::exists(folder)) throw std::runtime_error("sequence folder '" + folder.string() + "' does not exist");
  if (!fs::is_directory(folder)) throw std::runtime_error("sequence '" + folder.string() + "' is not a folder");
  OxfordSequence seq;
  seq.folder = folder;
  // "graf/" and "graf" both name the sequence "graf".
  seq.name = folder.filename().empty() ? folder.parent_path().filename().string() : folder.filename().string();
  static const std::array<const char*, 3> kExtensions = {".png", ".ppm", ".pgm"};
  for (int n = 1; n <= kSequenceImages; ++n) {
    const std::string stem = "img" + std::to_string(n);
    fs::path found;
    for (const char* ext : kExtensions) {
      if (fs::is_regular_file(folder / (stem + ext))) {
        found = folder / (stem + ext);
        break;
      }
    }
    if (found.empty())
      throw std::runtime_error("image '" + (folder / stem).string() + ".png' (or .ppm, .pgm) does not exist");
    cv::Mat gray = cv::imread(found.string(), cv::IMREAD_GRAYSCALE);
    if (gray.empty()) throw std::runtime_error("cannot read image '" + found.string() + "' (not an image?)");
    seq.images.push_back(gray);
    seq.imagePaths.push_back(found);
  }
  for (int n = 2; n <= kSequenceImages; ++n)
    seq.homographies.push_back(readHomography(folder / ("H1to" + std::to_string(n) + "p")));
  return seq;
}

}  // namespace nft::eval
