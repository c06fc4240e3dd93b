#include "tracker/label_outline.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <opencv2/calib3d.hpp>

namespace nft::tracker {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kStepRad = 2 * kPi / 180;  // the lines' sampling: every 2° of turn
constexpr int kGeneratorSamples = 8;
constexpr int kSilhouetteRows = 9;          // t samples of the limb lines

cv::Vec3d vec(const cv::Point3d& p) { return {p.x, p.y, p.z}; }

/// Appends to `out` the runs of at least two consecutive samples of f(0..1) (`samples` + 1 of
/// them) whose point faces the camera.
void facingRuns(const std::function<cv::Point2d(double)>& pixelAt, int samples, const detection::LabelSurface& s,
                const cv::Vec3d& centre, std::vector<std::vector<cv::Point3d>>& out) {
  std::vector<cv::Point3d> run;
  const auto flush = [&] {
    if (run.size() >= 2) out.push_back(run);
    run.clear();
  };
  for (int k = 0; k <= samples; ++k) {
    const cv::Point2d p = pixelAt(static_cast<double>(k) / samples);
    const cv::Point3d x = s.point(p);
    if (s.normal(p).dot(centre - vec(x)) > 0)
      run.push_back(x);
    else
      flush();
  }
  flush();
}

/// The label's half-turn about the axis: the largest φ in [0, π] still on the label at slant t.
double halfTurn(const detection::LabelSurface& s, double t) {
  if (s.onLabel(s.pixelAt(t, kPi))) return kPi;
  double lo = 0, hi = kPi;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (s.onLabel(s.pixelAt(t, mid)) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

SurfaceLines visibleSurfaceLines(const detection::LabelSurface& s, cv::Size labelSize, const cv::Vec3d& centre,
                                 int gridLines) {
  SurfaceLines lines;
  const int g = std::max(0, gridLines);
  const double W = labelSize.width, H = labelSize.height;
  if (!s.geometry().curved()) {
    const cv::Point2d c[4] = {{0, 0}, {W, 0}, {W, H}, {0, H}};
    for (int i = 0; i < 4; ++i) {
      const cv::Point2d a = c[i], b = c[(i + 1) % 4];
      facingRuns([&](double f) { return a + f * (b - a); }, 1, s, centre, lines.edges);
    }
    for (int k = 1; k <= g; ++k) {
      const double f = static_cast<double>(k) / (g + 1);
      facingRuns([&](double u) { return cv::Point2d(f * W, u * H); }, 1, s, centre, lines.grid);
      facingRuns([&](double u) { return cv::Point2d(u * W, f * H); }, 1, s, centre, lines.grid);
    }
    return lines;
  }
  const detection::TargetGeometry& geometry = s.geometry();
  const double tMax = geometry.kind == detection::GeometryKind::Cone
                          ? geometry.sideLengthM
                          : detection::labelHeightMetres(s.metresPerPixel() * W, labelSize);
  const double phiMax = halfTurn(s, 0.5 * tMax);
  const int turnSamples = std::max(2, static_cast<int>(std::ceil(2 * phiMax / kStepRad)));
  const auto along = [&](double t) {  // a ring of the label at slant t
    return [&s, t, phiMax](double f) { return s.pixelAt(t, -phiMax + 2 * phiMax * f); };
  };
  const auto down = [&](double phi) {  // a generator at φ
    return [&s, phi, tMax](double f) { return s.pixelAt(f * tMax, phi); };
  };
  facingRuns(along(0), turnSamples, s, centre, lines.edges);
  facingRuns(down(phiMax), kGeneratorSamples, s, centre, lines.edges);
  facingRuns(along(tMax), turnSamples, s, centre, lines.edges);
  facingRuns(down(-phiMax), kGeneratorSamples, s, centre, lines.edges);
  for (int k = 1; k <= g; ++k) {
    const double f = static_cast<double>(k) / (g + 1);
    facingRuns(down(-phiMax + 2 * phiMax * f), kGeneratorSamples, s, centre, lines.grid);
    facingRuns(along(f * tMax), turnSamples, s, centre, lines.grid);
  }
  // The limb lines: at each slant t, the turns where the facing changes sign. On a cylinder or cone
  // the point and its normal are affine in (cos φ, sin φ), so the facing is A·cos φ + B·sin φ + D:
  // three samples give it, and its zeros are θ ± acos(−D / R) (R = |(A, B)|, θ = atan2(B, A)),
  // the one with the facing rising through zero first.
  std::vector<cv::Point3d> rising, falling;
  const auto facing = [&](double t, double phi) {
    const cv::Point2d p = s.pixelAt(t, phi);
    return s.normal(p).dot(centre - vec(s.point(p)));
  };
  for (int row = 0; row < kSilhouetteRows; ++row) {
    const double t = tMax * row / (kSilhouetteRows - 1);
    const double f0 = facing(t, 0), f1 = facing(t, kPi / 2), f2 = facing(t, kPi);
    const double D = 0.5 * (f0 + f2), A = 0.5 * (f0 - f2), B = f1 - D, R = std::hypot(A, B);
    if (!(R > 0) || std::abs(D) >= R) continue;  // all of the ring faces the camera, or none of it
    const double theta = std::atan2(B, A), spread = std::acos(-D / R);
    rising.push_back(s.point(s.pixelAt(t, theta - spread)));
    falling.push_back(s.point(s.pixelAt(t, theta + spread)));
  }
  for (std::vector<cv::Point3d>* limb : {&rising, &falling})
    if (limb->size() >= 2) lines.silhouette.push_back(*limb);
  return lines;
}

std::vector<std::vector<cv::Point2f>> projectedOutline(const detection::LabelSurface& s, cv::Size labelSize,
                                                       const Pose& pose, const CameraCalibration& calibration) {
  cv::Matx33d R;
  cv::Rodrigues(pose.rvec, R);
  const cv::Vec3d centre = -(R.t() * pose.tvec);
  std::vector<std::vector<cv::Point3d>> lines;
  if (!s.geometry().curved()) {
    const double W = labelSize.width, H = labelSize.height;
    std::vector<cv::Point3d> quad;
    for (const cv::Point2d& c : {cv::Point2d(0, 0), cv::Point2d(W, 0), cv::Point2d(W, H), cv::Point2d(0, H), cv::Point2d(0, 0)})
      quad.push_back(s.point(c));
    lines.push_back(quad);
  } else {
    SurfaceLines seen = visibleSurfaceLines(s, labelSize, centre);
    lines = std::move(seen.edges);
    lines.insert(lines.end(), seen.silhouette.begin(), seen.silhouette.end());
  }
  std::vector<std::vector<cv::Point2f>> out;
  for (const std::vector<cv::Point3d>& line : lines) {
    // In front of the camera only (a line is cut where it passes behind).
    std::vector<cv::Point3d> front;
    const auto flush = [&] {
      if (front.size() >= 2) {
        std::vector<cv::Point2d> projected;
        cv::projectPoints(front, pose.rvec, pose.tvec, calibration.K, calibration.distortion, projected);
        std::vector<cv::Point2f> points;
        for (const cv::Point2d& p : projected) points.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
        out.push_back(std::move(points));
      }
      front.clear();
    };
    for (const cv::Point3d& x : line) {
      if ((R * vec(x) + pose.tvec)[2] > 1e-6)
        front.push_back(x);
      else
        flush();
    }
    flush();
  }
  return out;
}

}  // namespace nft::tracker
