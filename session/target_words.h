#pragma once
// The vocabulary of targets added one by one (a database brings its own, trained by nft_train
// over the whole database): trained where the recogniser is built — in process() on the first
// frame without the detection worker, on the worker with it (session/async_detector.h) — with the
// same words either way.

#include <vector>

#include <opencv2/core.hpp>

#include "detection/vocabulary.h"

namespace nft::session {

/// A vocabulary tree (detection/vocabulary.h; Nistér & Stewénius, "Scalable Recognition with a
/// Vocabulary Tree", CVPR 2006) over the frontal keypoints' descriptors of every target: depth 3
/// above 20,000 descriptors, else 2. Deterministic (seeded k-means): the same targets give the
/// same words.
/// @param descriptors per target: its descriptors, N_i × D CV_32F (one D for all), row k for its
///   keypoint k, the frontal keypoints first.
/// @param frontal per target: how many of its first rows are frontal keypoints
///   (TargetModel::frontalKeypoints()), 0 <= frontal[i] <= N_i.
/// @throws std::invalid_argument when the two sizes differ or a count is out of range; what
///   Vocabulary::train throws (e.g. no descriptors at all).
detection::Vocabulary trainTargetsVocabulary(const std::vector<cv::Mat>& descriptors, const std::vector<int>& frontal);

}  // namespace nft::session
