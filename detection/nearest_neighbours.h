#pragma once
// Exhaustive two-nearest-neighbour search over L2 for SURF descriptors on the CPU: the search of
// CpuMatcher (the CPU backend of the detection lane, issue 22).
//
// Why our own and not OpenCV's BFMatcher: BFMatcher computes each (query, target) distance by a
// call of cv::hal::normL2Sqr_, and each call opens a trace region and checks the CPU's
// features; for 1000 × 1000 SURF-64 descriptors that overhead and the per-pair dispatch are most
// of its time (perf on the detection lane: 15 % of the lane's samples in normL2Sqr_ and the
// trace, besides the distance loop). Here the distances of a block of queries to a block of
// targets are dot products, d² = |q|² + |t|² − 2 q·t, computed as a small matrix product in
// registers (the targets stored column-wise, so each dimension's targets are one vector load),
// with the CPU's widest vectors picked at run time on x86-64 (AVX2 + FMA where present, SSE2
// otherwise). Results equal BFMatcher's up to float rounding (tests/detection/matcher_test.cpp).

#include <opencv2/core.hpp>
#include <vector>

#include "detection/match.h"

namespace nft::detection {

/// A set of descriptors laid out for twoNearest(): column-wise (dimension-major) with their
/// squared norms. Built once per target set (setTarget), read by every search.
class DescriptorTable {
 public:
  /// An empty table (count() == 0).
  DescriptorTable() = default;

  /// Copies `descriptors`: M × D CV_32F, any row norms (SURF rows are unit or zero), D ≥ 1.
  /// An empty matrix gives an empty table.
  /// @throws std::invalid_argument for a type other than CV_32FC1 (naming it).
  explicit DescriptorTable(const cv::Mat& descriptors);

  /// Number of descriptors M.
  int count() const { return count_; }
  /// Descriptor length D (0 when empty).
  int length() const { return length_; }

 private:
  friend std::vector<Match> twoNearest(const cv::Mat&, const DescriptorTable&, const LaplacianSigns&,
                                       const LaplacianSigns&);
  int count_ = 0;
  int length_ = 0;
  int stride_ = 0;               ///< count_ rounded up to the search's block of columns
  std::vector<float> columns_;   ///< D × stride_: [d · stride_ + j] = descriptor j's value d; padding 0
  std::vector<float> squaredNorms_;  ///< stride_ entries: |descriptor j|², +inf for the padding
};

/// The two nearest descriptors of `table` (by L2 distance) for every row of `queries`.
///
/// @param queries N × D CV_32F, D == table.length() (any N ≥ 0; rows need not be contiguous).
/// @param querySigns, tableSigns Laplacian signs: empty, or one per query / per table row; a
///   pair whose signs are both non-zero and differ is never paired.
/// @return N matches in query order: Match::query = row, target = the nearest eligible table
///   row (the lowest index on a tie), distance = its L2 distance, secondDistance = the second
///   nearest's; target −1 / kNoDistance where none (or only one) is eligible. Distances are
///   sqrt(max(0, |q|² + |t|² − 2 q·t)) in float: within about 1e-3 of the exact distance for
///   unit rows (exact duplicates come out near 0, not exactly 0).
/// @throws std::invalid_argument when the lengths or sign counts differ or the type is not
///   CV_32FC1 (naming them).
std::vector<Match> twoNearest(const cv::Mat& queries, const DescriptorTable& table,
                              const LaplacianSigns& querySigns = {}, const LaplacianSigns& tableSigns = {});

}  // namespace nft::detection
