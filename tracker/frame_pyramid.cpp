#include "tracker/frame_pyramid.h"

#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

namespace nft::tracker {

void FramePyramid::build(const cv::Mat& gray, int levelCount) {
  if (gray.empty() || gray.type() != CV_8UC1)
    throw std::invalid_argument("FramePyramid::build: the frame must be a non-empty CV_8UC1 image");
  if (levelCount < 1 || levelCount > kMaxLevels)
    throw std::invalid_argument("FramePyramid::build: levelCount must be in [1, 8], got " + std::to_string(levelCount));
  if (levels_.empty()) levels_.resize(1);
  levels_[0] = gray;
  valid_ = 1;
  ensure(levelCount);
}

void FramePyramid::ensure(int levelCount) {
  if (valid_ == 0) throw std::invalid_argument("FramePyramid::ensure: build() the pyramid first");
  if (levelCount < 1 || levelCount > kMaxLevels)
    throw std::invalid_argument("FramePyramid::ensure: levelCount must be in [1, 8], got " + std::to_string(levelCount));
  if (levels_.size() < static_cast<size_t>(levelCount)) levels_.resize(static_cast<size_t>(levelCount));
  while (valid_ < static_cast<size_t>(levelCount)) {
    const cv::Mat& previous = levels_[valid_ - 1];
    if (previous.cols < 32 || previous.rows < 32) break;
    cv::pyrDown(previous, levels_[valid_]);
    ++valid_;
  }
}

const cv::Mat& FramePyramid::level(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= valid_)
    throw std::out_of_range("FramePyramid::level: " + std::to_string(index) + " outside [0, " +
                            std::to_string(valid_) + ")");
  return levels_[static_cast<size_t>(index)];
}

}  // namespace nft::tracker
