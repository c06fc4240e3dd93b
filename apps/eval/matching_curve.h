#pragma once
// The matching measures of seeds/000 section 5.2 (after Mikolajczyk & Schmid 2005), from a
// matrix of descriptor distances and the ground-truth correspondences:
// - threshold matching: EVERY pair (i, j) with distance < t is a match (not only nearest
//   neighbours); recall = correct matches / correspondences, 1 − precision = false matches /
//   all matches; swept over t to give the recall vs 1 − precision curve;
// - nearest-neighbour matching with Lowe's ratio test, the matching the detection lane uses.

#include <cstdint>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::eval {

/// Row-major n1 × nN flags: mask[i·nN + j] = 1 when (i, j) is a ground-truth correspondence.
struct CorrespondenceMask {
  int rows = 0;
  int cols = 0;
  std::vector<std::uint8_t> mask;
  long count = 0;  ///< number of correspondences (set flags)

  /// Flags the given pairs (duplicates count once).
  /// @throws std::out_of_range for a pair outside rows × cols.
  CorrespondenceMask(int rows, int cols, const std::vector<std::pair<int, int>>& pairs);
  bool at(int i, int j) const { return mask[static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)] != 0; }
};

/// One point of the threshold-matching curve.
struct CurvePoint {
  double threshold = 0;          ///< t: a pair matches when its distance < t
  long matches = 0;              ///< pairs with distance < t
  long correct = 0;              ///< of those, ground-truth correspondences
  double recall = 0;             ///< correct / correspondences (0 when there are none)
  double oneMinusPrecision = 0;  ///< (matches − correct) / matches (0 when there are no matches)
};

/// Result of nearest-neighbour matching with the ratio test.
struct RatioTestResult {
  long matches = 0;       ///< queries (rows) whose nearest neighbour passed the test
  long correct = 0;       ///< of those, ground-truth correspondences
  double precision = 0;   ///< correct / matches (0 when there are no matches)
  double recall = 0;      ///< correct / correspondences (0 when there are none)
};

/// Descriptor distances, n1 × nN CV_32F: Euclidean (cv::NORM_L2) or Hamming (cv::NORM_HAMMING,
/// CV_8U rows of packed bits; distances in bits).
/// @param d1, dN one descriptor per row, same type and width; either may have 0 rows.
/// @throws cv::Exception when the types or widths differ.
cv::Mat descriptorDistances(const cv::Mat& d1, const cv::Mat& dN, int normType);

/// The threshold-matching curve at t_k = maxThreshold·k/steps, k = 1..steps, one pass over the
/// distances. @param distances n1 × nN CV_32F; @param truth same shape.
/// @throws std::invalid_argument for steps < 1, maxThreshold <= 0 or a shape mismatch.
std::vector<CurvePoint> thresholdCurve(const cv::Mat& distances, const CorrespondenceMask& truth, double maxThreshold,
                                       int steps);

/// Recall at 1 − precision = `level` along a curve (threshold order): the last place where the
/// curve crosses `level` going up, linearly interpolated between the curve points on either side,
/// i.e. the highest recall reached with 1 − precision <= level (the curve starts at the origin:
/// no threshold, no matches). The last point's recall when 1 − precision never exceeds `level`.
/// 0 for an empty curve.
double recallAtOneMinusPrecision(const std::vector<CurvePoint>& curve, double level);

/// For each row i: its nearest column j1 and second nearest j2; a match (i, j1) when
/// d(i, j1) < ratio · d(i, j2). A row with fewer than two columns matches nothing.
/// @throws std::invalid_argument for a shape mismatch or ratio outside (0, 1].
RatioTestResult ratioTestMatching(const cv::Mat& distances, const CorrespondenceMask& truth, double ratio);

/// Mean of several curves of the same thresholds, point by point (the thesis averages the five
/// pairs of a sequence): recall and 1 − precision are means, matches and correct are sums.
/// @throws std::invalid_argument when the curves differ in length. Empty input: empty result.
std::vector<CurvePoint> meanCurve(const std::vector<std::vector<CurvePoint>>& curves);

}  // namespace nft::eval
