#pragma once
// Per-frame alignment errors of a finished replay, for the success curves of `suite collect`:
// the corners of nft_replay's pose CSV (suite/pose_csv.h) against the ground truth
// (suite/ground_truth.h), with the error of the POT/TMT benchmarks (alignmentError(), the corner
// error) and the visible error (visibleError()).

#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::eval::suite {

/// The alignment error of every frame that has ground truth, pixels; +infinity where the
/// target was not found (a failure at every threshold). Frame i of the CSV is ground-truth
/// frame i; frames beyond the ground truth, frames without annotation (`nan`), and rows in state
/// `skipped` (frames `nft_eval baseline --every` did not run) are not scored (left out).
/// @throws std::runtime_error naming the file (and the line) for a CSV without the header of
///   pose_csv.h, a row with too few fields or a corner that is not a number, and the errors of
///   loadGroundTruth().
std::vector<double> frameErrors(const std::string& posesCsv, const std::string& groundTruth);

/// The visible error (suite/ground_truth.h visibleError()) of every frame that frameErrors()
/// scores and that has a point of the visible error's grid inside the frame of `frameSize`
/// (pixels; the replay's frames), pixels; +infinity where the target was not found. Errors as
/// frameErrors(), and std::invalid_argument for an empty frame size.
std::vector<double> frameVisibleErrors(const std::string& posesCsv, const std::string& groundTruth,
                                       cv::Size frameSize);

/// Fraction of `errors` ≤ `thresholdPx` (0 for no frames).
double successAt(const std::vector<double>& errors, double thresholdPx);

}  // namespace nft::eval::suite
