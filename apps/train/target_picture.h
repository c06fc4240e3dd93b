#pragma once
// nft_train --picture (issue 47, item 7): a trained target as a picture people judge it by, as
// commercial target managers show one — the label (flat, or a curved label unrolled) with its
// keypoints, the tracking patches and the parts too plain to find or follow, and a legend.

#include <opencv2/core.hpp>

#include "detection/target_model.h"

namespace nft::train {

/// What targetPicture() drew, for the report.
struct TargetPicture {
  /// BGR CV_8UC3: the working image (scaled up 2× when under 400 px wide) over a legend strip.
  cv::Mat image;
  /// The share of the label's cells (a 16 × 16 grid over the image; for a cone's sector label
  /// those inside the sector) too plain to find or follow: holding neither a keypoint of the
  /// target's own view nor a tracking patch, and of a mean local contrast (standard deviation
  /// over 7 × 7 windows) under 8 grey levels. Shaded red in the picture.
  double plainFraction = 0;
};

/// Draws `model`: the working image dimmed to grey, the target's own keypoints as yellow
/// crosses, those of the simulated views (tilted,
/// and turned for a curved label; TargetModel::tiltedKeypoints) as cyan dots, the tracking patches
/// as green squares of their size (8 px at their level), the plain cells shaded red, a sector
/// label's outside hatched grey, and a legend with the counts, the plain share, the stars and the
/// geometry.
/// @throws std::invalid_argument for a model without an image (CV_8UC1).
TargetPicture targetPicture(const detection::TargetModel& model);

}  // namespace nft::train
