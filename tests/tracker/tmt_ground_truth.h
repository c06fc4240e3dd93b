#pragma once
// tmt_bookI's ground truth (../shared/data/video/tmt_bookI/gt.tsv, see its README): per frame
// the target's corners in frame pixels, upper-left, upper-right, lower-right, lower-left, which
// are the corners (0,0), (w,0), (w,h), (0,h) of target.png (134×190).

#include <array>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "support/test_data.h"

namespace nft::testing {

inline const cv::Size kTmtFrameSize{800, 600};
inline const cv::Size kTmtTargetSize{134, 190};

/// One ground-truth line: frame number (1-based, from the name) and its 4 corners.
struct TmtFrame {
  int frame = 0;
  std::array<cv::Point2f, 4> corners;
};

/// All lines of gt.tsv. @throws std::runtime_error if unreadable or malformed.
inline std::vector<TmtFrame> loadTmtGroundTruth() {
  const std::string path = (dataDir() / "video/tmt_bookI/gt.tsv").string();
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<TmtFrame> frames;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream s(line);
    std::string name;
    TmtFrame f;
    s >> name;
    for (auto& c : f.corners) s >> c.x >> c.y;
    if (!s || name.size() < 9) throw std::runtime_error("malformed line in " + path + ": " + line);
    f.frame = std::stoi(name.substr(5, name.find('.') - 5));
    frames.push_back(f);
  }
  return frames;
}

/// Homography from target.png's corners to a frame's ground-truth corners.
inline cv::Matx33d tmtHomography(const TmtFrame& f) {
  const float w = static_cast<float>(kTmtTargetSize.width), h = static_cast<float>(kTmtTargetSize.height);
  const cv::Point2f src[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  return cv::Matx33d(cv::getPerspectiveTransform(src, f.corners.data()));
}

}  // namespace nft::testing
