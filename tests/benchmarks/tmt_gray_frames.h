#pragma once
// Every frame of ../shared/data/video/tmt_bookI/video.mp4 in grey (531 × 800 × 600 bytes),
// decoded once per program: the frames the tracker and Session benchmarks run on.

#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "support/test_data.h"

namespace nft::benchmarks {

/// @throws std::runtime_error naming the video when it cannot be opened.
inline const std::vector<cv::Mat>& tmtGrayFrames() {
  static const std::vector<cv::Mat> frames = [] {
    const std::string path = (nft::testing::dataDir() / "video/tmt_bookI/video.mp4").string();
    cv::VideoCapture video(path);
    if (!video.isOpened()) throw std::runtime_error("cannot open " + path);
    std::vector<cv::Mat> out;
    cv::Mat frame, gray;
    while (video.read(frame)) {
      cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);
      out.push_back(gray.clone());
    }
    return out;
  }();
  return frames;
}

}  // namespace nft::benchmarks
