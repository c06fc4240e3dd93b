#include "apps/train/geometry_arguments.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace nft::train {
namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

std::string argumentName(const std::string& option, GeometryArguments::Naming naming) {
  if (naming == GeometryArguments::Naming::Options) return option;
  std::string key = option.compare(0, 2, "--") == 0 ? option.substr(2) : option;
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

detection::TargetGeometry geometryOf(const GeometryArguments& a, cv::Size imageSize, double& widthMetres,
                                     bool widthGiven) {
  const auto n = [&](const char* option) { return argumentName(option, a.naming); };
  const std::optional<detection::GeometryKind> kind = detection::parseGeometryKind(a.kind);
  if (!kind) throw std::invalid_argument(n("--geometry") + " '" + a.kind + "': expected planar, cylinder or cone");
  const std::optional<detection::ConeLabel> label = detection::parseConeLabel(a.coneLabel);
  if (!label) throw std::invalid_argument(n("--cone-label") + " '" + a.coneLabel + "': expected sector or rectangle");
  using Size = std::pair<const std::optional<double>*, const char*>;
  const std::vector<Size> sizes = {{&a.radius, "--radius-m"},
                                   {&a.height, "--height-m"},
                                   {&a.topRadius, "--top-radius-m"},
                                   {&a.bottomRadius, "--bottom-radius-m"},
                                   {&a.sideLength, "--side-length-m"}};
  const auto uses = [&](const char* option) {
    const std::string o = option;
    if (*kind == detection::GeometryKind::Cylinder) return o == "--radius-m" || o == "--height-m";
    if (*kind == detection::GeometryKind::Cone) return o != "--radius-m";
    return false;
  };
  for (const auto& [value, option] : sizes) {
    if (value->has_value() && !uses(option))
      throw std::invalid_argument(n(option) + " is not used by a " + a.kind + " target" +
                                  (*kind == detection::GeometryKind::Planar
                                       ? " (give " + n("--geometry") +
                                             (a.naming == GeometryArguments::Naming::Options ? " " : "=") +
                                             "cylinder or cone)"
                                       : ""));
    // A cone's radius may be 0 (its apex); every other size is a length > 0.
    const bool mayBeZero = std::string(option) == "--top-radius-m" || std::string(option) == "--bottom-radius-m";
    if (value->has_value() && (!std::isfinite(**value) || !(**value > 0 || (mayBeZero && **value == 0))))
      throw std::invalid_argument(n(option) + " " + number(**value) + ": expected a " +
                                  (mayBeZero ? "number of metres >= 0" : "positive number of metres"));
  }
  const auto need = [&](const std::optional<double>& value, const char* option) {
    if (!value)
      throw std::invalid_argument(n("--geometry") + (a.naming == GeometryArguments::Naming::Options ? " " : "=") +
                                  a.kind + " needs " + n(option));
    return *value;
  };
  detection::TargetGeometry g;
  g.kind = *kind;
  if (*kind == detection::GeometryKind::Cylinder) {
    g.radiusM = need(a.radius, "--radius-m");
  } else if (*kind == detection::GeometryKind::Cone) {
    g.topRadiusM = need(a.topRadius, "--top-radius-m");
    g.bottomRadiusM = need(a.bottomRadius, "--bottom-radius-m");
    g.sideLengthM = need(a.sideLength, "--side-length-m");
    g.coneLabel = *label;
  }
  if (a.height) {
    const double fromHeight = *a.height * imageSize.width / std::max(1, imageSize.height);
    if (widthGiven && std::abs(fromHeight - widthMetres) > 0.01 * widthMetres)
      throw std::invalid_argument(n("--height-m") + " " + number(*a.height) + " and " + n("--width-m") + " " +
                                  number(widthMetres) +
                                  " disagree for a " + std::to_string(imageSize.width) + "x" +
                                  std::to_string(imageSize.height) + " label image (its width is " +
                                  number(fromHeight) + " m at that height; give one of them)");
    widthMetres = fromHeight;
  }
  detection::validateTargetGeometry(g, widthMetres, imageSize, "the target's geometry");
  return g;
}

}  // namespace nft::train
