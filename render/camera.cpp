#include "render/camera.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/calib3d.hpp>

namespace nft::render {

cv::Matx44d modelViewMatrix(const Pose& pose) {
  cv::Matx33d R;
  cv::Rodrigues(pose.rvec, R);
  return {R(0, 0), R(0, 1), R(0, 2), pose.tvec[0],  //
          R(1, 0), R(1, 1), R(1, 2), pose.tvec[1],  //
          R(2, 0), R(2, 1), R(2, 2), pose.tvec[2],  //
          0.0,     0.0,     0.0,     1.0};
}

cv::Matx44d projectionMatrix(const Camera& camera, bool yDown) {
  const double W = camera.imageSize.width, H = camera.imageSize.height;
  if (camera.imageSize.width <= 0 || camera.imageSize.height <= 0)
    throw std::invalid_argument("render::Camera: empty image size " + std::to_string(camera.imageSize.width) + "x" +
                                std::to_string(camera.imageSize.height));
  const double n = camera.near, f = camera.far;
  if (!(n > 0.0) || !(f > n))
    throw std::invalid_argument("render::Camera: need 0 < near < far, got near " + std::to_string(n) + ", far " +
                                std::to_string(f));
  const cv::Matx33d& K = camera.K;
  // Window x of a pixel centre u (OpenCV) is u + 0.5; NDC x = 2 (u + 0.5) / W - 1, and
  // u·z = fx x + s y + cx z, so x_clip = NDC x · z is linear in (x, y, z). Same for y, whose
  // sign decides which way rows go.
  const double ySign = yDown ? 1.0 : -1.0;
  return {2.0 * K(0, 0) / W, 2.0 * K(0, 1) / W, 2.0 * (K(0, 2) + 0.5) / W - 1.0, 0.0,
          0.0, ySign * 2.0 * K(1, 1) / H, ySign * (2.0 * (K(1, 2) + 0.5) / H - 1.0), 0.0,
          0.0, 0.0, (f + n) / (f - n), -2.0 * f * n / (f - n),
          0.0, 0.0, 1.0, 0.0};
}

cv::Rect imageRectIn(cv::Size image, int targetWidth, int targetHeight) {
  if (image.width <= 0 || image.height <= 0 || targetWidth <= 0 || targetHeight <= 0)
    throw std::invalid_argument("render::imageRectIn: empty size");
  const double scale = std::min(static_cast<double>(targetWidth) / image.width,
                                static_cast<double>(targetHeight) / image.height);
  const int w = std::clamp(static_cast<int>(std::lround(image.width * scale)), 1, targetWidth);
  const int h = std::clamp(static_cast<int>(std::lround(image.height * scale)), 1, targetHeight);
  return {(targetWidth - w) / 2, (targetHeight - h) / 2, w, h};
}

}  // namespace nft::render
