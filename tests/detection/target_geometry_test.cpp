// Target geometry (issue 47, item 1): the names of the kinds, and the check of a geometry
// against its label's size, each refusal naming the field.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "detection/target_geometry.h"
#include "support/target_geometries.h"

namespace nft::detection {
namespace {

using testing::cylinder;
using testing::cone;

/// validateTargetGeometry's message, or "(valid)".
std::string problem(const TargetGeometry& g, double widthMetres, cv::Size image = {640, 480}) {
  try {
    validateTargetGeometry(g, widthMetres, image, "test");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(valid)";
}

TEST(TargetGeometry, NamesRoundTrip) {
  for (const GeometryKind k : {GeometryKind::Planar, GeometryKind::Cylinder, GeometryKind::Cone})
    EXPECT_EQ(parseGeometryKind(toString(k)), k);
  EXPECT_EQ(toString(GeometryKind::Cylinder), "cylinder");
  EXPECT_FALSE(parseGeometryKind("sphere"));
  EXPECT_FALSE(parseGeometryKind("Cylinder"));
  EXPECT_EQ(parseConeLabel("rectangle"), ConeLabel::Rectangle);
  EXPECT_EQ(parseConeLabel("sector"), ConeLabel::Sector);
  EXPECT_FALSE(parseConeLabel("square"));
  EXPECT_FALSE(TargetGeometry{}.curved());
  EXPECT_TRUE(cylinder(0.03).curved());
}

TEST(TargetGeometry, ACylinderLabelFitsAroundIt) {
  // A can of radius 3.3 cm: circumference 0.2073 m.
  EXPECT_EQ(problem(cylinder(0.033), 0.15), "(valid)");
  EXPECT_EQ(problem(cylinder(0.033), 2 * M_PI * 0.033), "(valid)") << "the full circumference";
  EXPECT_NE(problem(cylinder(0.033), 0.21).find("longer than the cylinder's circumference"), std::string::npos)
      << problem(cylinder(0.033), 0.21);
  for (const double bad : {0.0, -0.03, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    EXPECT_NE(problem(cylinder(bad), 0.1).find("radius_m"), std::string::npos) << problem(cylinder(bad), 0.1);
  EXPECT_NE(problem(cylinder(0.033), 0.0).find("width_m 0"), std::string::npos);
  EXPECT_NE(problem(cylinder(0.033), 0.1, {0, 0}).find("needs its label image"), std::string::npos);
  TargetGeometry mixed = cylinder(0.033);
  mixed.sideLengthM = 0.1;
  EXPECT_NE(problem(mixed, 0.1).find("side_length_m 0.1 is not used by a cylinder target"), std::string::npos)
      << problem(mixed, 0.1);
  EXPECT_DOUBLE_EQ(labelHeightMetres(0.16, {640, 480}), 0.12);
}

TEST(TargetGeometry, AConeIsAFrustumWithASlantLongerThanItsRadiiDiffer) {
  EXPECT_EQ(problem(cone(0.045, 0.03, 0.12), 0.2), "(valid)");
  EXPECT_EQ(problem(cone(0.0, 0.05, 0.12), 0.2), "(valid)") << "a full cone: its apex at the top";
  EXPECT_NE(problem(cone(0.04, 0.04, 0.12), 0.2).find("equal radii are a cylinder"), std::string::npos);
  EXPECT_NE(problem(cone(0.1, 0.03, 0.05), 0.2).find("side_length_m 0.05 is not longer than"), std::string::npos)
      << problem(cone(0.1, 0.03, 0.05), 0.2);
  EXPECT_NE(problem(cone(-0.01, 0.03, 0.1), 0.2).find("top_radius_m -0.01"), std::string::npos);
  EXPECT_NE(problem(cone(0.045, 0.03, 0.0), 0.2).find("side_length_m 0"), std::string::npos);
  // A rectangle label: its width around the bottom edge, its height (the image's aspect) along
  // the slant. 0.16 m wide at 640 × 480 is 0.12 m high.
  EXPECT_EQ(problem(cone(0.045, 0.03, 0.12, ConeLabel::Rectangle), 0.16), "(valid)");
  EXPECT_NE(problem(cone(0.045, 0.03, 0.11, ConeLabel::Rectangle), 0.16).find("longer than side_length_m"),
            std::string::npos);
  EXPECT_NE(problem(cone(0.045, 0.02, 0.2, ConeLabel::Rectangle), 0.16).find("bottom edge's circumference"),
            std::string::npos);
  TargetGeometry mixed = cone(0.045, 0.03, 0.12);
  mixed.radiusM = 0.04;
  EXPECT_NE(problem(mixed, 0.2).find("radius_m 0.04 is not used by a cone target"), std::string::npos);
}

TEST(TargetGeometry, APlanarTargetHasNoCurvedFields) {
  EXPECT_EQ(problem(TargetGeometry{}, 0.2), "(valid)");
  EXPECT_EQ(problem(TargetGeometry{}, 0.0, {0, 0}), "(valid)") << "a planar model needs no width to be planar";
  TargetGeometry g;
  g.radiusM = 0.05;
  EXPECT_NE(problem(g, 0.2).find("radius_m 0.05 is not used by a planar target"), std::string::npos) << problem(g, 0.2);
  EXPECT_NE(problem(g, 0.2).find("test: "), std::string::npos) << "the caller's name first";
}

}  // namespace
}  // namespace nft::detection
