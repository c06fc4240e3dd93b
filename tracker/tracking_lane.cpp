#include "tracker/tracking_lane.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "tracker/ncc_patch.h"

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

void validate(const TrackingLaneOptions& o) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("TrackingLaneOptions::" + what); };
  if (o.patchSize < 4 || o.patchSize > 32 || o.patchSize % 2 != 0)
    fail("patchSize must be even and in [4, 32], got " + std::to_string(o.patchSize));
  if (o.maxPatches < 4 || o.maxPatches > 1000) fail("maxPatches must be in [4, 1000], got " + std::to_string(o.maxPatches));
  if (o.coarseRadiusPx < 1 || o.coarseRadiusPx > 32)
    fail("coarseRadiusPx must be in [1, 32], got " + std::to_string(o.coarseRadiusPx));
  if (o.fineRadiusPx < 1 || o.fineRadiusPx > 16 || o.fineRadiusPx > 2 * o.coarseRadiusPx)
    fail("fineRadiusPx must be in [1, 16] and <= 2 * coarseRadiusPx, got " + std::to_string(o.fineRadiusPx));
  if (!(o.minNcc >= -1 && o.minNcc <= 1)) fail("minNcc must be in [-1, 1], got " + std::to_string(o.minNcc));
  if (o.minInliers < 4) fail("minInliers must be >= 4, got " + std::to_string(o.minInliers));
  if (!(o.minInlierFraction >= 0 && o.minInlierFraction <= 1))
    fail("minInlierFraction must be in [0, 1], got " + std::to_string(o.minInlierFraction));
  if (!(o.ransacThresholdPx > 0) || !std::isfinite(o.ransacThresholdPx))
    fail("ransacThresholdPx must be finite and > 0, got " + std::to_string(o.ransacThresholdPx));
  if (!(o.maxCornerJumpPx > 0)) fail("maxCornerJumpPx must be > 0, got " + std::to_string(o.maxCornerJumpPx));
}

cv::Point2d apply(const cv::Matx33d& H, cv::Point2d p) {
  const double w = H(2, 0) * p.x + H(2, 1) * p.y + H(2, 2);
  return {(H(0, 0) * p.x + H(0, 1) * p.y + H(0, 2)) / w, (H(1, 0) * p.x + H(1, 1) * p.y + H(1, 2)) / w};
}

bool finite(const cv::Matx33d& H) {
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(H.val[i])) return false;
  return true;
}

/// The patches in the order the lane takes them: the model's levels interleaved (a level's
/// strongest first), so that a budget of maxPatches draws from every level.
std::vector<cv::Point2f> interleavedPatches(const std::vector<detection::TrackingPatch>& patches) {
  std::vector<std::vector<cv::Point2f>> byLevel;
  for (const detection::TrackingPatch& p : patches) {
    const size_t level = static_cast<size_t>(std::max(0, p.level));
    if (byLevel.size() <= level) byLevel.resize(level + 1);
    byLevel[level].push_back(p.position);  // the trainer lists each level strongest first
  }
  std::vector<cv::Point2f> order;
  for (size_t rank = 0; order.size() < patches.size(); ++rank)
    for (const auto& level : byLevel)
      if (rank < level.size()) order.push_back(level[rank]);
  return order;
}

}  // namespace

struct TrackingLane::Impl {
  TrackingLaneOptions options;
  CameraCalibration calibration;
  cv::Size targetSize;
  double metresPerPixel = 0;
  std::vector<cv::Mat> targetPyramid;  // CV_8UC1, level 0 = the model's image
  std::vector<cv::Point2f> patches;    // target pixels, in the order they are taken
  cv::Mat half;                        // the frame's half-resolution level (scratch)
  TrackingTimings timings;
  std::string rejection;

  /// Matches of one stage: target points and where they were found in the frame (full resolution).
  struct Matches {
    std::vector<cv::Point2f> target, frame;
    int searched = 0;  // patches with a valid template whose search area lay inside the frame
  };

  /// Warps and searches every visible patch at `level` (0 or 1) of the frame around where H puts it.
  Matches search(const cv::Mat& image, int level, const cv::Matx33d& H, int radius) const {
    Matches m;
    const cv::Matx33d Hinv = H.inv();
    const double scale = std::ldexp(1.0, level);
    const int margin = options.patchSize / 2 + radius + 1;
    for (const cv::Point2f& x : patches) {
      if (m.searched >= options.maxPatches) break;
      const cv::Point2d p = apply(H, cv::Point2d(x.x, x.y)) * (1.0 / scale);  // predicted, level pixels
      if (!(p.x >= margin && p.y >= margin && p.x < image.cols - margin && p.y < image.rows - margin)) continue;
      const cv::Point centre(static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
      const PatchTemplate patch = warpPatch(targetPyramid, Hinv, centre, level, options.patchSize);
      if (!patch.valid) continue;
      ++m.searched;
      const NccPeak peak = searchNcc(image, patch, centre, radius);
      if (!peak.found || peak.score < options.minNcc) continue;
      // The template's grid is centred on `centre`, the patch point predicted at p: it lies at
      // p + shift in this level.
      const cv::Point2d found = (p + cv::Point2d(peak.shift.x, peak.shift.y)) * scale;
      m.target.push_back(x);
      m.frame.emplace_back(static_cast<float>(found.x), static_cast<float>(found.y));
    }
    return m;
  }
};

TrackingLane::TrackingLane(const detection::TargetModel& model, const CameraCalibration& calibration,
                           const TrackingLaneOptions& options) {
  validate(options);
  if (model.image.empty() || model.image.type() != CV_8UC1)
    throw std::invalid_argument("TrackingLane: the target model has no CV_8UC1 image");
  if (model.patches.empty()) throw std::invalid_argument("TrackingLane: the target model has no tracking patches");
  if (calibration.imageSize.width <= 0 || calibration.imageSize.height <= 0)
    throw std::invalid_argument("TrackingLane: calibration.imageSize must be positive, got " +
                                sizeText(calibration.imageSize));
  impl_ = std::make_unique<Impl>();
  impl_->options = options;
  impl_->calibration = calibration;
  impl_->targetSize = model.image.size();
  impl_->metresPerPixel = model.metresPerPixel();
  // Target levels down to ~16 px: a frame pixel covering more target pixels than the coarsest
  // level's pixel samples that level (slightly aliased, and the target is then barely visible).
  impl_->targetPyramid.push_back(model.image);
  while (impl_->targetPyramid.back().cols >= 32 && impl_->targetPyramid.back().rows >= 32) {
    cv::Mat next;
    cv::pyrDown(impl_->targetPyramid.back(), next);
    impl_->targetPyramid.push_back(next);
  }
  impl_->patches = interleavedPatches(model.patches);
}

TrackingLane::~TrackingLane() = default;
TrackingLane::TrackingLane(TrackingLane&&) noexcept = default;
TrackingLane& TrackingLane::operator=(TrackingLane&&) noexcept = default;

cv::Size TrackingLane::frameSize() const { return impl_->calibration.imageSize; }
const TrackingLaneOptions& TrackingLane::options() const { return impl_->options; }
const TrackingTimings& TrackingLane::lastTimings() const { return impl_->timings; }
const std::string& TrackingLane::lastRejection() const { return impl_->rejection; }

std::optional<TrackedTarget> TrackingLane::track(const cv::Mat& gray, const cv::Matx33d& predicted) {
  Impl& s = *impl_;
  if (gray.empty()) throw std::invalid_argument("TrackingLane::track: empty frame");
  if (gray.type() != CV_8UC1)
    throw std::invalid_argument("TrackingLane::track: frame type " + cv::typeToString(gray.type()) + " is not CV_8UC1");
  if (gray.size() != s.calibration.imageSize)
    throw std::invalid_argument("TrackingLane::track: frame size " + sizeText(gray.size()) +
                                " differs from the lane's frame size " + sizeText(s.calibration.imageSize));
  if (!finite(predicted)) throw std::invalid_argument("TrackingLane::track: the predicted homography is not finite");
  s.timings = {};
  s.rejection.clear();
  const auto reject = [&](std::string why) -> std::optional<TrackedTarget> {
    s.rejection = std::move(why);
    return std::nullopt;
  };
  const cv::Size frameSize = s.calibration.imageSize;
  if (!quadProblem(predicted, s.targetSize, frameSize, s.options.quad).empty())
    return reject("implausible prediction: " + quadProblem(predicted, s.targetSize, frameSize, s.options.quad));

  auto t = Clock::now();
  cv::pyrDown(gray, s.half);
  s.timings.pyramid = msSince(t);

  // Coarse: half resolution, wide radius; its homography (if any) seeds the fine stage.
  t = Clock::now();
  cv::Matx33d seed = predicted;
  {
    const Impl::Matches coarse = s.search(s.half, 1, predicted, s.options.coarseRadiusPx);
    if (static_cast<int>(coarse.target.size()) >= s.options.minInliers) {
      std::vector<unsigned char> mask;
      const cv::Mat H = cv::findHomography(coarse.target, coarse.frame, cv::RANSAC, 2 * s.options.ransacThresholdPx, mask);
      if (!H.empty() && cv::countNonZero(mask) >= s.options.minInliers) {
        const cv::Matx33d candidate(H);
        if (finite(candidate) && quadProblem(candidate, s.targetSize, frameSize, s.options.quad).empty())
          seed = candidate * (1.0 / candidate(2, 2));
      }
    }
  }
  s.timings.coarse = msSince(t);

  // Fine: full resolution, small radius, sub-pixel peaks.
  t = Clock::now();
  const Impl::Matches fine = s.search(gray, 0, seed, s.options.fineRadiusPx);
  const int matches = static_cast<int>(fine.target.size());
  if (matches < s.options.minInliers) {
    s.timings.fine = msSince(t);
    return reject("too few patches found: " + std::to_string(matches) + " < " + std::to_string(s.options.minInliers));
  }
  std::vector<unsigned char> mask;
  const cv::Mat H = cv::findHomography(fine.target, fine.frame, cv::RANSAC, s.options.ransacThresholdPx, mask);
  s.timings.fine = msSince(t);
  if (H.empty()) return reject("no homography");
  cv::Matx33d homography(H);
  if (!finite(homography) || homography(2, 2) == 0) return reject("non-finite homography");
  homography *= 1.0 / homography(2, 2);

  TrackedTarget r;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) {
      r.inlierTargetPoints.push_back(fine.target[i]);
      r.inlierFramePoints.push_back(fine.frame[i]);
    }
  r.inliers = static_cast<int>(r.inlierTargetPoints.size());
  r.matches = matches;
  r.searched = fine.searched;
  if (r.inliers < s.options.minInliers)
    return reject("too few inliers: " + std::to_string(r.inliers) + " < " + std::to_string(s.options.minInliers));
  if (r.inliers < s.options.minInlierFraction * r.searched)
    return reject("too few inliers: " + std::to_string(r.inliers) + " of " + std::to_string(r.searched) +
                  " patches searched, below minInlierFraction " + std::to_string(s.options.minInlierFraction));
  const std::string problem = quadProblem(homography, s.targetSize, frameSize, s.options.quad);
  if (!problem.empty()) return reject(problem);
  cv::Point2d corners[4], predictedCorners[4];
  projectTargetCorners(homography, s.targetSize, corners);
  projectTargetCorners(predicted, s.targetSize, predictedCorners);
  double jump = 0;
  for (int i = 0; i < 4; ++i) jump = std::max(jump, cv::norm(corners[i] - predictedCorners[i]));
  if (!(jump <= s.options.maxCornerJumpPx))
    return reject("corner jump " + std::to_string(jump) + " px > " + std::to_string(s.options.maxCornerJumpPx));

  t = Clock::now();
  try {
    r.pose = estimatePose(s.calibration, r.inlierTargetPoints, r.inlierFramePoints, s.metresPerPixel,
                          s.options.refinePose);
  } catch (const std::runtime_error& e) {  // degenerate inliers (e.g. all on a line)
    s.timings.pose = msSince(t);
    return reject(std::string("no pose: ") + e.what());
  }
  s.timings.pose = msSince(t);
  r.homography = homography;
  for (const cv::Point2d& c : corners) r.corners.emplace_back(static_cast<float>(c.x), static_cast<float>(c.y));
  r.reprojectionErrorPx = r.pose.reprojectionErrorPx;
  r.timings = s.timings;
  return r;
}

}  // namespace nft::tracker
