#include "detection/label_surface.h"

#include <algorithm>
#include <cmath>

namespace nft::detection {
namespace {

constexpr double kPi = 3.14159265358979323846;
// As validateTargetGeometry's: a label measured by hand may come out a little off.
constexpr double kSlack = 1e-3;
const cv::Vec3d kX(1, 0, 0);

}  // namespace

LabelSurface::LabelSurface(const TargetGeometry& geometry, double widthMetres, cv::Size imageSize)
    : geometry_(geometry), imageSize_(imageSize) {
  validateTargetGeometry(geometry, widthMetres, imageSize, "LabelSurface");  // a sector's layout too
  width_ = widthMetres;
  s_ = imageSize.width > 0 ? widthMetres / imageSize.width : 0.0;
  if (geometry.kind == GeometryKind::Planar) return;
  if (geometry.kind == GeometryKind::Cylinder) {
    topRadius_ = bottomRadius_ = geometry.radiusM;
    slant_ = imageSize.height * s_;  // the label's height
  } else {
    topRadius_ = geometry.topRadiusM;
    bottomRadius_ = geometry.bottomRadiusM;
    slant_ = geometry.sideLengthM;
    sinAlpha_ = (bottomRadius_ - topRadius_) / slant_;
    cosAlpha_ = std::sqrt(std::max(0.0, 1 - sinAlpha_ * sinAlpha_));
    if (geometry.coneLabel == ConeLabel::Sector) {
      const double k = std::abs(sinAlpha_);
      const double topPlane = topRadius_ / k, bottomPlane = bottomRadius_ / k;
      const double outer = std::max(topPlane, bottomPlane), inner = std::min(topPlane, bottomPlane);
      halfAngle_ = std::asin(std::min(1.0, widthMetres / (2 * outer)));  // checked by validateTargetGeometry
      apexAbove_ = bottomRadius_ > topRadius_;
      apexY_ = apexAbove_ ? -inner * std::cos(halfAngle_) : outer;
      planeTop_ = topPlane;
      y0_ = apexAbove_ ? apexY_ + topPlane : 0.0;
    }
  }
  a0_ = cv::Vec3d(width_ / 2, y0_ - topRadius_ * sinAlpha_, topRadius_ * cosAlpha_);
  d_ = cv::Vec3d(0, cosAlpha_, sinAlpha_);
  e_ = cv::Vec3d(0, -sinAlpha_, cosAlpha_);
}

cv::Vec2d LabelSurface::curvedSlantAngle(cv::Point2d p) const {
  const double x = p.x * s_ - width_ / 2, y = p.y * s_;
  if (geometry_.kind == GeometryKind::Cone && geometry_.coneLabel == ConeLabel::Sector) {
    const double dy = apexAbove_ ? y - apexY_ : apexY_ - y;
    const double r = std::hypot(x, dy), psi = std::atan2(x, dy);
    return {apexAbove_ ? r - planeTop_ : planeTop_ - r, psi / std::abs(sinAlpha_)};
  }
  const double reference = geometry_.kind == GeometryKind::Cone ? bottomRadius_ : topRadius_;
  return {y - y0_, x / reference};
}

cv::Point2d LabelSurface::pixelOf(double t, double phi) const {
  if (geometry_.kind == GeometryKind::Cone && geometry_.coneLabel == ConeLabel::Sector) {
    const double psi = phi * std::abs(sinAlpha_);
    const double r = apexAbove_ ? planeTop_ + t : planeTop_ - t;
    const double y = apexAbove_ ? apexY_ + r * std::cos(psi) : apexY_ - r * std::cos(psi);
    return {(r * std::sin(psi) + width_ / 2) / s_, y / s_};
  }
  const double reference = geometry_.kind == GeometryKind::Cone ? bottomRadius_ : topRadius_;
  return {(phi * reference + width_ / 2) / s_, (t + y0_) / s_};
}

cv::Vec2d LabelSurface::slantAngle(cv::Point2d p) const {
  return geometry_.curved() ? curvedSlantAngle(p) : cv::Vec2d(p.y * s_, p.x * s_);
}

cv::Point2d LabelSurface::pixelAt(double t, double phi) const {
  return geometry_.curved() ? pixelOf(t, phi) : cv::Point2d(phi / s_, t / s_);
}

cv::Point3d LabelSurface::onSurface(double t, double phi) const {
  const double rho = topRadius_ + t * sinAlpha_;
  const cv::Vec3d x = a0_ + t * cosAlpha_ * d_ + rho * (std::sin(phi) * kX - std::cos(phi) * e_);
  return {x[0], x[1], x[2]};
}

cv::Point3d LabelSurface::point(cv::Point2d p) const {
  if (!geometry_.curved()) return {p.x * s_, p.y * s_, 0.0};
  const cv::Vec2d tp = curvedSlantAngle(p);
  return onSurface(tp[0], tp[1]);
}

cv::Vec3d LabelSurface::normal(cv::Point2d p) const {
  if (!geometry_.curved()) return {0, 0, -1};
  const double phi = curvedSlantAngle(p)[1];
  return cosAlpha_ * (std::sin(phi) * kX - std::cos(phi) * e_) - sinAlpha_ * d_;
}

bool LabelSurface::onLabel(cv::Point2d p) const {
  if (!(p.x >= 0 && p.y >= 0 && p.x <= imageSize_.width && p.y <= imageSize_.height)) return false;
  if (!geometry_.curved()) return true;
  const cv::Vec2d tp = curvedSlantAngle(p);
  const double span = geometry_.coneLabel == ConeLabel::Sector && geometry_.kind == GeometryKind::Cone
                          ? halfAngle_ / std::abs(sinAlpha_)
                          : kPi * (1 + kSlack);
  return tp[0] >= -1e-9 && tp[0] <= slant_ * (1 + 1e-9) && std::abs(tp[1]) <= span * (1 + 1e-9);
}

cv::Point2d LabelSurface::labelPixel(cv::Point3d x) const {
  if (!geometry_.curved()) return {x.x / s_, x.y / s_};
  const cv::Vec3d q = cv::Vec3d(x.x, x.y, x.z) - a0_;
  const double h = q.dot(d_);
  const cv::Vec3d radial = q - h * d_;
  return pixelOf(h / cosAlpha_, std::atan2(radial.dot(kX), -radial.dot(e_)));
}

std::optional<cv::Point2d> LabelSurface::intersect(const cv::Vec3d& origin, const cv::Vec3d& direction) const {
  const std::optional<Hit> hit = castRay(origin, direction);
  if (!hit || !hit->outside || !hit->onLabel) return std::nullopt;  // from inside, or the bare part
  return hit->pixel;
}

std::optional<LabelSurface::Hit> LabelSurface::castRay(const cv::Vec3d& origin, const cv::Vec3d& direction) const {
  if (!geometry_.curved()) {
    if (!(std::abs(direction[2]) > 1e-15)) return std::nullopt;
    const double lambda = -origin[2] / direction[2];
    if (!(lambda > 1e-12)) return std::nullopt;
    const cv::Point2d p((origin[0] + lambda * direction[0]) / s_, (origin[1] + lambda * direction[1]) / s_);
    return Hit{p, lambda, direction[2] > 0, onLabel(p)};  // the print faces −z
  }
  // |o⊥ + λ·w⊥| = ρ(h0 + λ·hd), ρ(h) = top + tan α · h: a quadratic in λ.
  const cv::Vec3d o = origin - a0_;
  const double h0 = o.dot(d_), hd = direction.dot(d_);
  const cv::Vec3d oPerp = o - h0 * d_, wPerp = direction - hd * d_;
  const double tanAlpha = sinAlpha_ / cosAlpha_, rho0 = topRadius_ + tanAlpha * h0;
  const double a = wPerp.dot(wPerp) - tanAlpha * tanAlpha * hd * hd;
  const double b = 2 * (oPerp.dot(wPerp) - tanAlpha * hd * rho0);
  const double c = oPerp.dot(oPerp) - rho0 * rho0;
  double roots[2];
  int count = 0;
  if (std::abs(a) < 1e-12) {
    if (std::abs(b) > 1e-15) roots[count++] = -c / b;
  } else {
    const double disc = b * b - 4 * a * c;
    if (disc < 0) return std::nullopt;
    const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));  // the stable form
    roots[count++] = q / a;
    if (q != 0) roots[count++] = c / q;
    if (count == 2 && roots[1] < roots[0]) std::swap(roots[0], roots[1]);
  }
  for (int i = 0; i < count; ++i) {
    if (!(roots[i] > 1e-12)) continue;
    const cv::Vec3d x = origin + roots[i] * direction;
    const double t = (x - a0_).dot(d_) / cosAlpha_;
    if (t < -1e-9 || t > slant_ * (1 + 1e-9)) continue;  // past the body's edges: on it goes
    const cv::Point2d p = labelPixel({x[0], x[1], x[2]});
    return Hit{p, roots[i], normal(p).dot(direction) < 0, onLabel(p)};
  }
  return std::nullopt;
}

cv::Point3d LabelSurface::axisPoint() const {
  if (!geometry_.curved()) return {width_ / 2, imageSize_.height * s_ / 2, 0.0};
  return {a0_[0], a0_[1], a0_[2]};
}

cv::Vec3d LabelSurface::axisDirection() const { return geometry_.curved() ? d_ : cv::Vec3d(0, 0, 1); }

}  // namespace nft::detection
