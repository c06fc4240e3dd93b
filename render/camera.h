#pragma once
// Camera model, pose and the GL matrices built from them, shared by every renderer.
//
// Conventions (the whole of render/):
// - Camera: OpenCV's pinhole model. K = [fx 0 cx; 0 fy cy; 0 0 1] in pixels for an image of
//   imageSize (width × height pixels); the camera looks down +z, image x to the right, image y
//   down; the centre of pixel (i, j) is at (i, j) (OpenCV), which is (i + 0.5, j + 0.5) in GL
//   window coordinates. No lens distortion: undistort first, or accept its error.
// - Pose: (rvec, tvec) as cv::solvePnP returns and cv::projectPoints takes: X_cam = R·X_target + t,
//   R = Rodrigues(rvec). Units of t: metres (the target's units).
// - Target: the plane z = 0, x to the right and y down along the target image, origin at the
//   target image's top-left corner, metres; width w, height h = w·rows/cols. With a typical
//   pose (t_z > 0, R near identity) the camera sits on the z < 0 side, so "up", out of the
//   target towards the camera, is −z: augmentations standing on the target extend along −z.
// - GL projection: projectionMatrix() maps a camera-frame point to clip coordinates so that the
//   GL pipeline puts it on the pixel cv::projectPoints gives (to rasterisation accuracy) when
//   the viewport is the image's rectangle. Depth: near → −1, far → +1 in NDC.
// - Rows: for offscreen targets (yDown = true) NDC y grows with image y, so framebuffer row 0
//   (gpu/ layer's first row read back) is the picture's top row: read-back images compare
//   directly with projectPoints. For a window's default framebuffer (yDown = false) y is
//   flipped the usual GL way, so the picture appears upright on screen.

#include <opencv2/core.hpp>

namespace nft::render {

/// Camera intrinsics and clipping planes.
struct Camera {
  /// Intrinsic matrix in pixels (OpenCV layout; K(0,1) skew is honoured, K(2,·) must be 0 0 1).
  cv::Matx33d K = cv::Matx33d::eye();
  /// Size of the image K refers to, pixels.
  cv::Size imageSize{640, 480};
  /// Near and far clipping distances along the optical axis, metres; 0 < near < far. Geometry
  /// nearer than `near` or farther than `far` is clipped.
  double near = 0.01;
  double far = 100.0;
};

/// Camera pose of the target: X_cam = Rodrigues(rvec)·X_target + tvec (cv::solvePnP's output).
struct Pose {
  cv::Vec3d rvec;  ///< Rotation vector (axis × angle, radians).
  cv::Vec3d tvec;  ///< Translation, metres.
};

/// Model-view matrix of a pose: [R t; 0 0 0 1], target coordinates → camera coordinates.
cv::Matx44d modelViewMatrix(const Pose& pose);

/// The GL projection matrix of `camera` (column vectors: clip = P · [X_cam; 1]), for a viewport
/// covering exactly the camera image. `yDown`: true for offscreen targets read back with row 0
/// at the top (the gpu/ layer's convention), false for a window's default framebuffer.
/// @throws std::invalid_argument if the image size is empty or not 0 < near < far.
cv::Matx44d projectionMatrix(const Camera& camera, bool yDown);

/// Where a camera image of `image` pixels goes in a `targetWidth` × `targetHeight` framebuffer,
/// aspect ratio kept: the largest centred rectangle of the image's aspect (letterbox or
/// pillarbox bars on the rest). Returned in image-row order (x, y from the top-left of the
/// picture; y counts rows from the picture's top), pixels. Equal sizes give the whole target.
/// @throws std::invalid_argument for empty sizes.
cv::Rect imageRectIn(cv::Size image, int targetWidth, int targetHeight);

}  // namespace nft::render
