#include "suite/suite_frame_errors.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "suite/ground_truth.h"
#include "suite/pose_csv.h"

namespace nft::eval::suite {

namespace {

/// The comma-separated fields of one CSV row (the pose CSV has no quoting: numbers and state names).
std::vector<std::string> fields(const std::string& row) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = row.find(',', start);
    out.push_back(row.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

/// Calls score(truth, corners) for every CSV row with annotated ground truth, corners empty
/// where the target was not found.
template <typename Score>
void forEachScoredFrame(const std::string& posesCsv, const std::string& groundTruth, Score score) {
  const std::vector<replay::QuadCorners> truth = replay::loadGroundTruth(groundTruth);
  std::ifstream in(posesCsv);
  if (!in) throw std::runtime_error("cannot read pose CSV '" + posesCsv + "'");
  std::string row;
  if (!std::getline(in, row) || row != replay::kPoseCsvHeader)
    throw std::runtime_error("pose CSV '" + posesCsv + "': expected the header '" + replay::kPoseCsvHeader + "'");
  size_t frame = 0;  // the CSV row's frame: ground-truth frame `frame`
  for (int line = 2; frame < truth.size() && std::getline(in, row); ++line, ++frame) {
    const std::vector<std::string> f = fields(row);
    if (f.size() < 10) throw std::runtime_error("pose CSV '" + posesCsv + "' line " + std::to_string(line) + ": too few fields");
    if (!replay::annotated(truth[frame])) continue;  // a frame without annotation is not scored
    if (f[1] == "skipped") continue;                   // nor a frame a baseline did not run (--every)
    if (f[2].empty()) {  // not found: corner fields empty
      score(truth[frame], std::vector<cv::Point2f>());
      continue;
    }
    std::vector<cv::Point2f> corners(4);
    for (int k = 0; k < 8; ++k) {
      const std::string& text = f[static_cast<size_t>(2 + k)];
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(v))
        throw std::runtime_error("pose CSV '" + posesCsv + "' line " + std::to_string(line) + ": corner '" + text +
                                 "' is not a number");
      (k % 2 == 0 ? corners[static_cast<size_t>(k / 2)].x : corners[static_cast<size_t>(k / 2)].y) =
          static_cast<float>(v);
    }
    score(truth[frame], corners);
  }
}

}  // namespace

std::vector<double> frameErrors(const std::string& posesCsv, const std::string& groundTruth) {
  std::vector<double> errors;
  forEachScoredFrame(posesCsv, groundTruth, [&](const replay::QuadCorners& truth, const std::vector<cv::Point2f>& corners) {
    errors.push_back(corners.empty() ? std::numeric_limits<double>::infinity() : replay::alignmentError(truth, corners));
  });
  return errors;
}

std::vector<double> frameVisibleErrors(const std::string& posesCsv, const std::string& groundTruth,
                                       cv::Size frameSize) {
  if (frameSize.width <= 0 || frameSize.height <= 0)
    throw std::invalid_argument("visible errors of '" + posesCsv + "': frame size " + std::to_string(frameSize.width) +
                                "x" + std::to_string(frameSize.height) + " is empty");
  std::vector<double> errors;
  forEachScoredFrame(posesCsv, groundTruth, [&](const replay::QuadCorners& truth, const std::vector<cv::Point2f>& corners) {
    const double e = replay::visibleError(truth, corners, frameSize);
    if (!std::isnan(e)) errors.push_back(e);  // NaN: no grid point inside the frame, not scored
  });
  return errors;
}

double successAt(const std::vector<double>& errors, double thresholdPx) {
  if (errors.empty()) return 0;
  size_t within = 0;
  for (const double e : errors) within += e <= thresholdPx ? 1 : 0;
  return static_cast<double>(within) / static_cast<double>(errors.size());
}

}  // namespace nft::eval::suite
