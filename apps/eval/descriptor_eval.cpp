// One extractor on one Oxford sequence (see descriptor_eval.h).

#include "apps/eval/descriptor_eval.h"

#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>

#include "detection/fast_detector.h"

namespace nft::eval {

using detection::Keypoint;

double ExtractorResult::meanRecallAtLevel() const {
  double sum = 0.0;
  int n = 0;
  for (const PairResult& p : pairs) {
    if (p.correspondences == 0) continue;
    sum += p.recallAtLevel;
    ++n;
  }
  return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

RatioTestResult ExtractorResult::ratioTotal() const {
  RatioTestResult total;
  long correspondences = 0;
  for (const PairResult& p : pairs) {
    total.matches += p.ratio.matches;
    total.correct += p.ratio.correct;
    correspondences += p.correspondences;
  }
  total.precision = total.matches > 0 ? static_cast<double>(total.correct) / static_cast<double>(total.matches) : 0.0;
  total.recall = correspondences > 0 ? static_cast<double>(total.correct) / static_cast<double>(correspondences) : 0.0;
  return total;
}

std::vector<std::vector<Keypoint>> detectKeypoints(const OxfordSequence& sequence, int n) {
  detection::FastDetectorOptions options;
  options.maxKeypoints = n;
  const detection::FastDetector detector(options);
  std::vector<std::vector<Keypoint>> keypoints;
  for (const cv::Mat& image : sequence.images) keypoints.push_back(detector.detect(image));
  return keypoints;
}

namespace {

/// The kept keypoints (and their descriptor rows) that are visible in the other image.
struct Subset {
  std::vector<Keypoint> keypoints;
  cv::Mat descriptors;
};

Subset visibleSubset(const std::vector<Keypoint>& all, const Described& described, const cv::Matx33d& toOther,
                     cv::Size otherSize) {
  std::vector<Keypoint> kept;
  for (int index : described.kept) kept.push_back(all[static_cast<size_t>(index)]);
  const std::vector<bool> visible = visibleIn(toOther, kept, otherSize);
  Subset s;
  for (size_t r = 0; r < kept.size(); ++r) {
    if (!visible[r]) continue;
    s.keypoints.push_back(kept[r]);
    s.descriptors.push_back(described.descriptors.row(static_cast<int>(r)));
  }
  if (s.descriptors.empty()) s.descriptors.create(0, described.descriptors.cols, described.descriptors.type());
  return s;
}

}  // namespace

ExtractorResult evaluateExtractor(const OxfordSequence& sequence, const std::vector<std::vector<Keypoint>>& keypoints,
                                  Extractor& extractor, const EvalOptions& options) {
  if (options.keypoints < 1) throw std::invalid_argument("evaluation: keypoints must be >= 1");
  if (!(options.ratio > 0.0 && options.ratio <= 1.0)) throw std::invalid_argument("evaluation: ratio must be in (0, 1]");
  if (keypoints.size() != sequence.images.size())
    throw std::invalid_argument("evaluation: " + std::to_string(keypoints.size()) + " keypoint lists for " +
                                std::to_string(sequence.images.size()) + " images");
  ExtractorResult result;
  result.sequence = sequence.name;
  result.extractor = extractor.label();

  const auto start = std::chrono::steady_clock::now();
  std::vector<Described> described;
  for (size_t k = 0; k < sequence.images.size(); ++k)
    described.push_back(extractor.describe(sequence.images[k], keypoints[k]));
  result.describeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<std::vector<CurvePoint>> curves;
  for (size_t n = 1; n < sequence.images.size(); ++n) {
    const cv::Matx33d& h = sequence.homographies[n - 1];
    const Subset a = visibleSubset(keypoints[0], described[0], h, sequence.images[n].size());
    const Subset b = visibleSubset(keypoints[n], described[n], h.inv(), sequence.images[0].size());
    const CorrespondenceMask truth(static_cast<int>(a.keypoints.size()), static_cast<int>(b.keypoints.size()),
                                   findCorrespondences(h, a.keypoints, b.keypoints, options.correspondence));
    const cv::Mat distances = descriptorDistances(a.descriptors, b.descriptors, extractor.normType());
    PairResult pair;
    pair.image = static_cast<int>(n) + 1;
    pair.keypoints1 = static_cast<int>(a.keypoints.size());
    pair.keypointsN = static_cast<int>(b.keypoints.size());
    pair.correspondences = truth.count;
    pair.curve = thresholdCurve(distances, truth, extractor.maxDistance(), options.steps);
    pair.recallAtLevel = std::numeric_limits<double>::quiet_NaN();
    if (truth.count > 0) {
      pair.recallAtLevel = recallAtOneMinusPrecision(
          thresholdCurve(distances, truth, extractor.maxDistance(), kSummarySteps), options.level);
      curves.push_back(pair.curve);
    }
    pair.ratio = ratioTestMatching(distances, truth, options.ratio);
    result.pairs.push_back(std::move(pair));
  }
  result.mean = meanCurve(curves);
  return result;
}

}  // namespace nft::eval
