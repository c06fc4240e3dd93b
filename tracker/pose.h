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

}  // namespace nft::tracker
