#pragma once
// Brute-force descriptor matching on the CPU (L2, the two nearest: twoNearest() of
// detection/nearest_neighbours.h, which gives OpenCV BFMatcher's results faster) with the
// project's ratio test, cross-check and Laplacian-sign pruning: the fallback of GpuMatcher
// where no GPU lane runs, and its reference in tests (same interface, same results up to the
// GPU's distance quantisation).

#include <opencv2/core.hpp>
#include <vector>

#include "detection/match.h"
#include "detection/nearest_neighbours.h"

namespace nft::detection {

/// The CPU matcher. Holds a copy of the target descriptors. Copyable; not thread-safe.
class CpuMatcher {
 public:
  /// Sets the target database: M × D CV_32F rows (D = 64 or 36; unit rows, as SURF gives, but
  /// any rows work here), optional Laplacian signs (empty or M values). An empty matrix is a
  /// valid, empty target. @throws std::invalid_argument naming a wrong type, length or sign.
  void setTarget(const cv::Mat& descriptors, const LaplacianSigns& signs = {});

  /// Number of target descriptors (M).
  int targetCount() const { return targets_.rows; }

  /// The two nearest targets of every query: one Match per query row, in order
  /// (target −1 and distances kNoDistance where no target is eligible; secondDistance
  /// kNoDistance where only one is). queries: N × D CV_32F, D as the target's; signs empty or N.
  /// Empty queries or an empty target give an empty list.
  /// @throws std::invalid_argument naming a wrong type, length or sign.
  std::vector<Match> nearest(const cv::Mat& queries, const LaplacianSigns& signs = {}) const;

  /// nearest(), then the ratio test and, with options.crossCheck, the cross-check (a second
  /// search, targets against queries). Only accepted matches, in query order.
  /// @throws std::invalid_argument as nearest(), or for a ratio outside (0, 1].
  std::vector<Match> match(const cv::Mat& queries, const MatchOptions& options = {},
                           const LaplacianSigns& signs = {}) const;

 private:
  cv::Mat targets_;        ///< the rows given (queries of the cross-check's reverse search)
  DescriptorTable table_;  ///< the same, laid out for twoNearest()
  LaplacianSigns targetSigns_;
};

/// Checks a descriptor matrix for the matchers: empty, or CV_32F with 64 or 36 columns
/// (`expectedLength` > 0: exactly that many). @throws std::invalid_argument naming `what`.
void validateDescriptors(const cv::Mat& descriptors, const char* what, int expectedLength = 0);

}  // namespace nft::detection
