// Ground-truth correspondences by position and region overlap (see correspondences.h).

#include "apps/eval/correspondences.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace nft::eval {

using detection::Keypoint;

namespace {

constexpr int kQuadratureSteps = 720;
constexpr double kLimitTolerance = 1e-4;

/// An ellipse {x : (x − c)ᵀ M (x − c) <= 1}.
struct Ellipse {
  cv::Vec2d centre;
  cv::Matx22d m;
};

// Distance from `origin` (inside the ellipse) to its boundary along the unit direction u:
// the positive root of (w + ρu)ᵀ M (w + ρu) = 1 with w = origin − centre.
double radialDistance(const Ellipse& e, const cv::Vec2d& origin, const cv::Vec2d& u) {
  const cv::Vec2d w = origin - e.centre;
  const cv::Vec2d mu = e.m * u;
  const double a = u.dot(mu);
  const double b = w.dot(mu);
  const double c = w.dot(e.m * w) - 1.0;
  const double disc = std::max(0.0, b * b - a * c);
  return (-b + std::sqrt(disc)) / a;
}

bool contains(const Ellipse& e, const cv::Vec2d& p) {
  const cv::Vec2d w = p - e.centre;
  return w.dot(e.m * w) < 1.0;
}

}  // namespace

cv::Point2d mapPoint(const cv::Matx33d& h, cv::Point2d p) {
  const cv::Vec3d q = h * cv::Vec3d(p.x, p.y, 1.0);
  if (q[2] == 0.0) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  return {q[0] / q[2], q[1] / q[2]};
}

cv::Matx22d homographyJacobian(const cv::Matx33d& h, cv::Point2d p) {
  const double u = h(0, 0) * p.x + h(0, 1) * p.y + h(0, 2);
  const double v = h(1, 0) * p.x + h(1, 1) * p.y + h(1, 2);
  const double w = h(2, 0) * p.x + h(2, 1) * p.y + h(2, 2);
  const double w2 = w * w;
  // d(u/w)/dx = (h00·w − u·h20) / w², and likewise for the other three entries.
  return {(h(0, 0) * w - u * h(2, 0)) / w2, (h(0, 1) * w - u * h(2, 1)) / w2,
          (h(1, 0) * w - v * h(2, 0)) / w2, (h(1, 1) * w - v * h(2, 1)) / w2};
}

double overlapError(const cv::Matx33d& h, const Keypoint& a, const Keypoint& b, double radiusPerScale) {
  const cv::Point2d ca = mapPoint(h, {a.x, a.y});
  const cv::Matx22d jac = homographyJacobian(h, {a.x, a.y});
  const double det = cv::determinant(jac);
  if (!std::isfinite(ca.x) || !std::isfinite(det) || std::abs(det) < 1e-12) return 1.0;
  const double ra = radiusPerScale * a.scale;
  const double rb = radiusPerScale * b.scale;
  // x − c = J·u with |u| <= ra  ⇔  (x − c)ᵀ J⁻ᵀ J⁻¹ (x − c) <= ra².
  const cv::Matx22d jinv = jac.inv();
  const Ellipse mapped{{ca.x, ca.y}, jinv.t() * jinv * (1.0 / (ra * ra))};
  const Ellipse circle{{b.x, b.y}, cv::Matx22d::eye() * (1.0 / (rb * rb))};
  const cv::Vec2d origin = 0.5 * (mapped.centre + circle.centre);
  if (!contains(mapped, origin) || !contains(circle, origin)) return 1.0;
  double intersection = 0.0, uni = 0.0;
  for (int k = 0; k < kQuadratureSteps; ++k) {
    const double theta = 2.0 * CV_PI * (k + 0.5) / kQuadratureSteps;
    const cv::Vec2d u(std::cos(theta), std::sin(theta));
    const double r1 = radialDistance(mapped, origin, u);
    const double r2 = radialDistance(circle, origin, u);
    intersection += std::min(r1, r2) * std::min(r1, r2);
    uni += std::max(r1, r2) * std::max(r1, r2);
  }
  return uni > 0.0 ? 1.0 - intersection / uni : 1.0;
}

std::vector<bool> visibleIn(const cv::Matx33d& h, const std::vector<Keypoint>& keypoints, cv::Size otherSize) {
  std::vector<bool> visible(keypoints.size());
  for (size_t i = 0; i < keypoints.size(); ++i) {
    const cv::Point2d p = mapPoint(h, {keypoints[i].x, keypoints[i].y});
    visible[i] = p.x >= 0.0 && p.y >= 0.0 && p.x <= otherSize.width - 1.0 && p.y <= otherSize.height - 1.0;
  }
  return visible;
}

std::vector<std::pair<int, int>> findCorrespondences(const cv::Matx33d& h, const std::vector<Keypoint>& keypoints1,
                                                     const std::vector<Keypoint>& keypointsN,
                                                     const CorrespondenceOptions& options) {
  if (!(options.maxDistancePx > 0.0))
    throw std::invalid_argument("correspondences: maxDistancePx must be > 0 (got " +
                                std::to_string(options.maxDistancePx) + ")");
  if (!(options.regionRadiusPerScale > 0.0))
    throw std::invalid_argument("correspondences: regionRadiusPerScale must be > 0 (got " +
                                std::to_string(options.regionRadiusPerScale) + ")");
  const bool regionTest = options.maxOverlapError < 1.0;
  const double d2 = options.maxDistancePx * options.maxDistancePx;
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < keypoints1.size(); ++i) {
    const cv::Point2d p = mapPoint(h, {keypoints1[i].x, keypoints1[i].y});
    if (!std::isfinite(p.x)) continue;
    for (size_t j = 0; j < keypointsN.size(); ++j) {
      const double dx = p.x - keypointsN[j].x, dy = p.y - keypointsN[j].y;
      if (dx * dx + dy * dy > d2) continue;
      if (regionTest && overlapError(h, keypoints1[i], keypointsN[j], options.regionRadiusPerScale) >=
                            options.maxOverlapError - kLimitTolerance)
        continue;
      pairs.emplace_back(static_cast<int>(i), static_cast<int>(j));
    }
  }
  return pairs;
}

}  // namespace nft::eval
