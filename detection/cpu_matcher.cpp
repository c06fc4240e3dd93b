#include "detection/cpu_matcher.h"

#include <stdexcept>
#include <string>

#include <opencv2/features2d.hpp>

namespace nft::detection {

void validateDescriptors(const cv::Mat& descriptors, const char* what, int expectedLength) {
  if (descriptors.empty()) return;
  if (descriptors.type() != CV_32FC1)
    throw std::invalid_argument(std::string(what) + ": descriptor type " + cv::typeToString(descriptors.type()) +
                                " is not supported (expected CV_32F rows)");
  if (descriptors.dims != 2 || (descriptors.cols != 64 && descriptors.cols != 36))
    throw std::invalid_argument(std::string(what) + ": descriptor length " + std::to_string(descriptors.cols) +
                                " is not supported (expected 64 for SURF-64 or 36 for SURF-36)");
  if (expectedLength > 0 && descriptors.cols != expectedLength)
    throw std::invalid_argument(std::string(what) + ": descriptor length " + std::to_string(descriptors.cols) +
                                " differs from the target's " + std::to_string(expectedLength));
}

void CpuMatcher::setTarget(const cv::Mat& descriptors, const LaplacianSigns& signs) {
  validateDescriptors(descriptors, "CpuMatcher::setTarget");
  validateSigns(signs, descriptors.rows, "CpuMatcher::setTarget");
  targets_ = descriptors.empty() ? cv::Mat() : descriptors.clone();
  targetSigns_ = signs;
}

namespace {

// Mask of eligible pairs (rows: queries), or empty when signs cannot prune.
cv::Mat signMask(const LaplacianSigns& rows, const LaplacianSigns& cols) {
  if (rows.empty() || cols.empty()) return {};
  cv::Mat mask(static_cast<int>(rows.size()), static_cast<int>(cols.size()), CV_8U);
  for (int i = 0; i < mask.rows; ++i) {
    auto* m = mask.ptr<std::uint8_t>(i);
    const int a = rows[static_cast<size_t>(i)];
    for (int j = 0; j < mask.cols; ++j) m[j] = a * cols[static_cast<size_t>(j)] < 0 ? 0 : 1;
  }
  return mask;
}

std::vector<Match> knn(const cv::Mat& queries, const cv::Mat& targets, const cv::Mat& mask) {
  std::vector<std::vector<cv::DMatch>> found;
  cv::BFMatcher(cv::NORM_L2).knnMatch(queries, targets, found, 2, mask, false);
  std::vector<Match> out(static_cast<size_t>(queries.rows));
  for (int i = 0; i < queries.rows; ++i) {
    Match& m = out[static_cast<size_t>(i)];
    m.query = i;
    const std::vector<cv::DMatch>& f = found[static_cast<size_t>(i)];
    if (!f.empty()) {
      m.target = f[0].trainIdx;
      m.distance = f[0].distance;
    }
    if (f.size() > 1) m.secondDistance = f[1].distance;
  }
  return out;
}

}  // namespace

std::vector<Match> CpuMatcher::nearest(const cv::Mat& queries, const LaplacianSigns& signs) const {
  validateDescriptors(queries, "CpuMatcher::nearest", targets_.empty() ? 0 : targets_.cols);
  validateSigns(signs, queries.rows, "CpuMatcher::nearest");
  if (queries.empty() || targets_.empty()) return {};
  return knn(queries, targets_, signMask(signs, targetSigns_));
}

std::vector<Match> CpuMatcher::match(const cv::Mat& queries, const MatchOptions& options,
                                     const LaplacianSigns& signs) const {
  validateMatchOptions(options);
  std::vector<Match> kept = ratioTest(nearest(queries, signs), options.ratio);
  if (!options.crossCheck || kept.empty()) return kept;
  const std::vector<Match> reverse = knn(targets_, queries, signMask(targetSigns_, signs));
  std::vector<int> reverseNearest(reverse.size());
  for (size_t t = 0; t < reverse.size(); ++t) reverseNearest[t] = reverse[t].target;
  return crossCheck(kept, reverseNearest);
}

}  // namespace nft::detection
