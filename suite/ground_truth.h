#pragma once
// Ground-truth target corners per frame (the TMT format of ../shared/data/video/tmt_bookI/gt.tsv)
// and the alignment error of the POT/TMT benchmarks.

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

/// A frame without annotation: every corner NaN (what loadGroundTruth reads from `nan` numbers).
QuadCorners notAnnotated();
/// False for a frame without annotation (any corner coordinate NaN): it is not scored.
bool annotated(const QuadCorners& corners);

/// Alignment error e = sqrt(mean over the 4 corners of the squared distance), pixels, between
/// ground-truth corners and found corners (same order). @throws std::invalid_argument unless
/// `found` has exactly 4 points.
double alignmentError(const QuadCorners& truth, const std::vector<cv::Point2f>& found);

}  // namespace nft::replay
