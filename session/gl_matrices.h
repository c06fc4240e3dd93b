#pragma once
// The OpenGL matrices of Session::projectionMatrix() and Session::viewMatrix(): a calibrated
// camera (OpenCV: looking down +z, y down) as an OpenGL camera (looking down −z, y up).

#include <array>

#include <opencv2/core.hpp>

namespace nft::session {

/// Column-major 4×4 (m[col·4 + row]) of `m`, as glUniformMatrix4fv takes it.
std::array<float, 16> columnMajor(const cv::Matx44d& m);

/// OpenGL projection of intrinsics K for an image of `imageSize`: eye (x right, y up, −z ahead)
/// → clip, so that a viewport over the whole image puts an eye point at the window position
/// (u + 0.5, H − v − 0.5) of its OpenCV pixel (u, v); depth near → −1, far → +1 (w = −z_eye).
/// @throws std::invalid_argument unless 0 < nearPlane < farPlane and the size is positive.
cv::Matx44d glProjection(const cv::Matx33d& K, cv::Size imageSize, double nearPlane, double farPlane);

/// diag(1, −1, −1, 1) · [R t; 0 0 0 1]: target coordinates → OpenGL eye coordinates.
cv::Matx44d glView(const cv::Matx33d& R, const cv::Vec3d& t);

}  // namespace nft::session
