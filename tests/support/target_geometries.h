#pragma once
// Curved target geometries for the tests (detection/target_geometry.h), field by field.

#include "detection/target_geometry.h"

namespace nft::testing {

/// A label around a cylinder of `radius` metres.
inline detection::TargetGeometry cylinder(double radius) {
  detection::TargetGeometry g;
  g.kind = detection::GeometryKind::Cylinder;
  g.radiusM = radius;
  return g;
}

/// A label on a cone between the radii `top` and `bottom`, `side` metres along the slant.
inline detection::TargetGeometry cone(double top, double bottom, double side,
                                      detection::ConeLabel label = detection::ConeLabel::Sector) {
  detection::TargetGeometry g;
  g.kind = detection::GeometryKind::Cone;
  g.topRadiusM = top;
  g.bottomRadiusM = bottom;
  g.sideLengthM = side;
  g.coneLabel = label;
  return g;
}

}  // namespace nft::testing
