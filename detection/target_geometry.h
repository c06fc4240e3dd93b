#pragma once
// The shape of the surface a target is printed on (issue 47, item 1): a plane (every target
// before), a cylinder (a label around a can or a bottle) or a cone (a sleeve on a cup). The model
// carries it (TargetModel::geometry), the .nftm and .nftdb formats store it, nft_train sets it.
//
// Units and conventions, metres:
// - planar: the target image is the flat print, TargetModel::widthMetres its width.
// - cylinder: the image is the label unrolled, its width the label's arc length around the axis
//   (TargetModel::widthMetres, at most the full circumference 2π·radiusM) and its height the
//   label's height along the axis (widthMetres · rows / cols: the image's aspect).
// - cone (a frustum): topRadiusM and bottomRadiusM at the label's top and bottom edges (one of
//   them may be 0: a full cone), sideLengthM the label's length along the slant. The label image
//   is either the unrolled annular sector as printed (ConeLabel::Sector, its bounding box) or a
//   rectangle whose width is the bottom edge's arc length and whose height is the slant
//   (ConeLabel::Rectangle, which the trainer unrolls).

#include <optional>
#include <string>

#include <opencv2/core.hpp>

namespace nft::detection {

/// The surface a target is printed on.
enum class GeometryKind { Planar, Cylinder, Cone };

/// How a cone's label image is laid out (see the top of this file).
enum class ConeLabel { Sector, Rectangle };

/// A target's surface; only the fields of its kind are used (the others stay 0). Metres.
struct TargetGeometry {
  GeometryKind kind = GeometryKind::Planar;
  /// cylinder: the radius, > 0.
  double radiusM = 0.0;
  /// cone: the radii at the label's top and bottom edges (>= 0, different, the larger > 0) and
  /// the label's length along the slant (> |bottomRadiusM − topRadiusM|).
  double topRadiusM = 0.0;
  double bottomRadiusM = 0.0;
  double sideLengthM = 0.0;
  ConeLabel coneLabel = ConeLabel::Sector;

  bool curved() const { return kind != GeometryKind::Planar; }
  bool operator==(const TargetGeometry& o) const {
    return kind == o.kind && radiusM == o.radiusM && topRadiusM == o.topRadiusM && bottomRadiusM == o.bottomRadiusM &&
           sideLengthM == o.sideLengthM && coneLabel == o.coneLabel;
  }
  bool operator!=(const TargetGeometry& o) const { return !(*this == o); }
};

/// "planar", "cylinder", "cone" (nft_train's --geometry, the list file's geometry=).
std::string toString(GeometryKind kind);
/// The kind of a name of toString(); std::nullopt for any other.
std::optional<GeometryKind> parseGeometryKind(const std::string& name);
/// "sector", "rectangle".
std::string toString(ConeLabel label);
std::optional<ConeLabel> parseConeLabel(const std::string& name);

/// Checks `geometry` for a label image of `imageSize` pixels that is `widthMetres` wide (> 0 for
/// a curved target: its size is what makes the surface's shape). Fields are named as nft_train's
/// options and the list file name them (radius_m, top_radius_m, bottom_radius_m, side_length_m).
/// @throws std::invalid_argument "<who>: <field> <value> (expected ...)" for a field that is not
///   finite or out of range, a field of another kind that is not 0, a cylinder label longer than
///   the circumference 2π·radius_m (1e-3 of slack), a cone whose radii are equal (a cylinder) or
///   whose slant is not longer than their difference, a rectangle label longer than the bottom
///   edge's circumference or taller than the slant, or a sector label (the image its bounding box,
///   detection/label_surface.h) wider than its outer arc spans within 180° or than the whole cone
///   unrolls to, or whose image is more than 2 % shorter than that sector.
void validateTargetGeometry(const TargetGeometry& geometry, double widthMetres, cv::Size imageSize,
                            const std::string& who);

/// The label's height along the axis for a cylinder, along the slant for a cone (rectangle label):
/// widthMetres · rows / cols, metres. 0 for an empty size.
double labelHeightMetres(double widthMetres, cv::Size imageSize);

}  // namespace nft::detection
