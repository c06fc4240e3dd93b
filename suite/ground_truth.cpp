#include "suite/ground_truth.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

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
    std::string name, token;
    s >> name;
    // std::strtod reads "nan" (an istream does not): a frame without annotation.
    double values[8];
    int read = 0, nans = 0;
    bool numbers = true;
    for (; read < 8 && s >> token; ++read) {
      char* end = nullptr;
      values[read] = std::strtod(token.c_str(), &end);
      // Corners are floats: a finite double beyond float's range (1e60) would become infinite.
      numbers = numbers && end != token.c_str() && *end == '\0' &&
                !(std::abs(values[read]) > static_cast<double>(std::numeric_limits<float>::max()));
      nans += std::isnan(values[read]) ? 1 : 0;
    }
    if (read < 8 || !numbers || (nans != 0 && nans != 8))
      throw std::runtime_error("ground-truth file '" + path + "' line " + std::to_string(lineNumber) +
                               ": expected a frame name and 8 finite numbers within float's range (ulx uly urx ury lrx "
                               "lry llx lly), or 8 nan for a frame without annotation, got '" +
                               line + "'");
    QuadCorners c;
    for (size_t k = 0; k < 4; ++k)
      c[k] = cv::Point2f(static_cast<float>(values[2 * k]), static_cast<float>(values[2 * k + 1]));
    frames.push_back(c);
  }
  return frames;
}

void saveGroundTruth(const std::string& path, const std::vector<QuadCorners>& frames) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write ground-truth file '" + path + "'");
  out << "frame\tulx\tuly\turx\tury\tlrx\tlry\tllx\tlly\n";
  char text[64];
  for (size_t i = 0; i < frames.size(); ++i) {
    std::snprintf(text, sizeof text, "frame%05zu.jpg", i + 1);
    out << text;
    for (const cv::Point2f& p : frames[i]) {
      if (!annotated(frames[i])) {
        out << "\tnan\tnan";
        continue;
      }
      std::snprintf(text, sizeof text, "\t%.4f\t%.4f", static_cast<double>(p.x), static_cast<double>(p.y));
      out << text;
    }
    out << '\n';
  }
  out.flush();
  if (!out) throw std::runtime_error("error while writing ground-truth file '" + path + "'");
}

QuadCorners notAnnotated() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  return {cv::Point2f(nan, nan), cv::Point2f(nan, nan), cv::Point2f(nan, nan), cv::Point2f(nan, nan)};
}

bool annotated(const QuadCorners& corners) {
  for (const cv::Point2f& p : corners)
    if (std::isnan(p.x) || std::isnan(p.y)) return false;
  return true;
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

namespace {

/// The homography of the unit square's corners (0,0), (1,0), (1,1), (0,1) onto `quad`.
cv::Matx33d fromUnitSquare(const cv::Point2f* quad) {
  const cv::Point2f square[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  return cv::Matx33d(cv::getPerspectiveTransform(square, quad));
}

}  // namespace

double visibleError(const QuadCorners& truth, const std::vector<cv::Point2f>& found, cv::Size frameSize) {
  if (!found.empty() && found.size() != 4)
    throw std::invalid_argument("visibleError: expected 4 corners (or none: not found), got " +
                                std::to_string(found.size()));
  if (frameSize.width <= 0 || frameSize.height <= 0)
    throw std::invalid_argument("visibleError: frame size " + std::to_string(frameSize.width) + "x" +
                                std::to_string(frameSize.height) + " is empty");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (!annotated(truth)) return nan;
  const cv::Matx33d T = fromUnitSquare(truth.data());
  std::vector<cv::Vec3d> inside;  // unit-square points the truth puts in the frame, homogeneous
  std::vector<cv::Point2d> at;
  for (int j = 0; j < kVisibleGrid; ++j)
    for (int i = 0; i < kVisibleGrid; ++i) {
      const cv::Vec3d p((i + 0.5) / kVisibleGrid, (j + 0.5) / kVisibleGrid, 1.0);
      const cv::Vec3d q = T * p;
      if (!(q[2] > 0)) continue;  // behind the camera: not in the frame
      const cv::Point2d x(q[0] / q[2], q[1] / q[2]);
      if (x.x >= 0 && x.y >= 0 && x.x < frameSize.width && x.y < frameSize.height) {
        inside.push_back(p);
        at.push_back(x);
      }
    }
  if (inside.empty()) return nan;
  if (found.empty()) return std::numeric_limits<double>::infinity();
  const cv::Matx33d F = fromUnitSquare(found.data());
  double sum = 0;
  for (size_t k = 0; k < inside.size(); ++k) {
    const cv::Vec3d q = F * inside[k];
    const double d = cv::norm(cv::Point2d(q[0] / q[2], q[1] / q[2]) - at[k]);
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    sum += d;
  }
  return sum / static_cast<double>(inside.size());
}

}  // namespace nft::replay
