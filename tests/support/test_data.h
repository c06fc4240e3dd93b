#pragma once
// Access to the real evaluation data (../shared/data, see its README) from tests. Without the
// folder a test that needs it skips with a message naming the folder — on a user's fresh
// clone — but fails in CI (CI=true) or with NFT_REQUIRE_DATA=1, where it must be there.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

namespace nft::testing {

/// $NFT_DATA_DIR if set, else ../shared/data beside the source tree.
inline std::filesystem::path dataDir() {
  if (const char* env = std::getenv("NFT_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return std::filesystem::path(NFT_SOURCE_DIR) / ".." / "shared" / "data";
}

/// True where missing data is an error rather than a reason to skip.
inline bool dataRequired() {
  const char* ci = std::getenv("CI");
  const char* req = std::getenv("NFT_REQUIRE_DATA");
  return (ci != nullptr && std::string(ci) == "true") || (req != nullptr && std::string(req) == "1");
}

/// Loads an 8-bit grayscale image from the data folder. @throws std::runtime_error if unreadable.
inline cv::Mat loadGray(const std::string& relative) {
  const std::filesystem::path path = dataDir() / relative;
  cv::Mat image = cv::imread(path.string(), cv::IMREAD_GRAYSCALE);
  if (image.empty()) throw std::runtime_error("cannot read image " + path.string());
  return image;
}

/// The first `n` frames (BGR, each its own copy) of a video of the data folder; fewer when the
/// video is shorter, none when it cannot be opened (NFT_REQUIRE_DATA checks it exists first).
inline std::vector<cv::Mat> readVideoFrames(const std::string& relative, int n) {
  cv::VideoCapture video((dataDir() / relative).string());
  std::vector<cv::Mat> frames;
  cv::Mat f;
  while (static_cast<int>(frames.size()) < n && video.read(f)) frames.push_back(f.clone());
  return frames;
}

}  // namespace nft::testing

/// Skips (or, in CI, fails) the current test when `relative` is missing from the data folder.
#define NFT_REQUIRE_DATA(relative)                                                                     \
  do {                                                                                                 \
    const std::filesystem::path nft_data_path_ = ::nft::testing::dataDir() / (relative);               \
    if (!std::filesystem::exists(nft_data_path_)) {                                                    \
      if (::nft::testing::dataRequired()) {                                                            \
        FAIL() << "real data missing: " << nft_data_path_ << " (CI needs ../shared/data or NFT_DATA_DIR)"; \
      } else {                                                                                         \
        GTEST_SKIP() << "real data folder missing: " << nft_data_path_                                 \
                     << " (check out shared/ beside the repository or set NFT_DATA_DIR)";              \
      }                                                                                                \
    }                                                                                                  \
  } while (0)
