#pragma once
// Ground-truth correspondences between the keypoints of two images related by a homography,
// after Mikolajczyk & Schmid, "A performance evaluation of local descriptors", PAMI 27(10) 2005
// (the framework seeds/000 section 5.2 uses): a keypoint a of img1 and b of imgN correspond
// when H maps a within a few pixels of b AND their regions overlap — overlap error
// 1 − |R_a ∩ R_b| / |R_a ∪ R_b| below 0.5, where R_a is a's region mapped into imgN.
//
// Regions: the circle of radius k·s around a keypoint (s = SURF scale, keypoint.h; k = 10 by
// default, the circle inscribed in SURF's 20s window, i.e. 30 px at pyramid level 0 — the size
// Mikolajczyk's framework normalises regions to). a's circle is mapped into imgN by the local
// affine approximation of H at a (its Jacobian), an ellipse centred at H(a). The overlap of the
// ellipse and b's circle is computed exactly up to quadrature: both are convex and contain the
// midpoint p of their centres (checked), so both are star-shaped about p with radial functions
// ρ1(θ), ρ2(θ), and |R1 ∩ R2| = ½∮min(ρ1, ρ2)² dθ, |R1 ∪ R2| = ½∮max(ρ1, ρ2)² dθ (720 steps).
//
// The limit is strict, as Mikolajczyk's "overlap error < 50%": the same corner found one √2
// pyramid level apart in an unchanged view has an error of exactly 0.5 and is not a
// correspondence (its descriptors describe windows of different sizes). An error within 1e-4 of
// the limit counts as at the limit, so float rounding of the scales cannot flip that case.

#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"

namespace nft::eval {

/// Settings of findCorrespondences().
struct CorrespondenceOptions {
  /// Largest |H·a − b| in imgN pixels. Allowed: > 0.
  double maxDistancePx = 2.5;
  /// Overlap error limit (strict, see above); 1 or more turns the region test off (position only).
  double maxOverlapError = 0.5;
  /// k: region radius = k · keypoint scale, pixels. Allowed: > 0.
  double regionRadiusPerScale = 10.0;
};

/// H applied to (x, y): the dehomogenised image point. NaN coordinates when the point maps to
/// infinity (third coordinate 0).
cv::Point2d mapPoint(const cv::Matx33d& h, cv::Point2d p);

/// The Jacobian of the mapping x ↦ H(x) at p: the 2 × 2 local affine approximation of H.
cv::Matx22d homographyJacobian(const cv::Matx33d& h, cv::Point2d p);

/// Overlap error in [0, 1] of keypoint a of img1 (region mapped by the local affine
/// approximation of h at a) and keypoint b of imgN; 1 when the regions are disjoint or the
/// midpoint of their centres lies outside either (centres too far apart for this test).
/// @param radiusPerScale k (region radius = k·scale), > 0.
double overlapError(const cv::Matx33d& h, const detection::Keypoint& a, const detection::Keypoint& b,
                    double radiusPerScale);

/// Which keypoints lie in the part of the scene both images show: entry i is true when
/// h maps keypoints[i] inside [0, otherSize.width − 1] × [0, otherSize.height − 1].
/// Pass H to test img1's keypoints against imgN and H⁻¹ for imgN's against img1.
std::vector<bool> visibleIn(const cv::Matx33d& h, const std::vector<detection::Keypoint>& keypoints,
                            cv::Size otherSize);

/// All pairs (i, j) such that keypoints1[i] (img1) and keypointsN[j] (imgN) correspond under
/// h (img1 → imgN) by the position and overlap tests above. A keypoint may take part in several
/// pairs (e.g. a corner found on two pyramid levels). Sorted by i, then j.
/// @throws std::invalid_argument for options outside their allowed ranges.
std::vector<std::pair<int, int>> findCorrespondences(const cv::Matx33d& h,
                                                     const std::vector<detection::Keypoint>& keypoints1,
                                                     const std::vector<detection::Keypoint>& keypointsN,
                                                     const CorrespondenceOptions& options = {});

}  // namespace nft::eval
