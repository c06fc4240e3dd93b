#pragma once
// The workload of the SURF speed goals (issue: SURF-ES), shared by the CPU and GPU benchmarks:
// oxford/graf img1 resized to 512×384 (INTER_AREA), the thesis's test image (seeds/000
// section 5.1), with SIFT keypoints (tests/support/test_keypoints.h).

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/keypoint.h"
#include "support/test_data.h"
#include "support/test_keypoints.h"

namespace nft::benchmarks {

using detection::Keypoint;

inline constexpr const char* kImage = "oxford/graf/img1.png";
inline const cv::Size kSize(512, 384);

struct Workload {
  cv::Mat image;      // CV_8UC1, kSize
  std::string error;  // non-empty when the data folder is missing
};

inline const Workload& workload() {
  static const Workload w = [] {
    Workload out;
    const std::filesystem::path path = nft::testing::dataDir() / kImage;
    if (!std::filesystem::exists(path)) {
      out.error = "real data missing: " + path.string() + " (data folder " + nft::testing::dataDir().string() +
                  "; check out shared/ beside the repository or set NFT_DATA_DIR)";
      return out;
    }
    cv::resize(nft::testing::loadGray(kImage), out.image, kSize, 0, 0, cv::INTER_AREA);
    return out;
  }();
  return w;
}

// The `count` strongest SIFT keypoints; where SIFT finds fewer, the list is repeated with a
// deterministic sub-pixel jitter so that every requested count is a distinct workload.
inline const std::vector<Keypoint>& keypoints(int count) {
  static std::map<int, std::vector<Keypoint>> cache;  // benchmarks run one at a time
  auto found = cache.find(count);
  if (found != cache.end()) return found->second;
  const cv::Mat& image = workload().image;
  std::vector<Keypoint> kps = nft::testing::siftKeypoints(image, count);
  const size_t detected = kps.size();
  for (size_t e = 0; detected > 0 && kps.size() < static_cast<size_t>(count); ++e) {
    Keypoint kp = kps[e % detected];
    const float jitter = static_cast<float>(std::fmod(static_cast<double>(e) * 0.6180339887, 1.0) - 0.5);
    kp.x = std::clamp(kp.x + jitter, 0.0f, static_cast<float>(image.cols - 1));
    kp.y = std::clamp(kp.y - jitter, 0.0f, static_cast<float>(image.rows - 1));
    kps.push_back(kp);
  }
  return cache.emplace(count, std::move(kps)).first->second;
}

}  // namespace nft::benchmarks
