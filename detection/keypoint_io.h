#pragma once
// Keypoint and descriptor CSV files: how anyone checks our descriptors against another SURF
// (apps/nft_describe).

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"

namespace nft::detection {

/// Keypoints read from a CSV file.
struct KeypointCsv {
  std::vector<Keypoint> keypoints;
  std::vector<int> lines;  ///< file line (from 1) of each keypoint, for error messages
  bool hasAngle = false;   ///< the file had an angle column
};

/// Reads a keypoint CSV file: a header line `x,y,scale` or `x,y,scale,angle`, then one
/// keypoint per line — x, y in pixels (OpenCV convention, (0,0) the centre of the top-left
/// pixel), SURF scale s (the window is 20s wide; OpenCV's SURF KeyPoint::size is 7.5 s), angle
/// in degrees as OpenCV's KeyPoint::angle, negative for none. Blank lines are skipped.
/// @throws std::runtime_error naming the file (and line, column and text) when it cannot be
///         read, the header is not one of the two, or a value is missing, extra or not a
///         finite number.
KeypointCsv readKeypointsCsv(const std::string& path);

/// Writes descriptors (N × D CV_32F) as CSV: header `d0,…,d{D-1}`, then row i of the matrix
/// on line i + 2, values with 9 significant digits. With `keypoints` (N of them), each line
/// starts with `x,y,scale,angle` and the header with those names. Writes a temporary file
/// and renames it, so a failure leaves no half-written file.
/// @throws std::runtime_error naming the file if it cannot be written; std::invalid_argument
///         if the matrix is not CV_32F or the keypoint count differs from its rows.
void writeDescriptorsCsv(const std::string& path, const cv::Mat& descriptors,
                         const std::vector<Keypoint>* keypoints = nullptr);

}  // namespace nft::detection
