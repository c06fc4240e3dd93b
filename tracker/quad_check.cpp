#include "tracker/quad_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace nft::tracker {
namespace {

double cross(const cv::Point2d& a, const cv::Point2d& b) { return a.x * b.y - a.y * b.x; }

void requirePositive(cv::Size targetSize, cv::Size frameSize) {
  if (targetSize.width <= 0 || targetSize.height <= 0 || frameSize.width <= 0 || frameSize.height <= 0) {
    throw std::invalid_argument("quadProblem: target and frame sizes must be positive");
  }
}

// Homogeneous w of the four corners under H.
void cornerWeights(const cv::Matx33d& H, cv::Size targetSize, double w[4]) {
  const double xs[4] = {0.0, static_cast<double>(targetSize.width), static_cast<double>(targetSize.width), 0.0};
  const double ys[4] = {0.0, 0.0, static_cast<double>(targetSize.height), static_cast<double>(targetSize.height)};
  for (int i = 0; i < 4; ++i) w[i] = H(2, 0) * xs[i] + H(2, 1) * ys[i] + H(2, 2);
}

std::string describe(const char* phrase, double value, double limit) {
  std::ostringstream s;
  s << phrase << " (" << value << ", limit " << limit << ")";
  return s.str();
}

}  // namespace

void projectTargetCorners(const cv::Matx33d& H, cv::Size targetSize, cv::Point2d corners[4]) {
  const double xs[4] = {0.0, static_cast<double>(targetSize.width), static_cast<double>(targetSize.width), 0.0};
  const double ys[4] = {0.0, 0.0, static_cast<double>(targetSize.height), static_cast<double>(targetSize.height)};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int i = 0; i < 4; ++i) {
    const cv::Vec3d q = H * cv::Vec3d(xs[i], ys[i], 1.0);
    corners[i] = q[2] != 0.0 ? cv::Point2d(q[0] / q[2], q[1] / q[2]) : cv::Point2d(nan, nan);
  }
}

std::string quadProblem(const cv::Matx33d& H, cv::Size targetSize, cv::Size frameSize, const QuadLimits& limits) {
  requirePositive(targetSize, frameSize);
  cv::Point2d p[4];
  projectTargetCorners(H, targetSize, p);
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(p[i].x) || !std::isfinite(p[i].y)) return "non-finite corner " + std::to_string(i);
  }
  double w[4];
  cornerWeights(H, targetSize, w);
  for (int i = 1; i < 4; ++i) {
    if ((w[i] > 0.0) != (w[0] > 0.0)) return "target crosses the horizon (homogeneous w changes sign)";
  }

  const double fw = frameSize.width, fh = frameSize.height;
  const double mx = limits.maxOutsideFraction * fw, my = limits.maxOutsideFraction * fh;
  for (int i = 0; i < 4; ++i) {
    if (p[i].x < -mx || p[i].x > fw + mx || p[i].y < -my || p[i].y > fh + my) {
      std::ostringstream s;
      s << "corner far outside the frame (corner " << i << " at " << p[i] << ")";
      return s.str();
    }
  }

  // Turn at each corner: with the target's winding (y down) every turn is positive.
  int positive = 0, negative = 0;
  for (int i = 0; i < 4; ++i) {
    const double turn = cross(p[(i + 1) % 4] - p[i], p[(i + 2) % 4] - p[(i + 1) % 4]);
    positive += turn > 0.0 ? 1 : 0;
    negative += turn < 0.0 ? 1 : 0;
  }
  if (negative == 4) return "mirrored (convex but wound opposite to the target)";
  if (positive != 4) return "not convex (self-intersecting, concave or degenerate)";

  double sides[4];
  for (int i = 0; i < 4; ++i) sides[i] = cv::norm(p[(i + 1) % 4] - p[i]);
  const double shortest = *std::min_element(sides, sides + 4);
  if (shortest < limits.minSidePx) return describe("side too short", shortest, limits.minSidePx);

  double area2 = 0.0;
  for (int i = 0; i < 4; ++i) area2 += cross(p[i], p[(i + 1) % 4]);
  const double areaFraction = 0.5 * std::abs(area2) / (fw * fh);
  if (areaFraction < limits.minAreaFraction) return describe("area too small", areaFraction, limits.minAreaFraction);
  if (areaFraction > limits.maxAreaFraction) return describe("area too large", areaFraction, limits.maxAreaFraction);

  const double quadAspect = (sides[0] + sides[2]) / (sides[1] + sides[3]);
  const double change = quadAspect / (static_cast<double>(targetSize.width) / targetSize.height);
  const double worst = std::max(change, 1.0 / change);
  if (worst > limits.maxAspectChange) return describe("aspect changed too much", worst, limits.maxAspectChange);
  return {};
}

bool plausibleQuad(const cv::Matx33d& H, cv::Size targetSize, cv::Size frameSize, const QuadLimits& limits) {
  return quadProblem(H, targetSize, frameSize, limits).empty();
}

}  // namespace nft::tracker
