// LabelSurface (issue 47, item 2): label pixels on the plane, the cylinder and the cone, checked
// against the geometry itself — distances from the axis, arc lengths, the unrolling's isometry,
// the normals, and rays cast from a camera back to the pixel they were aimed at.

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "detection/label_surface.h"
#include "support/target_geometries.h"

namespace nft::detection {
namespace {

using testing::cylinder;
using testing::cone;

constexpr double kPi = 3.14159265358979323846;

double norm(const cv::Point3d& p) { return std::sqrt(p.dot(p)); }

/// Distance of x from the surface's axis.
double fromAxis(const LabelSurface& s, const cv::Point3d& x) {
  const cv::Vec3d q = cv::Vec3d(x.x, x.y, x.z) - cv::Vec3d(s.axisPoint().x, s.axisPoint().y, s.axisPoint().z);
  const cv::Vec3d d = s.axisDirection();
  return cv::norm(q - q.dot(d) * d);
}

/// Pixels spread over the label (those onLabel() accepts).
std::vector<cv::Point2d> labelPixels(const LabelSurface& s, cv::Size size) {
  std::vector<cv::Point2d> out;
  for (int i = 0; i <= 10; ++i)
    for (int j = 0; j <= 10; ++j) {
      const cv::Point2d p(size.width * i / 10.0, size.height * j / 10.0);
      if (s.onLabel(p)) out.push_back(p);
    }
  return out;
}

/// Casts a ray from `camera` through each label pixel's point; those that face the camera must
/// come back as the pixel they were aimed at (within 1e-6 px).
int expectRaysReturnTheirPixels(const LabelSurface& s, cv::Size size, const cv::Vec3d& camera) {
  int hits = 0;
  for (const cv::Point2d& p : labelPixels(s, size)) {
    const cv::Point3d x = s.point(p);
    const cv::Vec3d w = cv::normalize(cv::Vec3d(x.x, x.y, x.z) - camera);
    if (s.normal(p).dot(w) > -0.05) continue;  // turned away from the camera, or grazing
    const std::optional<cv::Point2d> back = s.intersect(camera, w);
    if (!back) continue;  // hidden behind another part of the label (a full wrap)
    if (cv::norm(*back - p) < 1e-6) ++hits;
    else ADD_FAILURE() << "aimed at " << p << ", met " << *back;
  }
  return hits;
}

TEST(LabelSurface, APlanarTargetIsItsImageScaledToMetres) {
  const cv::Size size(400, 300);
  const LabelSurface s(TargetGeometry{}, 0.2, size);  // 0.5 mm a pixel
  EXPECT_LT(norm(s.point({100, 60}) - cv::Point3d(0.05, 0.03, 0.0)), 1e-15);
  EXPECT_EQ(s.normal({100, 60}), cv::Vec3d(0, 0, -1));
  EXPECT_LT(cv::norm(s.labelPixel({0.05, 0.03, 0.0}) - cv::Point2d(100, 60)), 1e-12);
  const std::optional<cv::Point2d> hit = s.intersect({0.05, 0.03, -1.0}, {0, 0, 1});
  ASSERT_TRUE(hit);
  EXPECT_NEAR(hit->x, 100, 1e-9);
  EXPECT_NEAR(hit->y, 60, 1e-9);
  EXPECT_FALSE(s.intersect({0.05, 0.03, 1.0}, {0, 0, -1})) << "from behind";
  EXPECT_FALSE(s.intersect({0.5, 0.03, -1.0}, {0, 0, 1})) << "beside the target";
  EXPECT_GT(expectRaysReturnTheirPixels(s, size, {0.1, 0.05, -0.4}), 100);
}

TEST(LabelSurface, ACylinderLabelWrapsWithoutStretching) {
  // A can's label: r = 3.3 cm, 0.15 m of arc (260°), 0.1 m high.
  const cv::Size size(600, 400);
  const double r = 0.033, W = 0.15;
  const LabelSurface s(cylinder(r), W, size);
  for (const cv::Point2d& p : labelPixels(s, size)) {
    EXPECT_NEAR(fromAxis(s, s.point(p)), r, 1e-12) << p;
    EXPECT_NEAR(s.point(p).y, p.y * W / size.width, 1e-12) << "the axis is the image's columns";
    const cv::Point3d back = s.point(s.labelPixel(s.point(p)));
    EXPECT_LT(norm(back - s.point(p)), 1e-12) << p;
    // The normal points away from the axis, and a step along the label is as long in 3D.
    const cv::Point3d x = s.point(p), axisFoot(s.axisPoint().x, x.y, s.axisPoint().z);
    const cv::Point3d outward = (x - axisFoot) * (1 / r);
    EXPECT_LT(norm(outward - cv::Point3d(s.normal(p)[0], s.normal(p)[1], s.normal(p)[2])), 1e-12) << p;
    const double step = norm(s.point(p + cv::Point2d(0.01, 0)) - s.point(p)) / (0.01 * W / size.width);
    EXPECT_NEAR(step, 1.0, 1e-6) << "the unrolling is an isometry";
  }
  // The middle column is the plane z = 0 at x = W/2, facing −z; the label's ends turn 130° away.
  EXPECT_LT(norm(s.point({300, 100}) - cv::Point3d(W / 2, 0.025, 0)), 1e-12);
  EXPECT_LT(cv::norm(s.normal({300, 100}) - cv::Vec3d(0, 0, -1)), 1e-12);
  EXPECT_NEAR(std::acos(-s.normal({0, 100})[2]) * 180 / kPi, W / 2 / r * 180 / kPi, 1e-9);
  // A radius of a kilometre is a flat print but for its sag, x² / 2r: 2.8 µm at the label's ends.
  const LabelSurface flat(cylinder(1000.0), W, size);
  const LabelSurface plane(TargetGeometry{}, W, size);
  for (const cv::Point2d& p : labelPixels(flat, size)) {
    const double x = p.x * W / size.width - W / 2;
    const cv::Point3d sag(0, 0, x * x / 2000.0);
    EXPECT_LT(norm(flat.point(p) - plane.point(p) - sag), 1e-9) << p;
  }
  // Rays from cameras in front of it and turned 70° round it come back to their pixels.
  EXPECT_GT(expectRaysReturnTheirPixels(s, size, {W / 2, 0.05, -0.3}), 40);
  EXPECT_GT(expectRaysReturnTheirPixels(s, size, {W / 2 + 0.3 * std::sin(1.2), 0.05, r - 0.3 * std::cos(1.2)}), 30);
  // The bare part of the can (where the label ends) blocks the ray; a ray past the can misses.
  const cv::Vec3d behind(W / 2, 0.05, 2 * r + 0.3);  // the side opposite the label's middle is bare
  EXPECT_FALSE(s.intersect(behind, {0, 0, -1}));
  EXPECT_FALSE(s.intersect({W / 2 + 2 * r, 0.05, -0.3}, {0, 0, 1}));
  EXPECT_FALSE(s.intersect({W / 2, 0.15, -0.3}, {0, 0, 1})) << "below the label's bottom edge";
  // castRay says what blocked it: the bare part from outside; the inside seen past the top edge.
  const std::optional<LabelSurface::Hit> bare = s.castRay(behind, {0, 0, -1});
  ASSERT_TRUE(bare);
  EXPECT_TRUE(bare->outside);
  EXPECT_FALSE(bare->onLabel);
  EXPECT_NEAR(bare->lambda, 0.3, 1e-9);
  const cv::Vec3d above(W / 2, -0.15, -0.3);  // looking down past the top edge at the inside of the far wall
  const std::optional<LabelSurface::Hit> inside = s.castRay(above, cv::normalize(cv::Vec3d(0, 0.17, 0.3 + r * 1.9)));
  ASSERT_TRUE(inside);
  EXPECT_FALSE(inside->outside);
  EXPECT_FALSE(s.intersect(above, cv::normalize(cv::Vec3d(0, 0.17, 0.3 + r * 1.9))));
  const std::optional<LabelSurface::Hit> front = s.castRay({W / 2, 0.05, -0.3}, {0, 0, 1});
  ASSERT_TRUE(front);
  EXPECT_TRUE(front->outside && front->onLabel);
  EXPECT_NEAR(front->pixel.x, 300, 1e-6);
}

TEST(LabelSurface, AFullWrapClosesOnItself) {
  const double r = 0.04;
  const cv::Size size(800, 300);
  const LabelSurface s(cylinder(r), 2 * kPi * r, size);
  EXPECT_LT(norm(s.point({0, 150}) - s.point({800, 150})), 1e-12);
  // From the front, each visible point is the nearer one: the far side is hidden.
  EXPECT_GT(expectRaysReturnTheirPixels(s, size, {kPi * r, 0.04, -0.25}), 30);
  const std::optional<cv::Point2d> hit = s.intersect({kPi * r, 0.03, -0.25}, {0, 0, 1});
  ASSERT_TRUE(hit);
  EXPECT_NEAR(hit->x, 400, 1e-6) << "the label's middle, not the far side";
}

TEST(LabelSurface, AConeLabelLiesOnItsFrustum) {
  // A cup's sleeve: radius 4.5 cm at the top, 3 cm at the bottom, 11 cm of slant.
  const double top = 0.045, bottom = 0.03, slant = 0.11;
  for (const ConeLabel layout : {ConeLabel::Sector, ConeLabel::Rectangle}) {
    SCOPED_TRACE(toString(layout));
    const double W = layout == ConeLabel::Sector ? 0.2 : 0.15;
    const cv::Size size = layout == ConeLabel::Sector ? cv::Size(800, 480) : cv::Size(600, 440);  // 0.11 m high
    const LabelSurface s(cone(top, bottom, slant, layout), W, size);
    for (const cv::Point2d& p : labelPixels(s, size)) {
      const cv::Point3d x = s.point(p);
      // The radius falls linearly down the slant, from 4.5 to 3 cm.
      const double t = (cv::Vec3d(x.x, x.y, x.z) - cv::Vec3d(s.axisPoint().x, s.axisPoint().y, s.axisPoint().z))
                           .dot(s.axisDirection()) /
                       std::sqrt(1 - std::pow((bottom - top) / slant, 2));
      EXPECT_GE(t, -1e-9);
      EXPECT_LE(t, slant + 1e-9);
      EXPECT_NEAR(fromAxis(s, x), top + (bottom - top) * t / slant, 1e-12) << p;
      EXPECT_LT(norm(s.point(s.labelPixel(x)) - x), 1e-12) << p;
      // The normal is perpendicular to the surface: to steps along the label both ways.
      const cv::Vec3d n = s.normal(p);
      for (const cv::Point2d& step : {cv::Point2d(0.01, 0), cv::Point2d(0, 0.01)}) {
        const cv::Point3d dx = s.point(p + step) - s.point(p - step);  // central: the chord is the tangent
        EXPECT_LT(std::abs(n.dot(cv::Vec3d(dx.x, dx.y, dx.z))) / norm(dx), 1e-5) << p;
      }
      if (layout == ConeLabel::Sector) {
        const double stretch = norm(s.point(p + cv::Point2d(0.01, 0.01)) - x) / (0.01 * std::sqrt(2.0) * W / size.width);
        EXPECT_NEAR(stretch, 1.0, 1e-5) << "the sector unrolls without stretching";
      }
    }
    EXPECT_LT(cv::norm(s.normal({size.width / 2.0, 200}) - cv::Vec3d(0, 0, -1)), 1e-12);
    EXPECT_NEAR(s.point({size.width / 2.0, 200}).z, 0, 1e-12) << "the middle column lies in z = 0";
    EXPECT_GT(expectRaysReturnTheirPixels(s, size, {W / 2, 0.05, -0.3}), 30);
  }
  // The rectangle's bottom edge is the bottom rim's arc: 0.15 m of it, 286°.
  const LabelSurface rect(cone(top, bottom, slant, ConeLabel::Rectangle), 0.15, {600, 440});
  double arc = 0;
  for (int u = 0; u < 600; ++u) arc += norm(rect.point({u + 1.0, 440}) - rect.point({u + 0.0, 440}));
  EXPECT_NEAR(arc, 0.15, 1e-6);
  // The sector's top edge is an arc of the top rim: as long in 3D as in the plane.
  const LabelSurface sector(cone(top, bottom, slant, ConeLabel::Sector), 0.2, {800, 480});
  EXPECT_FALSE(sector.onLabel({2, 478})) << "the bounding box's corner, outside the sector";
  EXPECT_TRUE(sector.onLabel({400, 5}));
}

TEST(LabelSurface, ASectorThatCannotBeIsRefused) {
  const auto problem = [](const TargetGeometry& g, double w, cv::Size size) -> std::string {
    try {
      LabelSurface s(g, w, size);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(valid)";
  };
  // Plane radii 0.33 and 0.22 m: at most 0.66 m wide; an image too short for the sector it spans.
  EXPECT_EQ(problem(cone(0.045, 0.03, 0.11, ConeLabel::Sector), 0.2, {800, 480}), "(valid)");
  EXPECT_NE(problem(cone(0.045, 0.03, 0.11, ConeLabel::Sector), 0.2, {800, 300}).find("m high (width_m x rows / cols)"),
            std::string::npos);
  EXPECT_NE(problem(cone(0.045, 0.03, 0.11, ConeLabel::Sector), 0.7, {800, 800}).find("within 180 degrees"),
            std::string::npos);
  // A steep cone unrolls to a narrow sector: r 1 → 2 cm over 10 cm of slant is 36° in all.
  EXPECT_NE(problem(cone(0.01, 0.02, 0.1, ConeLabel::Sector), 0.2, {400, 400}).find("more than the whole cone"),
            std::string::npos);
  EXPECT_NE(problem(cylinder(-1), 0.1, {400, 400}).find("radius_m -1"), std::string::npos) << "the geometry's check";
}

}  // namespace
}  // namespace nft::detection
