#pragma once
// `nft_eval reference`: a reference track for a real clip without ground truth — per-frame SIFT
// (feature_baseline.h: ratio 0.75, RANSAC 3 px) where it finds the target with many inliers,
// refined by OpenCV's dense ECC alignment (cv::findTransformECC, MOTION_HOMOGRAPHY: Evangelidis
// and Psarakis, "Parametric Image Alignment Using Enhanced Correlation Coefficient
// Maximization", PAMI 30(10), 2008) masked to the target's quad. Written as gt.tsv
// (suite/ground_truth.h), frames without a reference as 8 `nan`, so that `nft_eval tracking
// --gt` scores every method on the frames the reference holds. An independent yardstick: none of
// our tracker's code makes it.

#include <string>

namespace nft::eval {

/// What to make.
struct ReferenceRequest {
  std::string video;   ///< video file or frames folder
  std::string target;  ///< the target image (its corners (0,0), (w,0), (w,h), (0,h))
  std::string out;     ///< gt.tsv to write
  int minInliers = 30;          ///< SIFT's RANSAC inliers for a frame to have a reference
  double minCorrelation = 0.8;  ///< ECC's correlation coefficient for a frame to have one
  double maxShiftPx = 8.0;      ///< largest corner move of ECC from SIFT's homography, pixels
  int maxFrames = -1;           ///< the first N frames (> 0), or -1 for all
  int progressEvery = 30;       ///< progress line on stderr every N frames (0: none)
};

/// Counts of a run.
struct ReferenceReport {
  int frames = 0;      ///< frames read
  int sift = 0;        ///< frames where SIFT found the target with minInliers
  int referenced = 0;  ///< of those, frames ECC refined within the limits: the reference
};

/// Makes the reference track and writes it (atomically: a temporary file renamed).
/// @throws std::runtime_error naming the file for a missing or unreadable video or target, or an
///   output that cannot be written.
ReferenceReport makeReferenceTrack(const ReferenceRequest& request);

}  // namespace nft::eval
