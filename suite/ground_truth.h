#pragma once
// Ground-truth target corners per frame (the TMT format of ../shared/data/video/tmt_bookI/gt.tsv),
// the alignment error of the POT/TMT benchmarks (the corner error) and the visible error of
// ../shared/DESIGN.md ("Accuracy on real footage").

#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "synthetic/synthetic_sequence.h"

namespace nft::replay {

/// Reads a ground-truth file: a header line, then one line per decoded frame (line i + 2 is
/// frame i): a frame name, then ulx uly urx ury lrx lry llx lly — the target's corners in frame
/// pixels, upper-left, upper-right, lower-right, lower-left (the target image's corners (0,0),
/// (w,0), (w,h), (0,h)), separated by tabs or spaces. A frame without annotation has all 8
/// numbers `nan` (annotated() is false for it: not scored). Blank lines are skipped.
/// @throws std::runtime_error naming the file (and the line number and text) when it cannot be
///   read, has no header, or a line has fewer than 8 numbers, an infinite one, or some but not
///   all of them nan.
std::vector<QuadCorners> loadGroundTruth(const std::string& path);

/// Writes `frames` as a ground-truth file loadGroundTruth() reads back: the header
/// `frame ulx uly urx ury lrx lry llx lly`, then frame i as `frame<i + 1, 5 digits>.jpg` and its
/// 8 numbers (4 decimals; `nan` for a frame without annotation), tab-separated.
/// @throws std::runtime_error naming the file when it cannot be written.
void saveGroundTruth(const std::string& path, const std::vector<QuadCorners>& frames);

/// A frame without annotation: every corner NaN (what loadGroundTruth reads from `nan` numbers).
QuadCorners notAnnotated();
/// False for a frame without annotation (any corner coordinate NaN): it is not scored.
bool annotated(const QuadCorners& corners);

/// Alignment error e = sqrt(mean over the 4 corners of the squared distance), pixels, between
/// ground-truth corners and found corners (same order). @throws std::invalid_argument unless
/// `found` has exactly 4 points.
double alignmentError(const QuadCorners& truth, const std::vector<cv::Point2f>& found);

/// The visible error, pixels: the mean distance between where the ground truth and where the
/// found quad put the target points of a kVisibleGrid × kVisibleGrid grid (cell centres of the
/// target) that the ground truth puts inside the frame ([0, width) × [0, height)). Each quad maps
/// the target as the homography from the unit square (its corners in truth's order). A large
/// target partly out of view is judged where it is seen; for the bent page the ground truth is
/// the best homography of its visible points (SyntheticSequence::homography()).
/// @returns NaN when `truth` has no annotation or none of the grid's points is inside the frame
///   (not scored); +infinity when `found` is empty (not found) or maps a grid point nowhere (a
///   degenerate quad).
/// @throws std::invalid_argument unless `found` has 0 or 4 points, or for an empty frame size.
double visibleError(const QuadCorners& truth, const std::vector<cv::Point2f>& found, cv::Size frameSize);

/// The grid of visibleError(): kVisibleGrid² target points.
inline constexpr int kVisibleGrid = 10;

}  // namespace nft::replay
