#include "synthetic/synthetic_render.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace nft::replay::synth {

double smoothstep(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x * x * (3 - 2 * x);
}

cv::Mat loadImage(const std::string& path, const char* what) {
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error(std::string("synthetic sequence: ") + what + " image '" + path +
                             "' does not exist (install the Debian package opencv-doc: scripts/install-deps.sh)");
  cv::Mat image = cv::imread(path, cv::IMREAD_COLOR);
  if (image.empty())
    throw std::runtime_error(std::string("synthetic sequence: cannot read ") + what + " image '" + path + "'");
  return image;
}

cv::Matx33d rotationZXY(double rollRad, double tiltXRad, double tiltYRad) {
  const double cz = std::cos(rollRad), sz = std::sin(rollRad);
  const double cx = std::cos(tiltXRad), sx = std::sin(tiltXRad);
  const double cy = std::cos(tiltYRad), sy = std::sin(tiltYRad);
  const cv::Matx33d Rz(cz, -sz, 0, sz, cz, 0, 0, 0, 1);
  const cv::Matx33d Rx(1, 0, 0, 0, cx, -sx, 0, sx, cx);
  const cv::Matx33d Ry(cy, 0, sy, 0, 1, 0, -sy, 0, cy);
  return Rz * Rx * Ry;
}

cv::Point2f apply(const cv::Matx33d& H, double x, double y) {
  const cv::Vec3d p = H * cv::Vec3d(x, y, 1.0);
  return {static_cast<float>(p[0] / p[2]), static_cast<float>(p[1] / p[2])};
}

namespace {

/// frame(roi) ← frame(roi)·(1 − weight) + colour, colour premultiplied by the weight.
void blendPremultiplied(const cv::Mat& colour, const cv::Mat& weight, const cv::Rect& roi, cv::Mat& frame) {
  for (int y = 0; y < roi.height; ++y) {
    uchar* out = frame.ptr<uchar>(roi.y + y) + 3 * roi.x;
    const uchar* in = colour.ptr<uchar>(y);
    const float* w = weight.ptr<float>(y);
    for (int x = 0; x < roi.width; ++x)
      for (int k = 0; k < 3; ++k) {
        const float v = out[3 * x + k] * (1.0f - w[x]) + in[3 * x + k];
        out[3 * x + k] = cv::saturate_cast<uchar>(v);
      }
  }
}

}  // namespace

void compositeLayer(const cv::Mat& layer, const cv::Matx33d& layerToFrame, cv::Mat& frame) {
  float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
  for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(layer.cols, 0), cv::Point2d(layer.cols, layer.rows),
                              cv::Point2d(0, layer.rows)}) {
    const cv::Vec3d p = layerToFrame * cv::Vec3d(c.x, c.y, 1.0);
    if (!(p[2] > 0)) return;  // behind the camera (the presets never look that way)
    const cv::Point2f q = apply(layerToFrame, c.x, c.y);
    x0 = std::min(x0, q.x), y0 = std::min(y0, q.y), x1 = std::max(x1, q.x), y1 = std::max(y1, q.y);
  }
  const cv::Rect roi = cv::Rect(cv::Point(static_cast<int>(std::floor(x0)) - 1, static_cast<int>(std::floor(y0)) - 1),
                                cv::Point(static_cast<int>(std::ceil(x1)) + 2, static_cast<int>(std::ceil(y1)) + 2)) &
                       cv::Rect(0, 0, frame.cols, frame.rows);
  if (roi.empty()) return;
  const cv::Matx33d toRoi = cv::Matx33d(1, 0, -roi.x, 0, 1, -roi.y, 0, 0, 1) * layerToFrame;
  cv::Mat colour, weight;
  cv::warpPerspective(layer, colour, toRoi, roi.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
  cv::warpPerspective(cv::Mat(layer.size(), CV_32F, cv::Scalar(1.0)), weight, toRoi, roi.size(), cv::INTER_LINEAR,
                      cv::BORDER_CONSTANT, cv::Scalar(0));
  // The border taps read 0 in both: colour is premultiplied by the weight.
  blendPremultiplied(colour, weight, roi, frame);
}

void compositeRemapped(const cv::Mat& layer, const cv::Mat& mapX, const cv::Mat& mapY, cv::Point origin,
                       cv::Mat& frame) {
  CV_Assert(mapX.type() == CV_32F && mapY.type() == CV_32F && mapX.size() == mapY.size());
  const cv::Rect roi(origin, mapX.size());
  CV_Assert((roi & cv::Rect(0, 0, frame.cols, frame.rows)) == roi);
  cv::Mat colour, weight;
  cv::remap(layer, colour, mapX, mapY, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
  cv::remap(cv::Mat(layer.size(), CV_32F, cv::Scalar(1.0)), weight, mapX, mapY, cv::INTER_LINEAR, cv::BORDER_CONSTANT,
            cv::Scalar(0));
  blendPremultiplied(colour, weight, roi, frame);
}

int pyramidLevel(const cv::Matx33d& surfaceToFrame, cv::Point2d at, int levels) {
  const cv::Point2f p = apply(surfaceToFrame, at.x, at.y), px = apply(surfaceToFrame, at.x + 1, at.y),
                    py = apply(surfaceToFrame, at.x, at.y + 1);
  const double scale = std::sqrt(std::abs((px - p).cross(py - p)));
  return std::clamp(static_cast<int>(std::lround(std::log2(1.0 / std::max(scale, 1e-6)))), 0, levels - 1);
}

void applyLighting(cv::Mat& sum, double gain, double offset, double strength, double angleRad) {
  const cv::Size size = sum.size();
  cv::Mat light(size, CV_32F);
  const double cx = (size.width - 1) / 2.0, cy = (size.height - 1) / 2.0;
  for (int y = 0; y < size.height; ++y) {
    float* row = light.ptr<float>(y);
    for (int x = 0; x < size.width; ++x)
      row[x] = static_cast<float>(
          gain * (1.0 + strength * ((x - cx) * std::cos(angleRad) + (y - cy) * std::sin(angleRad)) / size.width));
  }
  cv::Mat light3;
  cv::merge(std::vector<cv::Mat>{light, light, light}, light3);
  cv::multiply(sum, light3, sum);
  sum += cv::Scalar::all(offset);
}

void addSensorNoise(cv::Mat& sum, double sigma, std::uint32_t seed, int index) {
  if (!(sigma > 0)) return;
  cv::Mat noise(sum.size(), CV_32FC3);
  cv::RNG rng(static_cast<std::uint64_t>(seed) * 1000003ULL + static_cast<std::uint64_t>(index));
  rng.fill(noise, cv::RNG::NORMAL, 0.0, sigma);
  sum += noise;
}

}  // namespace nft::replay::synth
