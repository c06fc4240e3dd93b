#pragma once
// The quality report of a trained target: how well the tracker will find it.

#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"
#include "detection/target_model.h"

namespace nft::detection {

/// Rates a target from its working image, keypoints and descriptors (N × D CV_32F, unit rows):
/// - coverage: the fraction of the cells of an 8 × 8 grid over the image that hold a keypoint;
/// - distinctness: the fraction of keypoints whose most similar descriptor among keypoints
///   whose windows barely overlap (at least 10 s apart, s of the larger) is farther than 0.15
///   (Euclidean, unit descriptors; on natural targets that nearest look-alike is 0.19-0.40
///   away, on a tiled pattern 0-0.04) — repeated patterns match ambiguously, and the ratio
///   test then rejects them;
/// - meanContrast: the mean local standard deviation (7 × 7 windows), 8-bit units;
/// - stars (0..5): one each for ≥ 100 and ≥ 300 keypoints, coverage ≥ 0.5 and ≥ 0.75,
///   distinctness ≥ 0.8; none at all below 20 keypoints;
/// - warnings: too plain (< 100 keypoints or contrast < 8), too repetitive (distinctness
///   < 0.6), uneven (coverage < 0.5).
/// @throws std::invalid_argument if descriptor rows ≠ keypoints.
TargetQuality rateTarget(const cv::Mat& image, const std::vector<Keypoint>& keypoints, const cv::Mat& descriptors);

}  // namespace nft::detection
