#include "session/gl_matrices.h"

#include <stdexcept>
#include <string>

namespace nft::session {

std::array<float, 16> columnMajor(const cv::Matx44d& m) {
  std::array<float, 16> out{};
  for (int col = 0; col < 4; ++col)
    for (int row = 0; row < 4; ++row) out[static_cast<size_t>(col * 4 + row)] = static_cast<float>(m(row, col));
  return out;
}

cv::Matx44d glProjection(const cv::Matx33d& K, cv::Size imageSize, double n, double f) {
  if (imageSize.width <= 0 || imageSize.height <= 0)
    throw std::invalid_argument("projection: empty image size " + std::to_string(imageSize.width) + "x" +
                                std::to_string(imageSize.height));
  if (!(n > 0.0) || !(f > n))
    throw std::invalid_argument("projection: near = " + std::to_string(n) + ", far = " + std::to_string(f) +
                                ": expected 0 < near < far");
  const double W = imageSize.width, H = imageSize.height;
  // An eye point (x, y, z) is the OpenCV camera point (x, −y, −z) =: (X, Y, Z), Z = −z > 0, at
  // pixel u = (fx X + s Y)/Z + cx, v = fy Y/Z + cy. Window x = u + 0.5, so NDC x = 2(u + 0.5)/W − 1;
  // window y counts up from the bottom: y_w = H − (v + 0.5), NDC y = 1 − 2(v + 0.5)/H. Multiplying
  // by w = Z = −z gives rows linear in (x, y, z).
  const double fx = K(0, 0), s = K(0, 1), cx = K(0, 2), fy = K(1, 1), cy = K(1, 2);
  return {2.0 * fx / W, -2.0 * s / W, -(2.0 * (cx + 0.5) / W - 1.0), 0.0,
          0.0, 2.0 * fy / H, -(1.0 - 2.0 * (cy + 0.5) / H), 0.0,
          0.0, 0.0, -(f + n) / (f - n), -2.0 * f * n / (f - n),
          0.0, 0.0, -1.0, 0.0};
}

cv::Matx44d glView(const cv::Matx33d& R, const cv::Vec3d& t) {
  return {R(0, 0), R(0, 1), R(0, 2), t[0],
          -R(1, 0), -R(1, 1), -R(1, 2), -t[1],
          -R(2, 0), -R(2, 1), -R(2, 2), -t[2],
          0.0, 0.0, 0.0, 1.0};
}

}  // namespace nft::session
