#pragma once
// Camera pose of a planar target from point correspondences or a homography: planar PnP by IPPE
// (Collins & Bartoli, "Infinitesimal Plane-Based Pose Estimation", IJCV 109(3), 2014), then
// Levenberg-Marquardt refinement of the reprojection error (cv::solvePnPRefineLM).
//
// Conventions (the same as render::Pose in render/camera.h; tracker/ does not use render/):
// X_cam = R·X_target + t with R = Rodrigues(rvec); the target is the plane z = 0 with x to the
// right and y down along the target image, origin at its top-left corner; a target pixel
// (u, v) is the 3D point (u·mpp, v·mpp, 0) with mpp metres per target pixel
// (detection::TargetModel::metresPerPixel()), so t is in metres when the target's width is
// known. With mpp = 0 (width unknown) target pixels are the unit instead.
// refinePose() refines a pose on points of any surface (a curved label's tracking lane).

#include <vector>

#include <opencv2/core.hpp>

#include "tracker/camera_calibration.h"

namespace nft::tracker {

/// Pose of the target frame in camera coordinates, with how well it explains the points.
struct Pose {
  cv::Vec3d rvec;  ///< rotation vector (axis × angle), radians; R = Rodrigues(rvec)
  cv::Vec3d tvec;  ///< translation: the target origin in camera coordinates, metres (see mpp)
  /// Mean Euclidean distance between the frame points and the target points projected with the
  /// pose (distortion included), pixels.
  double reprojectionErrorPx = 0.0;
  /// Number of correspondences the pose was fitted to (the caller's RANSAC inliers).
  int inliers = 0;
};

/// Pose from target ↔ frame correspondences: target pixels → (x·mpp, y·mpp, 0), planar PnP by
/// IPPE (cv::SOLVEPNP_IPPE: the better of its two solutions by reprojection error), then, with
/// `refine`, cv::solvePnPRefineLM on the same points. `targetPixels[i]` (target working-image pixels)
/// corresponds to `framePixels[i]` (distorted frame pixels of calibration.imageSize; use
/// scaledTo() for other frame sizes). `metresPerPixel`: > 0 for metric poses, 0 if unknown
/// (target pixels become the unit).
/// @throws std::invalid_argument for fewer than 4 points, different sizes, non-finite points or
///   metresPerPixel < 0 or non-finite; std::runtime_error if IPPE finds no pose (e.g. all
///   target points on a line).
Pose estimatePose(const CameraCalibration& calibration, const std::vector<cv::Point2f>& targetPixels,
                  const std::vector<cv::Point2f>& framePixels, double metresPerPixel, bool refine = true);

/// estimatePose() in double precision (float pixel coordinates carry ~1e-5 px of rounding at
/// 800 px, which bounds how exact a float-input pose can be).
Pose estimatePose(const CameraCalibration& calibration, const std::vector<cv::Point2d>& targetPixels,
                  const std::vector<cv::Point2d>& framePixels, double metresPerPixel, bool refine = true);

/// The mean Euclidean distance, pixels, between `framePixels[i]` and `targetPixels[i]` projected
/// with `pose` (target pixels → (x·mpp, y·mpp, 0) as estimatePose()'s, distortion included): the
/// reprojection error of a pose found some other way (e.g. poseFromHomography()) over the same
/// correspondences. 0 for no points.
/// @throws std::invalid_argument for different sizes or metresPerPixel < 0 or non-finite.
double meanReprojectionErrorPx(const CameraCalibration& calibration, const Pose& pose,
                               const std::vector<cv::Point2f>& targetPixels,
                               const std::vector<cv::Point2f>& framePixels, double metresPerPixel);

/// Pose from a homography H (target pixels → frame pixels, e.g. RANSAC's): a gridSize ×
/// gridSize grid of target points spanning the target's corners (0,0), (w,0), (w,h), (0,h)
/// (w × h = targetSize, pixels; gridSize = 2: the 4 corners) is mapped by H and fed to
/// estimatePose(). reprojectionErrorPx then measures how far H is from a homography this
/// camera can produce, inliers = gridSize². `refine` as estimatePose()'s (the grid points fit H
/// exactly, so Levenberg-Marquardt only trades H's non-rigid part between them: IPPE alone is
/// 0.03 ms, with it 0.2 ms).
/// @throws std::invalid_argument if targetSize is not positive, gridSize < 2, H is not finite
///   or sends a grid point to infinity or behind the image plane (homogeneous w of mixed sign),
///   or metresPerPixel is invalid (as estimatePose()).
Pose poseFromHomography(const CameraCalibration& calibration, const cv::Matx33d& H, cv::Size targetSize,
                        double metresPerPixel, int gridSize = 2, bool refine = true);

/// The 2 × 3 derivative of the frame pixel q = K·Xc / z by the camera-frame point Xc (metres,
/// z > 0), given q itself (frame pixels): row 0 ∂qx/∂Xc, row 1 ∂qy/∂Xc; K upper triangular, no
/// distortion (Hartley & Zisserman, 2nd ed., 6.2). Shared by refinePose() and the curved lane's
/// dense refinement (tracker/curved_refiner.cpp).
inline cv::Matx23d projectionJacobian(const cv::Matx33d& K, const cv::Vec3d& Xc, const cv::Point2d& q) {
  const double iz = 1.0 / Xc[2];
  return {K(0, 0) * iz, K(0, 1) * iz, -(q.x - K(0, 2)) * iz, 0, K(1, 1) * iz, -(q.y - K(1, 2)) * iz};
}

/// Levenberg-Marquardt refinement of a pose on 3D ↔ 2D correspondences, from and into
/// (rvec, tvec): minimises the sum of squared reprojection errors (pixels²) of `object[i]`
/// (target-frame points, metres; any surface, not only z = 0) against `image[i]` (frame pixels of
/// calibration.imageSize) over the indices in `subset` (all points when it is null). What
/// cv::solvePnPRefineLM computes, in closed form for a camera without distortion: each step
/// solves the 6 × 6 normal equations of the rows ∂q/∂Xc · [−[Xc]× | I] (the update composed on
/// the left, Xc ← exp([ω]×)·Xc + v; Hartley & Zisserman, 2nd ed., A6.2), scaled to a unit
/// diagonal and damped by Marquardt's λ; at most 20 steps, until a step lowers the error by
/// less than 1e-10 of itself. (cv::solvePnPRefineLM takes 8–11 times as long through its
/// generic solver and projectPoints' full Jacobians: 60 % of a curved target's tracking time.)
/// `streaks` (optional, indexed as `object`): each point's blur streak, frame pixels (its motion
/// during the exposure; zero for none). A point found in a frame blurred along a streak of length
/// L is placed precisely across it but loosely along it: its residual along the streak weighs
/// 1 / (1 + (kAlongStreakSigmaPerPx·L)²) (tracker/blur_aware_fit.h, the planar lane's rule).
/// With distortion coefficients: cv::solvePnPRefineLM on the subset (streaks ignored).
/// Returns false, (rvec, tvec) untouched, for fewer than 3 points or a point on or behind the
/// camera's plane under the starting pose.
/// @throws std::invalid_argument when object, image (and streaks) differ in size or `subset`
///   names an index outside them.
bool refinePose(const CameraCalibration& calibration, const std::vector<cv::Point3d>& object,
                const std::vector<cv::Point2d>& image, const std::vector<int>* subset, cv::Vec3d& rvec,
                cv::Vec3d& tvec, const std::vector<cv::Point2d>* streaks = nullptr);

}  // namespace nft::tracker
