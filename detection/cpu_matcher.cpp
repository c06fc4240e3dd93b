#include "detection/cpu_matcher.h"

#include <stdexcept>
#include <string>


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
  table_ = DescriptorTable(targets_);
  targetSigns_ = signs;
}

std::vector<Match> CpuMatcher::nearest(const cv::Mat& queries, const LaplacianSigns& signs) const {
  validateDescriptors(queries, "CpuMatcher::nearest", targets_.empty() ? 0 : targets_.cols);
  validateSigns(signs, queries.rows, "CpuMatcher::nearest");
  if (queries.empty() || targets_.empty()) return {};
  return twoNearest(queries, table_, signs, targetSigns_);
}

std::vector<Match> CpuMatcher::match(const cv::Mat& queries, const MatchOptions& options,
                                     const LaplacianSigns& signs) const {
  validateMatchOptions(options);
  std::vector<Match> kept = ratioTest(nearest(queries, signs), options.ratio);
  if (!options.crossCheck || kept.empty()) return kept;
  const std::vector<Match> reverse = twoNearest(targets_, DescriptorTable(queries), targetSigns_, signs);
  std::vector<int> reverseNearest(reverse.size());
  for (size_t t = 0; t < reverse.size(); ++t) reverseNearest[t] = reverse[t].target;
  return crossCheck(kept, reverseNearest);
}

}  // namespace nft::detection
