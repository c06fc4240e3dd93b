#include "detection/target_quality.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

namespace nft::detection {

namespace {

constexpr int kGrid = 8;
// Measured nearest distant look-alike distances (1000 keypoints): natural targets 0.19-0.40 (10th
// to 90th percentile: cmu_book cover, oxford graf, boat, wall), a tiled patch 0.00-0.04.
constexpr double kLookAlikeDistance = 0.15;
// Keypoints closer than half a descriptor window (10 s of the larger) share most of their
// window, so their descriptors are alike without the target being repetitive.
constexpr double kHalfWindow = 10.0;

std::string percent(double v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * v);
  return buf;
}

double coverageOf(const cv::Mat& image, const std::vector<Keypoint>& keypoints) {
  std::vector<bool> filled(kGrid * kGrid, false);
  for (const Keypoint& k : keypoints) {
    const int cx = std::clamp(static_cast<int>(k.x * kGrid / static_cast<float>(image.cols)), 0, kGrid - 1);
    const int cy = std::clamp(static_cast<int>(k.y * kGrid / static_cast<float>(image.rows)), 0, kGrid - 1);
    filled[static_cast<size_t>(cy * kGrid + cx)] = true;
  }
  return static_cast<double>(std::count(filled.begin(), filled.end(), true)) / (kGrid * kGrid);
}

double distinctnessOf(const std::vector<Keypoint>& keypoints, const cv::Mat& descriptors) {
  const int n = descriptors.rows;
  if (n < 2) return n == 1 ? 1.0 : 0.0;
  // Squared distances of unit vectors: 2 − 2·a·b, all pairs at once.
  cv::Mat dots = descriptors * descriptors.t();
  int distinct = 0;
  for (int i = 0; i < n; ++i) {
    double best = 4.0;
    const float* row = dots.ptr<float>(i);
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = keypoints[static_cast<size_t>(i)].x - keypoints[static_cast<size_t>(j)].x;
      const double dy = keypoints[static_cast<size_t>(i)].y - keypoints[static_cast<size_t>(j)].y;
      const double separation =
          kHalfWindow * std::max(keypoints[static_cast<size_t>(i)].scale, keypoints[static_cast<size_t>(j)].scale);
      if (dx * dx + dy * dy < separation * separation) continue;  // overlapping windows
      best = std::min(best, 2.0 - 2.0 * static_cast<double>(row[j]));
    }
    if (std::sqrt(std::max(best, 0.0)) > kLookAlikeDistance) ++distinct;
  }
  return static_cast<double>(distinct) / n;
}

double meanContrastOf(const cv::Mat& image) {
  cv::Mat f, mean, meanSq;
  image.convertTo(f, CV_32F);
  cv::boxFilter(f, mean, CV_32F, cv::Size(7, 7));
  cv::boxFilter(f.mul(f), meanSq, CV_32F, cv::Size(7, 7));
  cv::Mat variance = cv::max(meanSq - mean.mul(mean), 0.0f), deviation;
  cv::sqrt(variance, deviation);
  return cv::mean(deviation)[0];
}

}  // namespace

TargetQuality rateTarget(const cv::Mat& image, const std::vector<Keypoint>& keypoints, const cv::Mat& descriptors) {
  if (descriptors.rows != static_cast<int>(keypoints.size()))
    throw std::invalid_argument("rateTarget: " + std::to_string(keypoints.size()) + " keypoints but " +
                                std::to_string(descriptors.rows) + " descriptors");
  TargetQuality q;
  q.keypointCount = static_cast<int>(keypoints.size());
  q.coverage = coverageOf(image, keypoints);
  q.distinctness = descriptors.empty() ? 0.0 : distinctnessOf(keypoints, descriptors);
  q.meanContrast = meanContrastOf(image);
  if (q.keypointCount >= 20) {
    q.stars = (q.keypointCount >= 100) + (q.keypointCount >= 300) + (q.coverage >= 0.5) + (q.coverage >= 0.75) +
              (q.distinctness >= 0.8);
  }
  if (q.keypointCount < 100 || q.meanContrast < 8.0)
    q.warnings.push_back("too plain: " + std::to_string(q.keypointCount) + " keypoints, mean contrast " +
                         std::to_string(static_cast<int>(q.meanContrast)) +
                         " (want >= 100 keypoints and contrast >= 8); add texture or choose another target");
  if (q.keypointCount >= 2 && q.distinctness < 0.6)
    q.warnings.push_back("too repetitive: only " + percent(q.distinctness) +
                         " of keypoints are unlike the rest of the target; repeated patterns match ambiguously");
  if (q.coverage < 0.5)
    q.warnings.push_back("uneven: keypoints cover " + percent(q.coverage) +
                         " of the target; tracking degrades when the textured part leaves the view");
  return q;
}

}  // namespace nft::detection
