#pragma once
// The descriptor evaluation of seeds/000 section 5.2 on one Oxford sequence and one extractor:
// the same detector keypoints in every image (scale-aware FAST, the strongest N), described by
// the extractor, matched img1 → imgN (N = 2..6) by threshold (the recall vs 1 − precision
// curve) and by nearest neighbour with the ratio test, against the ground-truth
// correspondences of correspondences.h.
//
// Only keypoints that the extractor kept (extractors.h) AND that lie in the part of the scene
// both images show (img1's mapped by H into imgN, imgN's by H⁻¹ into img1, as Mikolajczyk's
// framework restricts regions to the common part) take part in a pair; correspondences are
// counted among those, so they can differ per extractor when OpenCV drops keypoints.

#include <string>
#include <vector>

#include "apps/eval/correspondences.h"
#include "apps/eval/extractors.h"
#include "apps/eval/matching_curve.h"
#include "apps/eval/oxford_sequence.h"
#include "detection/keypoint.h"

namespace nft::eval {

/// Settings of the evaluation.
struct EvalOptions {
  int keypoints = 1000;       ///< N: strongest FAST keypoints per image (>= 1)
  double ratio = 0.8;         ///< ratio test: nearest < ratio · second nearest, in (0, 1]
  int steps = 100;            ///< thresholds of the reported curve over [0, maxDistance] (>= 1)
  double level = 0.2;         ///< the summary's recall is read at 1 − precision = level
  CorrespondenceOptions correspondence;
};

/// Thresholds of the fine curve the summary's recall at `level` is read from (0.002 apart for
/// unit descriptors), independent of EvalOptions::steps.
inline constexpr int kSummarySteps = 1000;

/// The result of one image pair img1 → imgN.
struct PairResult {
  int image = 0;             ///< N (2..6)
  int keypoints1 = 0;        ///< img1 keypoints taking part (kept and in the common part)
  int keypointsN = 0;        ///< imgN keypoints taking part
  long correspondences = 0;  ///< ground-truth correspondences among them
  std::vector<CurvePoint> curve;  ///< EvalOptions::steps thresholds
  /// Recall at 1 − precision = level, on the fine curve; NaN when there are no correspondences
  /// (recall is undefined: e.g. graf 1→6, whose 60° viewpoint change leaves no circular region
  /// pair under 50% overlap error).
  double recallAtLevel = 0;
  RatioTestResult ratio;     ///< nearest neighbour + ratio test
};

/// All pairs of one sequence for one extractor.
struct ExtractorResult {
  std::string sequence;
  std::string extractor;            ///< Extractor::label()
  std::vector<PairResult> pairs;    ///< img1 → img2 .. img6
  /// meanCurve() of the curves of the pairs with correspondences (the thesis's graph).
  std::vector<CurvePoint> mean;
  double describeSeconds = 0;       ///< wall time of describing the six images

  /// Mean of recallAtLevel over the pairs with correspondences; NaN when none has any. (Read
  /// per pair, not on the averaged curve: one hopeless pair, e.g. boat 1→6, keeps the averaged
  /// 1 − precision above 0.2 at every threshold and the averaged curve's reading near 0.)
  double meanRecallAtLevel() const;
  /// Ratio-test counts summed over the pairs; precision = Σ correct / Σ matches, recall =
  /// Σ correct / Σ correspondences.
  RatioTestResult ratioTotal() const;
};

/// The strongest `n` scale-aware FAST keypoints (detection/fast_detector.h, defaults otherwise)
/// of every image of the sequence: result[k] for images[k].
std::vector<std::vector<detection::Keypoint>> detectKeypoints(const OxfordSequence& sequence, int n);

/// Runs the evaluation of one extractor on one sequence.
/// @param keypoints detectKeypoints() of the sequence.
/// @throws std::invalid_argument for options outside their ranges; what the extractor throws.
ExtractorResult evaluateExtractor(const OxfordSequence& sequence,
                                  const std::vector<std::vector<detection::Keypoint>>& keypoints, Extractor& extractor,
                                  const EvalOptions& options);

}  // namespace nft::eval
