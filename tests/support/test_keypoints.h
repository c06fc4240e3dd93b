#pragma once
// Keypoints for descriptor tests on real images, until the project's own detector is used:
// OpenCV's SIFT detector, the strongest `count`, with a SURF scale taken from the blob size.

#include <algorithm>
#include <vector>

#include <opencv2/features2d.hpp>

#include "detection/keypoint.h"

namespace nft::testing {

/// The `count` strongest SIFT keypoints of `gray` (CV_8UC1) as SURF keypoints: position as
/// detected, scale s = clamp(size / 2.5, 1.2, 12) (SIFT's size is the blob diameter; a SURF
/// window of 20s then covers about 8 diameters), angle kNoAngle. Deterministic.
inline std::vector<detection::Keypoint> siftKeypoints(const cv::Mat& gray, int count) {
  std::vector<cv::KeyPoint> found;
  cv::SIFT::create(count)->detect(gray, found);
  std::stable_sort(found.begin(), found.end(),
                   [](const cv::KeyPoint& a, const cv::KeyPoint& b) { return a.response > b.response; });
  if (static_cast<int>(found.size()) > count) found.resize(static_cast<size_t>(count));
  std::vector<detection::Keypoint> out;
  out.reserve(found.size());
  for (const cv::KeyPoint& k : found) {
    detection::Keypoint kp;
    kp.x = k.pt.x;
    kp.y = k.pt.y;
    kp.scale = std::clamp(k.size / 2.5f, 1.2f, 12.0f);
    kp.response = k.response;
    out.push_back(kp);
  }
  return out;
}

}  // namespace nft::testing
