#include "tracker/blur_aware_fit.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace nft::tracker {

std::optional<cv::Matx23d> fitBlurredCorrection(const std::vector<BlurredMatch>& matches) {
  if (matches.size() < 3) return std::nullopt;
  // Parameters a = (a00, a01, a02, a10, a11, a12); residual along direction d (unit):
  // d·(A·e − f) = dx·(a00·ex + a01·ey + a02) + dy·(a10·ex + a11·ey + a12) − d·f.
  // Centre the points for conditioning: e' = e − c, f' = f − c, A' then shifted back.
  cv::Point2d c(0, 0);
  for (const BlurredMatch& m : matches) c += cv::Point2d(m.expected);
  c *= 1.0 / static_cast<double>(matches.size());
  cv::Matx66d normal = cv::Matx66d::zeros();
  cv::Vec6d rhs = cv::Vec6d::all(0);
  const auto addRow = [&](cv::Point2d d, double weight, cv::Point2d e, cv::Point2d f) {
    const cv::Vec6d row(d.x * e.x, d.x * e.y, d.x, d.y * e.x, d.y * e.y, d.y);
    const double target = d.x * f.x + d.y * f.y;
    for (int i = 0; i < 6; ++i) {
      rhs[i] += weight * row[i] * target;
      for (int j = 0; j < 6; ++j) normal(i, j) += weight * row[i] * row[j];
    }
  };
  for (const BlurredMatch& m : matches) {
    const cv::Point2d e = cv::Point2d(m.expected) - c, f = cv::Point2d(m.found) - c;
    const double length = std::hypot(m.streak.x, m.streak.y);
    const cv::Point2d u = length > 1e-9 ? cv::Point2d(m.streak.x / length, m.streak.y / length) : cv::Point2d(1, 0);
    const cv::Point2d n(-u.y, u.x);
    const double s = kAlongStreakSigmaPerPx * length;
    addRow(u, 1.0 / (1.0 + s * s), e, f);
    addRow(n, 1.0, e, f);
  }
  cv::Vec6d a;
  if (!cv::solve(normal, rhs, a, cv::DECOMP_CHOLESKY)) return std::nullopt;
  for (int i = 0; i < 6; ++i)
    if (!std::isfinite(a[i])) return std::nullopt;
  // A'(e − c) + c = A·e with A = [M | t' + c − M·c].
  const double tx = a[2] + c.x - (a[0] * c.x + a[1] * c.y);
  const double ty = a[5] + c.y - (a[3] * c.x + a[4] * c.y);
  return cv::Matx23d(a[0], a[1], tx, a[3], a[4], ty);
}

std::optional<cv::Matx33d> refineBlurredHomography(const cv::Matx33d& H0, const std::vector<cv::Point2f>& target,
                                                   const std::vector<cv::Point2f>& found,
                                                   const std::vector<cv::Point2f>& streak, int iterations) {
  const size_t n = target.size();
  if (n < 5 || found.size() != n || streak.size() != n || !(std::abs(H0(2, 2)) > 1e-12)) return std::nullopt;
  cv::Matx33d H = H0 * (1.0 / H0(2, 2));
  using Vec8 = cv::Vec<double, 8>;
  using Mat8 = cv::Matx<double, 8, 8>;
  for (int it = 0; it < std::max(1, iterations); ++it) {
    Mat8 normal = Mat8::zeros();
    Vec8 rhs = Vec8::all(0);
    for (size_t i = 0; i < n; ++i) {
      const double x = target[i].x, y = target[i].y;
      const double w = H(2, 0) * x + H(2, 1) * y + 1.0;
      const double px = (H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w;
      const double py = (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w;
      // d(px, py)/d(h00 h01 h02 h10 h11 h12 h20 h21)
      const Vec8 jx(x / w, y / w, 1 / w, 0, 0, 0, -px * x / w, -px * y / w);
      const Vec8 jy(0, 0, 0, x / w, y / w, 1 / w, -py * x / w, -py * y / w);
      const cv::Point2d r(px - found[i].x, py - found[i].y);
      const double length = std::hypot(streak[i].x, streak[i].y);
      const cv::Point2d u = length > 1e-9 ? cv::Point2d(streak[i].x / length, streak[i].y / length) : cv::Point2d(1, 0);
      const double s = kAlongStreakSigmaPerPx * length;
      for (const auto& [d, weight] : {std::pair<cv::Point2d, double>(u, 1.0 / (1.0 + s * s)),
                                      std::pair<cv::Point2d, double>(cv::Point2d(-u.y, u.x), 1.0)}) {
        const Vec8 row = jx * d.x + jy * d.y;
        const double residual = r.x * d.x + r.y * d.y;
        for (int a = 0; a < 8; ++a) {
          rhs[a] -= weight * row[a] * residual;
          for (int b = 0; b < 8; ++b) normal(a, b) += weight * row[a] * row[b];
        }
      }
    }
    Vec8 step;
    if (!cv::solve(normal, rhs, step, cv::DECOMP_CHOLESKY)) return std::nullopt;
    for (int a = 0; a < 8; ++a) {
      if (!std::isfinite(step[a])) return std::nullopt;
      H.val[a] += step[a];
    }
  }
  return H;
}

}  // namespace nft::tracker
