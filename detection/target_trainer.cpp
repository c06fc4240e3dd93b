#include "detection/target_trainer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "detection/target_quality.h"

namespace nft::detection {

namespace {

cv::Mat toGray(const cv::Mat& image) {
  if (image.empty() || image.cols < 16 || image.rows < 16)
    throw std::invalid_argument("trainTarget: the target image is " + std::to_string(image.cols) + "x" +
                                std::to_string(image.rows) + " (expected at least 16x16)");
  if (image.type() == CV_8UC1) return image;
  if (image.type() == CV_8UC3) {
    cv::Mat gray;
    cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
    return gray;
  }
  throw std::invalid_argument("trainTarget: image type " + cv::typeToString(image.type()) +
                              " is not supported (expected CV_8UC1 or CV_8UC3)");
}

// Well-textured points to track by NCC (Wagner et al. 2010), spread over the target at each
// level of a factor-2 pyramid: Shi-Tomasi corners (the minimum eigenvalue of the structure
// tensor, which NCC search needs large in both directions), at least `spacing` apart.
std::vector<TrackingPatch> selectPatches(const cv::Mat& gray, const TargetTrainerOptions& o) {
  std::vector<TrackingPatch> patches;
  cv::Mat level = gray;
  // Finer levels get more of the budget: half, a quarter, …, the rest to the last level.
  int budget = o.maxPatches;
  for (int l = 0; l < o.patchLevels && budget > 0; ++l) {
    const int want = l + 1 == o.patchLevels ? budget : std::max(1, budget / 2);
    if (level.cols <= 2 * o.patchMargin || level.rows <= 2 * o.patchMargin) break;
    cv::Mat mask(level.size(), CV_8UC1, cv::Scalar(0));
    mask(cv::Rect(o.patchMargin, o.patchMargin, level.cols - 2 * o.patchMargin, level.rows - 2 * o.patchMargin))
        .setTo(255);
    std::vector<cv::Point2f> corners;
    cv::goodFeaturesToTrack(level, corners, want, 0.01, o.patchSpacing, mask, 3);
    cv::Mat eigen;
    cv::cornerMinEigenVal(level, eigen, 3);
    const float scale = static_cast<float>(1 << l);
    for (const cv::Point2f& c : corners) {
      TrackingPatch p;
      // Level pixel centre (u, v) is level-0 position ((u + 0.5)·2^l − 0.5, …).
      p.position = cv::Point2f((c.x + 0.5f) * scale - 0.5f, (c.y + 0.5f) * scale - 0.5f);
      p.level = l;
      p.score = eigen.at<float>(cvRound(c.y), cvRound(c.x));
      patches.push_back(p);
    }
    budget -= static_cast<int>(corners.size());
    cv::Mat next;
    cv::resize(level, next, cv::Size((level.cols + 1) / 2, (level.rows + 1) / 2), 0, 0, cv::INTER_AREA);
    level = next;
  }
  return patches;
}

// The target's keypoints: FAST over enough levels that a target seen as small as
// options.minDetectedSidePx still has keypoints at its scale, each level given its share of the
// budget (see TargetTrainerOptions::minDetectedSidePx).
std::vector<Keypoint> detectOverScales(const cv::Mat& image, const TargetTrainerOptions& options) {
  if (options.minDetectedSidePx <= 0) return FastDetector(options.detector).detect(image);
  FastDetectorOptions o = options.detector;
  const double longest = std::max(image.cols, image.rows);
  const int needed = 1 + static_cast<int>(std::ceil(std::log(longest / options.minDetectedSidePx) /
                                                    std::log(o.scaleFactor) - 1e-9));
  o.levels = std::clamp(needed, o.levels, 32);
  const int budget = o.maxKeypoints;
  o.maxKeypoints = budget * o.levels;  // every corner the spread keeps; the shares are taken below
  std::vector<Keypoint> all = FastDetector(o).detect(image);  // strongest first
  // Shares in proportion to each level's area (1/f^(2L)), each at least budget / (2·levels).
  std::vector<double> weight(static_cast<size_t>(o.levels));
  double total = 0;
  for (int l = 0; l < o.levels; ++l) total += weight[static_cast<size_t>(l)] = std::pow(o.scaleFactor, -2.0 * l);
  std::vector<int> share(weight.size());
  const int floorShare = budget / (2 * o.levels);
  for (size_t l = 0; l < weight.size(); ++l)
    share[l] = floorShare + static_cast<int>(std::lround((budget - floorShare * o.levels) * weight[l] / total));
  std::vector<Keypoint> kept;
  std::vector<bool> used(all.size(), false);
  std::vector<int> taken(weight.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) {
    const size_t l = static_cast<size_t>(std::clamp(all[i].octave, 0, o.levels - 1));
    if (taken[l] < share[l]) ++taken[l], used[i] = true;
  }
  // Levels with fewer corners than their share leave budget: the strongest of the rest fill it.
  int count = static_cast<int>(std::count(used.begin(), used.end(), true));
  for (size_t i = 0; i < all.size() && count < budget; ++i)
    if (!used[i]) used[i] = true, ++count;
  for (size_t i = 0; i < all.size() && static_cast<int>(kept.size()) < budget; ++i)
    if (used[i]) kept.push_back(all[i]);  // still strongest first
  return kept;
}

}  // namespace

TargetModel trainTarget(const cv::Mat& image, const TargetTrainerOptions& options, const DescribeFunction& describe) {
  if (options.workingSize < 64)
    throw std::invalid_argument("trainTarget: workingSize " + std::to_string(options.workingSize) + " (expected >= 64)");
  if (!(options.widthMetres > 0.0) || !std::isfinite(options.widthMetres))
    throw std::invalid_argument("trainTarget: target width " + std::to_string(options.widthMetres) +
                                " m (expected a positive width in metres)");
  if (options.minDetectedSidePx < 0)
    throw std::invalid_argument("trainTarget: minDetectedSidePx " + std::to_string(options.minDetectedSidePx) +
                                " (expected >= 0)");
  if (options.maxPatches < 0 || options.patchLevels < 1 || options.patchSpacing < 1 || options.patchMargin < 0)
    throw std::invalid_argument("trainTarget: patch options out of range (maxPatches >= 0, patchLevels >= 1, "
                                "patchSpacing >= 1, patchMargin >= 0)");
  const cv::Mat gray = toGray(image);

  TargetModel model;
  const int longest = std::max(gray.cols, gray.rows);
  if (longest > options.workingSize) {
    model.originalScale = static_cast<double>(longest) / options.workingSize;
    const cv::Size size(std::max(1, static_cast<int>(std::lround(gray.cols / model.originalScale))),
                        std::max(1, static_cast<int>(std::lround(gray.rows / model.originalScale))));
    cv::resize(gray, model.image, size, 0, 0, cv::INTER_AREA);
  } else {
    model.image = gray.clone();
  }
  model.widthMetres = options.widthMetres;
  model.descriptorType = options.descriptorType;
  model.orientation = options.orientation;

  std::vector<Keypoint> keypoints = detectOverScales(model.image, options);
  cv::Mat descriptors = describe(model.image, keypoints);
  if (descriptors.rows != static_cast<int>(keypoints.size()) ||
      descriptors.cols != descriptorLength(options.descriptorType))
    throw std::logic_error("trainTarget: the describe function returned " + std::to_string(descriptors.rows) + "x" +
                           std::to_string(descriptors.cols) + " for " + std::to_string(keypoints.size()) +
                           " keypoints");
  // Keep the keypoints that have a descriptor (a uniform patch gives a zero row).
  cv::Mat kept(0, descriptors.cols, CV_32F);
  for (int i = 0; i < descriptors.rows; ++i) {
    if (cv::norm(descriptors.row(i)) < 0.5) continue;
    model.keypoints.push_back(keypoints[static_cast<size_t>(i)]);
    kept.push_back(descriptors.row(i));
  }
  model.descriptors = kept;
  model.patches = selectPatches(model.image, options);
  model.quality = rateTarget(model.image, model.keypoints, model.descriptors);
  return model;
}

}  // namespace nft::detection
