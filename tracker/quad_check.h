#pragma once
// Plausibility of a homography, judged by the quad it projects the target to.
//
// Not by the sign of det(H's upper-left 2×2): that determinant turns negative for legitimate
// views where the target is tilted far back (tmt_bookI frames 214–375), and a tracker that
// rejects such homographies (artoolkitX's does) loses the target exactly there. The projected
// quad's shape is what tells a real view from a degenerate RANSAC fit.

#include <string>

#include <opencv2/core.hpp>

namespace nft::tracker {

/// Limits of a plausible projected target quad. The defaults leave wide margins around what a
/// hand-held target gives (on tmt_bookI's 531 ground-truth frames: area 1.1 %–5.3 % of the
/// frame, shortest side 50 px, aspect change 0.95–2.84).
struct QuadLimits {
  /// Quad area as a fraction of the frame area, [min, max]. Below min the target is too small to
  /// track (0.002 of 800×600 is 960 px², about 31×31); above max the camera would sit implausibly
  /// close (the target covering four frames).
  double minAreaFraction = 0.002;
  double maxAreaFraction = 4.0;
  /// Shortest allowed side, pixels: shorter sides mean a collapsed quad.
  double minSidePx = 8.0;
  /// Largest allowed change of aspect, ≥ 1: with a = (mean of the top and bottom sides) / (mean
  /// of the left and right sides), a / (target width / height) must lie in
  /// [1 / maxAspectChange, maxAspectChange]. Tilting the target by θ changes it by about
  /// 1 / cos θ; 6 allows tilts up to about 80°.
  double maxAspectChange = 6.0;
  /// How far outside the frame a corner may lie, as a fraction of the frame's width (for x) and
  /// height (for y) beyond each edge.
  double maxOutsideFraction = 1.0;
};

/// The target's corners (0,0), (w,0), (w,h), (0,h) (target pixels, w × h = targetSize) mapped
/// by the homography H (target pixels → frame pixels), in that order (upper-left, upper-right,
/// lower-right, lower-left). Corners H sends to infinity come back as NaN.
void projectTargetCorners(const cv::Matx33d& H, cv::Size targetSize, cv::Point2d corners[4]);

/// Why the projected target quad is implausible, or an empty string if it is plausible. The
/// reason begins with one of these phrases (tests and logs rely on them), checked in this order:
/// "non-finite corner" (NaN/inf in H or a corner at infinity), "target crosses the horizon"
/// (the homogeneous w of the corners changes sign: part of the target would be behind the
/// camera), "corner far outside the frame", "not convex" (self-intersecting or concave),
/// "mirrored" (convex but wound the other way than the target: a reflection, which no camera
/// view of a plane gives), "side too short", "area too small", "area too large", "aspect".
/// Sizes in pixels.
/// @throws std::invalid_argument if targetSize or frameSize is not positive.
std::string quadProblem(const cv::Matx33d& H, cv::Size targetSize, cv::Size frameSize,
                        const QuadLimits& limits = QuadLimits{});

/// True if quadProblem() finds nothing wrong: the projected target is a convex quad wound as the
/// target is (upper-left → upper-right → lower-right → lower-left clockwise on screen, y down),
/// with finite corners not far outside the frame, sides and aspect not degenerate and an area
/// within the limits.
/// @throws std::invalid_argument if targetSize or frameSize is not positive.
bool plausibleQuad(const cv::Matx33d& H, cv::Size targetSize, cv::Size frameSize,
                   const QuadLimits& limits = QuadLimits{});

}  // namespace nft::tracker
