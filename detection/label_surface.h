#pragma once
// Where each pixel of a target's image lies in 3D (issue 47, item 2): on the plane of a flat
// print, or on the cylinder or cone a label is wrapped around (detection/target_geometry.h). The
// detection lane's 2D–3D correspondences, the views of a turned label the trainer renders and the
// surface the renderer draws all come from here.
//
// The target's frame (metres), the same for every kind, so that a curved target's pose reads as a
// planar one's (nft/types.h): the tangent plane along the label's middle column is z = 0, with x
// along the image's rows and y down its columns; the middle column is the line x = W/2 (W the
// label's width, TargetModel::widthMetres), at y equal to its image row times the metres per
// pixel s = W / cols; the surface bends away from a camera facing it, towards +z. A flat print is
// that plane itself: pixel (u, v) at (u·s, v·s, 0). A label is wrapped without stretching (the
// unrolling is an isometry) except a cone's rectangle label, whose columns are spread over the
// generators.
//
// A point of a cylinder or cone is (t, φ): t the distance down the slant from the label's top
// edge (along the axis for a cylinder), φ the angle about the axis from the middle column
// (positive towards +x). The cone's half-angle α: sin α = (bottom − top radius) / slant.
//  - cylinder: t = v·s, φ = (u·s − W/2) / radius.
//  - cone, rectangle label: t = v·s, φ = (u·s − W/2) / bottom radius (the image's width is the
//    bottom edge's arc).
//  - cone, sector label: the image is the bounding box of the printed annular sector, symmetric
//    about the middle column; its apex on that column, above the image when the bottom radius is
//    the larger (the top edge the inner arc, whose ends touch the image's top), below it when the
//    top radius is (the top edge the outer arc, whose middle touches the top). The arcs' radii in
//    the plane are R = radius / |sin α|; the sector's half-angle ψ is asin(W / 2·R_outer), and a
//    point at plane angle ψ from the middle column is at φ = ψ / |sin α|.

#include <optional>

#include <opencv2/core.hpp>

#include "detection/target_geometry.h"

namespace nft::detection {

/// The surface of one target's label (see the top of this file).
class LabelSurface {
 public:
  /// `imageSize`: the label image the pixels refer to (TargetModel::image, working pixels);
  /// `widthMetres`: its width (TargetModel::widthMetres), > 0 for a curved target.
  /// @throws std::invalid_argument as validateTargetGeometry (the fields named; a sector label
  ///   wider than 180° in the plane or than the whole cone, or whose image is shorter than the
  ///   sector those sizes make).
  LabelSurface(const TargetGeometry& geometry, double widthMetres, cv::Size imageSize);

  const TargetGeometry& geometry() const { return geometry_; }
  /// Metres per label pixel, s = W / cols.
  double metresPerPixel() const { return s_; }

  /// The 3D point of label pixel `p` (working pixels), metres, in the target's frame. Defined for
  /// any p (the surface goes on past the label).
  cv::Point3d point(cv::Point2d p) const;
  /// The unit normal at label pixel `p` on the printed side: (0, 0, −1) on the middle column,
  /// towards a camera that faces the label.
  cv::Vec3d normal(cv::Point2d p) const;
  /// True when `p` is on the printed label: inside the image ([0, cols] × [0, rows]) and, for a
  /// sector label, inside the sector; for a cylinder or rectangle label also within one turn.
  bool onLabel(cv::Point2d p) const;
  /// The label pixel of a point on the surface (`point()`'s inverse, φ in (−π, π]); for a point
  /// off it, the pixel of its nearest generator's point at the same distance along the axis.
  cv::Point2d labelPixel(cv::Point3d x) const;
  /// Where the ray origin + λ·direction (λ > 0, metres, the target's frame) first meets the
  /// target: the label pixel when that is on the label's printed side; std::nullopt when the ray
  /// misses the surface between the label's top and bottom edges, meets it off the label (the
  /// bare part of a can) or from inside. A cylinder or cone is opaque there.
  std::optional<cv::Point2d> intersect(const cv::Vec3d& origin, const cv::Vec3d& direction) const;

  /// What a ray meets first: the point's label pixel (labelPixel(); for a plane, where it meets
  /// z = 0), its distance along the ray (λ, in the direction's units), whether the ray meets the
  /// surface from outside (the printed side: the normal against the ray; a plane from −z) and
  /// whether the point is on the label (onLabel()).
  struct Hit {
    cv::Point2d pixel;
    double lambda = 0;
    bool outside = false;
    bool onLabel = false;
  };
  /// The first point where origin + λ·direction (λ > 0) meets the surface between the label's
  /// top and bottom edges, on the label or its bare part, from outside or inside (a flat print:
  /// the plane z = 0, every point of it); std::nullopt when it misses. intersect() is the hit
  /// when outside and on the label. What the synthetic curved sequences draw a can's body with.
  std::optional<Hit> castRay(const cv::Vec3d& origin, const cv::Vec3d& direction) const;

  /// A curved label's coordinates: (t, φ) of label pixel `p` — t metres down the slant from the
  /// top edge (along the axis for a cylinder), φ radians about the axis from the middle column —
  /// and the label pixel of (t, φ). A flat print's: (y, x) metres, and back.
  cv::Vec2d slantAngle(cv::Point2d p) const;
  cv::Point2d pixelAt(double t, double phi) const;

  /// The axis of a cylinder or cone: a point on it (level with the label's top edge) and its unit
  /// direction (down the label). For a flat print: the image's centre and the normal (0, 0, 1).
  cv::Point3d axisPoint() const;
  cv::Vec3d axisDirection() const;

 private:
  cv::Point3d onSurface(double t, double phi) const;
  cv::Point2d pixelOf(double t, double phi) const;
  cv::Vec2d curvedSlantAngle(cv::Point2d p) const;

  TargetGeometry geometry_;
  cv::Size imageSize_;
  double s_ = 0;         // metres per pixel
  double width_ = 0;     // W, metres
  double topRadius_ = 0, bottomRadius_ = 0, slant_ = 0;  // the cylinder's: radius, radius, label height
  double sinAlpha_ = 0, cosAlpha_ = 1;
  double y0_ = 0;        // the image y (metres) of the middle column's top-edge point
  cv::Vec3d a0_, d_, e_;  // axis point level with the top edge, axis direction, inward radial at φ = 0
  // The sector label's plane: apex at (W/2, apexY_), arcs' radii, half-angle; apexAbove_.
  double apexY_ = 0, planeTop_ = 0, halfAngle_ = 0;
  bool apexAbove_ = true;
};

}  // namespace nft::detection
