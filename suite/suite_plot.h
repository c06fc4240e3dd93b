#pragma once
// The plots of `suite collect`, drawn with OpenCV (no plotting runtime needed on the cluster):
//   plots/success.png         success rate (%) against the error threshold (0-20 px), one curve
//                             per config over all its clips' ground-truth frames
//   plots/accuracy_speed.png  success at 5 px (or, without ground truth, the found fraction)
//                             against tracker fps, one labelled point per config

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::eval::suite {

struct Collection;

/// One named series of (x, y) points.
struct PlotSeries {
  std::string label;
  std::vector<std::pair<double, double>> points;
};

/// What one chart shows. Axis ranges are fixed by the caller (x in [xMin, xMax], y in [yMin, yMax]).
struct ChartSpec {
  std::string title, xLabel, yLabel;
  double xMin = 0, xMax = 1, yMin = 0, yMax = 1;
  bool lines = true;  ///< true: each series as a polyline; false: each point a labelled marker
};

/// Draws `series` on a 1040 × 640 white BGR image: axes with ticks and labels, a colour per series
/// and a legend (lines) or point labels (markers). Points outside the ranges are clipped.
cv::Mat drawChart(const ChartSpec& spec, const std::vector<PlotSeries>& series);

/// Writes the two plots of `c` into `folder` (created), each PNG atomically; a plot with nothing
/// to show (no finished pair; for success.png, no ground truth) is not written.
/// @returns the files written. @throws std::runtime_error naming a file that cannot be written.
std::vector<std::string> writePlots(const Collection& c, const std::filesystem::path& folder);

}  // namespace nft::eval::suite
