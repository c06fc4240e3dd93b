#include "detection/target_geometry.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace nft::detection {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Slack of the length checks: a label cut to the full circumference, measured by hand, may come
// out a little longer than 2πr.
constexpr double kSlack = 1e-3;
// A sector label's image may be a little shorter than the sector its sizes make (a crop at the arcs).
constexpr double kSectorHeightSlack = 0.02;

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

[[noreturn]] void fail(const std::string& who, const std::string& what) { throw std::invalid_argument(who + ": " + what); }

void requirePositive(double v, const char* field, const std::string& who) {
  if (!(v > 0) || !std::isfinite(v)) fail(who, std::string(field) + " " + number(v) + " (expected a finite number > 0)");
}

void requireZero(double v, const char* field, const std::string& kind, const std::string& who) {
  if (v != 0) fail(who, std::string(field) + " " + number(v) + " is not used by a " + kind + " target (expected 0)");
}

}  // namespace

std::string toString(GeometryKind kind) {
  switch (kind) {
    case GeometryKind::Planar: return "planar";
    case GeometryKind::Cylinder: return "cylinder";
    case GeometryKind::Cone: return "cone";
  }
  return "?";
}

std::optional<GeometryKind> parseGeometryKind(const std::string& name) {
  for (const GeometryKind k : {GeometryKind::Planar, GeometryKind::Cylinder, GeometryKind::Cone})
    if (name == toString(k)) return k;
  return std::nullopt;
}

std::string toString(ConeLabel label) { return label == ConeLabel::Sector ? "sector" : "rectangle"; }

std::optional<ConeLabel> parseConeLabel(const std::string& name) {
  for (const ConeLabel l : {ConeLabel::Sector, ConeLabel::Rectangle})
    if (name == toString(l)) return l;
  return std::nullopt;
}

double labelHeightMetres(double widthMetres, cv::Size imageSize) {
  return imageSize.width > 0 ? widthMetres * imageSize.height / imageSize.width : 0.0;
}

void validateTargetGeometry(const TargetGeometry& g, double widthMetres, cv::Size imageSize, const std::string& who) {
  const std::string kind = toString(g.kind);
  if (kind == "?") fail(who, "geometry kind " + std::to_string(static_cast<int>(g.kind)) + " (expected planar, cylinder or cone)");
  if (g.kind == GeometryKind::Planar) {
    requireZero(g.radiusM, "radius_m", kind, who);
    requireZero(g.topRadiusM, "top_radius_m", kind, who);
    requireZero(g.bottomRadiusM, "bottom_radius_m", kind, who);
    requireZero(g.sideLengthM, "side_length_m", kind, who);
    return;
  }
  requirePositive(widthMetres, "width_m", who);
  if (imageSize.width <= 0 || imageSize.height <= 0)
    fail(who, "a " + kind + " target needs its label image (got " + std::to_string(imageSize.width) + "x" +
                  std::to_string(imageSize.height) + ")");
  if (g.kind == GeometryKind::Cylinder) {
    requirePositive(g.radiusM, "radius_m", who);
    requireZero(g.topRadiusM, "top_radius_m", kind, who);
    requireZero(g.bottomRadiusM, "bottom_radius_m", kind, who);
    requireZero(g.sideLengthM, "side_length_m", kind, who);
    const double circumference = 2 * kPi * g.radiusM;
    if (widthMetres > circumference * (1 + kSlack))
      fail(who, "the label's width (its arc length) width_m " + number(widthMetres) +
                    " is longer than the cylinder's circumference 2*pi*radius_m = " + number(circumference));
    return;
  }
  requireZero(g.radiusM, "radius_m", kind, who);
  for (const auto& [v, field] : {std::pair{g.topRadiusM, "top_radius_m"}, std::pair{g.bottomRadiusM, "bottom_radius_m"}})
    if (!(v >= 0) || !std::isfinite(v)) fail(who, std::string(field) + " " + number(v) + " (expected a finite number >= 0)");
  if (g.topRadiusM == g.bottomRadiusM)
    fail(who, "top_radius_m and bottom_radius_m are both " + number(g.topRadiusM) +
                  " (a cone's differ; equal radii are a cylinder: --geometry cylinder --radius-m)");
  requirePositive(g.sideLengthM, "side_length_m", who);
  const double drop = std::abs(g.bottomRadiusM - g.topRadiusM);
  if (!(g.sideLengthM > drop))
    fail(who, "side_length_m " + number(g.sideLengthM) + " is not longer than the radii's difference " + number(drop) +
                  " (the slant is the hypotenuse over it)");
  if (g.coneLabel == ConeLabel::Sector) {
    // The image is the sector's bounding box (detection/label_surface.h): its width sets the
    // sector's half-angle in the plane, which must stay within 90° and within the whole cone, and
    // the image must be as high as the sector then is (a crop at the arcs: 2 % of slack).
    const double k = drop / g.sideLengthM;  // |sin α|
    const double outer = std::max(g.topRadiusM, g.bottomRadiusM) / k, inner = std::min(g.topRadiusM, g.bottomRadiusM) / k;
    if (widthMetres > 2 * outer * (1 + kSlack))
      fail(who, "the sector label's width width_m " + number(widthMetres) +
                    " is wider than the sector's outer arc spans within 180 degrees (" + number(2 * outer) +
                    " m): give the label as a rectangle (cone_label rectangle)");
    const double halfAngle = std::asin(std::min(1.0, widthMetres / (2 * outer)));
    if (halfAngle > kPi * k * (1 + kSlack))
      fail(who, "the sector label width_m " + number(widthMetres) + " spans more than the whole cone (" +
                    number(2 * halfAngle * 180 / kPi) + " degrees in the plane, the cone unrolls to " + number(360 * k) +
                    "): check width_m, top_radius_m, bottom_radius_m and side_length_m");
    const double sectorHeight = outer - inner * std::cos(halfAngle);
    const double height = labelHeightMetres(widthMetres, imageSize);
    if (height < sectorHeight * (1 - kSectorHeightSlack))
      fail(who, "the sector label's image is " + number(height) +
                    " m high (width_m x rows / cols) but a sector of these radii and side_length_m, " +
                    number(widthMetres) + " m wide, is " + number(sectorHeight) +
                    " m high: check width_m, top_radius_m, bottom_radius_m and side_length_m");
  }
  if (g.coneLabel == ConeLabel::Rectangle) {
    const double circumference = 2 * kPi * g.bottomRadiusM;
    if (widthMetres > circumference * (1 + kSlack))
      fail(who, "the rectangle label's width width_m " + number(widthMetres) +
                    " is longer than the bottom edge's circumference 2*pi*bottom_radius_m = " + number(circumference));
    const double height = labelHeightMetres(widthMetres, imageSize);
    if (height > g.sideLengthM * (1 + kSlack))
      fail(who, "the rectangle label's height " + number(height) + " (width_m x rows / cols) is longer than side_length_m " +
                    number(g.sideLengthM));
  }
}

}  // namespace nft::detection
