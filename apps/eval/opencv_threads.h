#pragma once
// Sets OpenCV's thread count for a scope (per-core measurements run OpenCV on one thread) and
// restores the previous count at its end. Used by nft_eval tracking and nft_bench.

#include <opencv2/core/utility.hpp>

namespace nft::eval {

class OpenCvThreads {
 public:
  /// threads > 0: cv::setNumThreads(threads); 0: leaves OpenCV's setting as it is.
  explicit OpenCvThreads(int threads) : previous_(cv::getNumThreads()) {
    if (threads > 0) cv::setNumThreads(threads);
  }
  ~OpenCvThreads() { cv::setNumThreads(previous_); }
  OpenCvThreads(const OpenCvThreads&) = delete;
  OpenCvThreads& operator=(const OpenCvThreads&) = delete;

 private:
  int previous_;
};

}  // namespace nft::eval
