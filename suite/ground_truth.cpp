#include "suite/ground_truth.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nft::replay {

std::vector<QuadCorners> loadGroundTruth(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read ground-truth file '" + path + "'");
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error("ground-truth file '" + path + "' is empty (expected a header line)");
  std::vector<QuadCorners> frames;
  for (int lineNumber = 2; std::getline(in, line); ++lineNumber) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream s(line);
    std::string name;
    s >> name;
    QuadCorners c;
    for (cv::Point2f& p : c) s >> p.x >> p.y;
    bool finite = static_cast<bool>(s);
    for (const cv::Point2f& p : c) finite = finite && std::isfinite(p.x) && std::isfinite(p.y);
    if (!finite)
      throw std::runtime_error("ground-truth file '" + path + "' line " + std::to_string(lineNumber) +
                               ": expected a frame name and 8 numbers (ulx uly urx ury lrx lry llx lly), got '" +
                               line + "'");
    frames.push_back(c);
  }
  return frames;
}

double alignmentError(const QuadCorners& truth, const std::vector<cv::Point2f>& found) {
  if (found.size() != 4)
    throw std::invalid_argument("alignmentError: expected 4 corners, got " + std::to_string(found.size()));
  double sum = 0;
  for (size_t i = 0; i < 4; ++i) {
    const double dx = static_cast<double>(truth[i].x) - found[i].x, dy = static_cast<double>(truth[i].y) - found[i].y;
    sum += dx * dx + dy * dy;
  }
  return std::sqrt(sum / 4.0);
}

}  // namespace nft::replay
