#include "tracker/tracking_lane.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <optional>
#include <string>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "tracker/blur_aware_fit.h"
#include "tracker/ncc_patch.h"
#include "tracker/patch_order.h"

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

cv::Point2d apply(const cv::Matx33d& H, cv::Point2d p) {
  const double w = H(2, 0) * p.x + H(2, 1) * p.y + H(2, 2);
  return {(H(0, 0) * p.x + H(0, 1) * p.y + H(0, 2)) / w, (H(1, 0) * p.x + H(1, 1) * p.y + H(1, 2)) / w};
}

bool finite(const cv::Matx33d& H) {
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(H.val[i])) return false;
  return true;
}

/// The largest distance between the target corners under H and under G, frame pixels.
double largestCornerDistance(const cv::Matx33d& H, const cv::Matx33d& G, cv::Size targetSize) {
  cv::Point2d a[4], b[4];
  projectTargetCorners(H, targetSize, a);
  projectTargetCorners(G, targetSize, b);
  double d = 0;
  for (int i = 0; i < 4; ++i) d = std::max(d, cv::norm(a[i] - b[i]));
  return d;
}

/// Area of the convex hull of `points` (pixels²); 0 for fewer than 3.
double hullArea(const std::vector<cv::Point2f>& points) {
  if (points.size() < 3) return 0;
  std::vector<cv::Point2f> hull;
  cv::convexHull(points, hull);
  return cv::contourArea(hull);
}

// RANSAC's settings for the lane's affine fits (cv::estimateAffine2D's defaults).
constexpr size_t kRansacIterations = 2000;
constexpr double kRansacConfidence = 0.99;

/// The affine map from `from` to `to` (frame pixels) fitted by least squares to the inliers that
/// RANSAC (cv::estimateAffine2D, no Levenberg-Marquardt) finds within `threshold` pixels; `mask`
/// marks them. std::nullopt when RANSAC finds no model or the inliers are degenerate.
std::optional<cv::Matx23d> affineFit(const std::vector<cv::Point2f>& from, const std::vector<cv::Point2f>& to,
                                     double threshold, std::vector<unsigned char>& mask) {
  const cv::Mat A = cv::estimateAffine2D(from, to, mask, cv::RANSAC, threshold, kRansacIterations, kRansacConfidence, 0);
  if (A.empty()) return std::nullopt;
  std::vector<BlurredMatch> inliers;
  for (size_t i = 0; i < from.size(); ++i)
    if (mask[i]) inliers.push_back({from[i], to[i], cv::Point2f(0, 0)});
  return fitBlurredCorrection(inliers);
}

}  // namespace

void validateTrackingLaneOptions(const TrackingLaneOptions& o) {
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
  if (o.maxSearchPx < 2 * o.coarseRadiusPx || o.maxSearchPx > 256)
    fail("maxSearchPx must be in [2 * coarseRadiusPx, 256], got " + std::to_string(o.maxSearchPx));
  if (!(o.searchSpeedFactor >= 0) || !std::isfinite(o.searchSpeedFactor))
    fail("searchSpeedFactor must be finite and >= 0, got " + std::to_string(o.searchSpeedFactor));
  if (o.coarsePatches < 4 || o.coarsePatches > 1000)
    fail("coarsePatches must be in [4, 1000], got " + std::to_string(o.coarsePatches));
  if (!(o.blurExposure >= 0 && o.blurExposure <= 1))
    fail("blurExposure must be in [0, 1], got " + std::to_string(o.blurExposure));
  if (o.recoverySearchPx < o.maxSearchPx || o.recoverySearchPx > 256)
    fail("recoverySearchPx must be in [maxSearchPx, 256], got " + std::to_string(o.recoverySearchPx));
  if (!(o.minInlierSpread >= 0 && o.minInlierSpread <= 1))
    fail("minInlierSpread must be in [0, 1], got " + std::to_string(o.minInlierSpread));
}

struct TrackingLane::Impl {
  TrackingLaneOptions options;
  CameraCalibration calibration;
  cv::Size targetSize;
  double metresPerPixel = 0;
  std::vector<cv::Mat> targetPyramid;  // CV_8UC1, level 0 = the model's image
  std::vector<cv::Point2f> patches;    // target pixels, in the order they are taken
  FramePyramid ownPyramid;             // for track(gray, predicted)
  // search()'s per-call buffers (each patch's predicted frame position and visibility).
  mutable std::vector<cv::Point2d> scratchFrame;
  mutable std::vector<unsigned char> scratchVisible;
  mutable PatchTemplate scratchPatch;  // the template being searched (its buffer reused)
  TrackingTimings timings;
  std::string rejection;

  /// Matches of one stage: target points and where they were found in the frame (full
  /// resolution), with where the stage's homography had put them.
  struct Matches {
    std::vector<cv::Point2f> target, frame, expected, streak;
    std::vector<float> score;
    int searched = 0;  // patches with a valid template searched (their window at least partly in the frame)
    double streakPx = 0;  // mean blur streak of the matches, full-resolution pixels
  };

  /// The motion over one frame at target point x, which H puts at `full` (frame pixels): full
  /// minus where `reference` puts x, corrected by half the change of motion since the frame
  /// before (TrackingPrior::referenceBefore) when known.
  static cv::Point2d motionAt(const cv::Point2d& x, const cv::Point2d& full, const cv::Matx33d& reference,
                              const std::optional<cv::Matx33d>& before) {
    const cv::Point2d r = apply(reference, x);
    const cv::Point2d motion = full - r;
    if (!before) return motion;
    // With constant acceleration the motion at the frame's time is the mean motion since the
    // last frame plus half the change since the frame before: 1.5 (x_t − x_t−1) − 0.5 (x_t−1 − x_t−2).
    return motion + 0.5 * (motion - (r - apply(*before, x)));
  }

  /// Warps and searches the visible patches (at most `budget`) at `level` of the frame around
  /// where H puts them, within `radius` level pixels; with a motion reference, each template is
  /// blurred along exposure × the motion at its point (motionAt).
  Matches search(const cv::Mat& image, int level, const cv::Matx33d& H, int radius, int budget,
                 const std::optional<cv::Matx33d>& reference, const std::optional<cv::Matx33d>& before,
                 double exposure) const {
    Matches m;
    const cv::Matx33d Hinv = H.inv();
    const double scale = std::ldexp(1.0, level);
    const int half = options.patchSize / 2;
    const bool blur = reference && exposure > 0;
    // The template's own window must lie in the frame; the search around it is clipped to it.
    std::vector<cv::Point2d>& predictedAt = scratchFrame;
    std::vector<unsigned char>& visible = scratchVisible;
    predictedAt.resize(patches.size());
    visible.resize(patches.size());
    for (size_t i = 0; i < patches.size(); ++i) {
      predictedAt[i] = apply(H, cv::Point2d(patches[i].x, patches[i].y));
      const cv::Point2d p = predictedAt[i] * (1.0 / scale);
      visible[i] = p.x >= half && p.y >= half && p.x < image.cols - half && p.y < image.rows - half;
    }
    for (const int i : spreadOrder(predictedAt, visible, budget)) {
      if (m.searched >= budget) break;
      const cv::Point2f& x = patches[static_cast<size_t>(i)];
      const cv::Point2d full = predictedAt[static_cast<size_t>(i)];
      const cv::Point2d p = full * (1.0 / scale);  // predicted, level pixels
      const cv::Point centre(static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
      const cv::Point2d streak =
          blur ? motionAt(cv::Point2d(x.x, x.y), full, *reference, before) * exposure : cv::Point2d(0, 0);
      PatchTemplate& patch = scratchPatch;
      warpPatchInto(targetPyramid, Hinv, centre, level, options.patchSize, streak, patch);
      if (!patch.valid) continue;
      const NccPeak peak = searchNcc(image, patch, centre, radius, true);
      if (!peak.found) continue;
      ++m.searched;
      if (peak.score < options.minNcc) continue;
      // The template's grid is centred on `centre`, the patch point predicted at p: it lies at
      // p + shift in this level.
      const cv::Point2d found = (p + cv::Point2d(peak.shift.x, peak.shift.y)) * scale;
      m.target.push_back(x);
      m.frame.emplace_back(static_cast<float>(found.x), static_cast<float>(found.y));
      m.expected.emplace_back(static_cast<float>(full.x), static_cast<float>(full.y));
      m.streak.emplace_back(static_cast<float>(streak.x), static_cast<float>(streak.y));
      m.score.push_back(peak.score);
      m.streakPx += std::hypot(streak.x, streak.y);
    }
    if (!m.target.empty()) m.streakPx /= static_cast<double>(m.target.size());
    return m;
  }

  /// Which exposure explains the frame's blur best (TrackedTarget::measuredExposure): the mean
  /// NCC of up to kExposureSamples of r's inliers, at the place they were found (±1 level pixel),
  /// with templates blurred along each candidate of kExposureCandidates × their motion
  /// (motionAt, from `reference` and `before`); −1 when the target moved too little for the blur to tell (a mean motion under
  /// 8 frame pixels).
  double measureExposure(const cv::Mat& image, int level, const TrackedTarget& r, const cv::Matx33d& reference,
                         const std::optional<cv::Matx33d>& before) const {
    const size_t n = r.inlierTargetPoints.size();
    if (n == 0) return -1;
    double motion = 0;
    for (size_t i = 0; i < n; ++i)
      motion += cv::norm(motionAt(cv::Point2d(r.inlierTargetPoints[i]), cv::Point2d(r.inlierFramePoints[i]), reference, before));
    if (motion / static_cast<double>(n) < 8.0) return -1;
    const cv::Matx33d Hinv = r.homography.inv();
    const double scale = std::ldexp(1.0, level);
    double best = -2, bestExposure = -1;
    for (const double candidate : kExposureCandidates) {
      double sum = 0;
      int count = 0;
      for (size_t k = 0; k < static_cast<size_t>(kExposureSamples) && k < n; ++k) {
        const size_t i = k * n / std::min(n, static_cast<size_t>(kExposureSamples));
        const cv::Point2d x(r.inlierTargetPoints[i]);
        const cv::Point2d full = apply(r.homography, x);
        const cv::Point centre(static_cast<int>(std::lround(full.x / scale)),
                               static_cast<int>(std::lround(full.y / scale)));
        const cv::Point2d streak = motionAt(x, full, reference, before) * candidate;
        PatchTemplate& patch = scratchPatch;
        warpPatchInto(targetPyramid, Hinv, centre, level, options.patchSize, streak, patch);
        if (!patch.valid) continue;
        const NccPeak peak = searchNcc(image, patch, centre, 1, true);
        if (!peak.found) continue;
        sum += peak.score;
        ++count;
      }
      if (count > 0 && sum / count > best) {
        best = sum / count;
        bestExposure = candidate;
      }
    }
    return bestExposure;
  }

  /// The blur-aware update (tracker/blur_aware_fit.h): an affine correction of H fitted to the
  /// matches that agree with it, each residual weighed by its streak; `mask` marks those
  /// matches. Threshold: full-resolution pixels across a streak (along one it grows with the
  /// streak). std::nullopt when fewer than 3 agree.
  std::optional<cv::Matx33d> blurredUpdate(const Matches& m, const cv::Matx33d& H, double threshold,
                                           std::vector<unsigned char>& mask) const {
    const size_t n = m.target.size();
    mask.assign(n, 0);
    if (n < 3) return std::nullopt;
    // A first robust affine fit with a threshold as wide as the scatter along the streaks.
    std::vector<unsigned char> ransacMask;
    const cv::Mat A0 = cv::estimateAffine2D(m.expected, m.frame, ransacMask, cv::RANSAC,
                                            threshold * (1.0 + kAlongStreakSigmaPerPx * m.streakPx));
    if (A0.empty()) return std::nullopt;
    cv::Matx23d A(A0.at<double>(0, 0), A0.at<double>(0, 1), A0.at<double>(0, 2), A0.at<double>(1, 0),
                  A0.at<double>(1, 1), A0.at<double>(1, 2));
    // Then twice: the matches within the threshold across their streak and within the threshold
    // scaled by the streak's expected scatter along it, refitted by weighted least squares.
    for (int round = 0; round < 2; ++round) {
      std::vector<BlurredMatch> inliers;
      for (size_t i = 0; i < n; ++i) {
        const cv::Point2d e(m.expected[i]);
        const cv::Point2d r = cv::Point2d(A(0, 0) * e.x + A(0, 1) * e.y + A(0, 2),
                                          A(1, 0) * e.x + A(1, 1) * e.y + A(1, 2)) -
                              cv::Point2d(m.frame[i]);
        const double length = std::hypot(m.streak[i].x, m.streak[i].y);
        const cv::Point2d u =
            length > 1e-9 ? cv::Point2d(m.streak[i].x / length, m.streak[i].y / length) : cv::Point2d(1, 0);
        const double along = std::abs(r.dot(u)), across = std::abs(r.x * -u.y + r.y * u.x);
        const double alongScale = std::sqrt(1.0 + std::pow(kAlongStreakSigmaPerPx * length, 2));
        mask[i] = across <= threshold && along <= threshold * alongScale;
        if (mask[i]) inliers.push_back({m.expected[i], m.frame[i], m.streak[i]});
      }
      const std::optional<cv::Matx23d> refit = fitBlurredCorrection(inliers);
      if (!refit) return std::nullopt;
      A = *refit;
    }
    const cv::Matx33d C(A(0, 0), A(0, 1), A(0, 2), A(1, 0), A(1, 1), A(1, 2), 0, 0, 1);
    cv::Matx33d out = C * H;
    if (!finite(out) || out(2, 2) == 0) return std::nullopt;
    return out * (1.0 / out(2, 2));
  }

  /// The estimate after one stage above the last at `level`: H corrected by the matches'
  /// motion from where H put them (Matches::expected → Matches::frame), when at least
  /// `minMatches` of them fit the correction within the level's threshold and the result is
  /// plausible; at quarter resolution and coarser, else their median shift when most agree on
  /// it; else H unchanged. The correction has fewer parameters the coarser the level (Bergen,
  /// Anandan, Hanna, Hingorani, "Hierarchical Model-Based Motion Estimation", ECCV 1992: the
  /// coarse levels fit the simple models, the fine ones the full one): a similarity (4 DoF) at
  /// quarter and eighth resolution, an affine map (6) at half resolution, in a blurred frame
  /// the blur-weighted affine map (blurredUpdate); only the last stage fits the full homography
  /// (8), so the perspective comes from the prediction until then. A homography fitted to the
  /// 20–35 coarse, streak-smeared matches of quarter resolution (as this lane did before) began
  /// each of the 7 failing stretches of the unconstrained preset (apps/replay/synthetic_presets.h,
  /// seed 8: half-hidden, turning and blurred at once; 32 of 300 frames over 5 px): it turned a
  /// prediction 8–14 px off into one 14–113 px off, which the ±3 level pixels of the levels
  /// below could not undo, and they locked onto it with 50–80 inliers of 100 (README.md, "Fast
  /// motion and the POT presets").
  cv::Matx33d update(const Matches& m, int level, const cv::Matx33d& H, int minMatches) const {
    const double threshold = std::ldexp(options.ransacThresholdPx, level);
    const int n = static_cast<int>(m.target.size());
    if (n >= minMatches && m.streakPx >= std::ldexp(kBlurFitStreakPx, level)) {
      std::vector<unsigned char> mask;
      const std::optional<cv::Matx33d> candidate = blurredUpdate(m, H, threshold, mask);
      if (candidate && cv::countNonZero(mask) >= minMatches &&
          quadProblem(*candidate, targetSize, calibration.imageSize, options.quad).empty())
        return *candidate;
    } else if (n >= minMatches) {
      std::vector<unsigned char> mask;
      // RANSAC (OpenCV's fixed-seed RNG, deterministic); the similarity then refined by
      // Levenberg-Marquardt on the inliers, the affine map fitted to them by least squares (what
      // Levenberg-Marquardt converges to for a model linear in its parameters, in a 40th of its
      // time: 45 -> 6 µs on 100 matches).
      std::optional<cv::Matx23d> A;
      if (level >= 2) {
        const cv::Mat similarity = cv::estimateAffinePartial2D(m.expected, m.frame, mask, cv::RANSAC, threshold);
        if (!similarity.empty()) A = cv::Matx23d(similarity);
      } else {
        A = affineFit(m.expected, m.frame, threshold, mask);
      }
      if (A && cv::countNonZero(mask) >= minMatches) {
        const cv::Matx33d correction((*A)(0, 0), (*A)(0, 1), (*A)(0, 2), (*A)(1, 0), (*A)(1, 1), (*A)(1, 2), 0, 0, 1);
        const cv::Matx33d candidate = correction * H;
        if (finite(candidate) && candidate(2, 2) != 0) {
          const cv::Matx33d normalised = candidate * (1.0 / candidate(2, 2));
          if (quadProblem(normalised, targetSize, calibration.imageSize, options.quad).empty()) return normalised;
        }
      }
    }
    if (level < 2 || n < 3) return H;
    // Few patches (a small or half-hidden target at quarter resolution): a translation.
    std::vector<float> dx(m.frame.size()), dy(m.frame.size());
    for (size_t i = 0; i < m.frame.size(); ++i) {
      dx[i] = m.frame[i].x - m.expected[i].x;
      dy[i] = m.frame[i].y - m.expected[i].y;
    }
    const auto median = [](std::vector<float> v) {
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    const float mx = median(dx), my = median(dy);
    int agree = 0;
    for (size_t i = 0; i < dx.size(); ++i) agree += std::hypot(dx[i] - mx, dy[i] - my) <= threshold ? 1 : 0;
    if (2 * agree <= n) return H;
    return cv::Matx33d(1, 0, mx, 0, 1, my, 0, 0, 1) * H;
  }
};

TrackingLane::TrackingLane(const detection::TargetModel& model, const CameraCalibration& calibration,
                           const TrackingLaneOptions& options) {
  validateTrackingLaneOptions(options);
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
  impl_->targetPyramid = targetPyramidOf(model.image);
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
  const auto t = Clock::now();
  s.ownPyramid.build(gray, 2);
  const double pyramidMs = msSince(t);
  TrackingPrior prior;
  prior.predicted = predicted;
  std::optional<TrackedTarget> r = track(s.ownPyramid, prior);
  s.timings.pyramid += pyramidMs;
  if (r) r->timings.pyramid = s.timings.pyramid;
  return r;
}

std::optional<TrackedTarget> TrackingLane::track(FramePyramid& frame, const TrackingPrior& prior) {
  Impl& s = *impl_;
  const cv::Size frameSize = s.calibration.imageSize;
  if (frame.levelCount() == 0) throw std::invalid_argument("TrackingLane::track: the frame pyramid is empty");
  if (frame.level(0).type() != CV_8UC1 || frame.frameSize() != frameSize)
    throw std::invalid_argument("TrackingLane::track: frame size " + sizeText(frame.frameSize()) +
                                " differs from the lane's frame size " + sizeText(frameSize) +
                                " (or the frame is not CV_8UC1)");
  if (!finite(prior.predicted) || (prior.reference && !finite(*prior.reference)) ||
      (prior.referenceBefore && !finite(*prior.referenceBefore)))
    throw std::invalid_argument("TrackingLane::track: the prior's homographies are not finite");
  if (!(prior.searchRangePx >= 0)) throw std::invalid_argument("TrackingLane::track: searchRangePx must be >= 0");
  if (prior.blurExposure && !(*prior.blurExposure >= 0 && *prior.blurExposure <= 1))
    throw std::invalid_argument("TrackingLane::track: blurExposure must be in [0, 1]");
  s.timings = {};
  s.rejection.clear();
  const auto reject = [&](std::string why) -> std::optional<TrackedTarget> {
    s.rejection = std::move(why);
    return std::nullopt;
  };
  const cv::Matx33d& predicted = prior.predicted;
  if (!quadProblem(predicted, s.targetSize, frameSize, s.options.quad).empty())
    return reject("implausible prediction: " + quadProblem(predicted, s.targetSize, frameSize, s.options.quad));

  // The search range and the level it starts at (see the top of tracking_lane.h).
  const double standard = 2.0 * s.options.coarseRadiusPx;
  double range = std::max(standard, prior.searchRangePx);
  if (prior.reference)
    range = std::max(range, s.options.searchSpeedFactor * largestCornerDistance(predicted, *prior.reference, s.targetSize));
  // The motion's range is capped by maxSearchPx; a range the caller asks for (a retry after a
  // loss) may go beyond, up to what eighth resolution reaches.
  range = std::min(range, std::max(static_cast<double>(s.options.maxSearchPx), prior.searchRangePx));
  range = std::min(range, std::ldexp(static_cast<double>(kMaxSearchRadius), 3));
  int startLevel = 1, startRadius = s.options.coarseRadiusPx;
  if (range > standard) {
    startLevel = 2;
    while (startLevel < 3 && range > std::ldexp(static_cast<double>(kMaxCoarseRadius), startLevel)) ++startLevel;
    startRadius = std::clamp(static_cast<int>(std::ceil(std::ldexp(range, -startLevel))), 2, kMaxSearchRadius);
  }
  // The last level: full resolution, or half resolution in a strongly blurred frame (the mean
  // predicted streak of the target's corners at least kHalfResolutionStreakPx).
  const double exposure = prior.blurExposure.value_or(s.options.blurExposure);
  int finalLevel = 0;
  if (prior.reference && exposure > 0) {
    cv::Point2d a[4], b[4];
    projectTargetCorners(predicted, s.targetSize, a);
    projectTargetCorners(*prior.reference, s.targetSize, b);
    double streak = 0;
    for (int i = 0; i < 4; ++i) streak += 0.25 * exposure * cv::norm(a[i] - b[i]);
    if (streak >= kHalfResolutionStreakPx) finalLevel = 1;
  }
  startLevel = std::max(startLevel, finalLevel + 1);
  auto t = Clock::now();
  frame.ensure(startLevel + 1);
  s.timings.pyramid = msSince(t);
  // A frame too small for the levels asked (under 64 px a side) is searched on those it has.
  startLevel = std::min(startLevel, frame.levelCount() - 1);
  finalLevel = std::min(finalLevel, startLevel);

  // Coarse: from the start level down to the level above the final one; each stage's estimate
  // seeds the next.
  t = Clock::now();
  cv::Matx33d estimate = predicted;
  for (int level = startLevel; level > finalLevel; --level) {
    const bool first = level == startLevel;
    const int radius = first ? startRadius : std::min(kRefineRadius, s.options.coarseRadiusPx);
    const int budget = level >= 2 ? s.options.coarsePatches : s.options.maxPatches;
    const Impl::Matches m =
        s.search(frame.level(level), level, estimate, radius, budget, prior.reference, prior.referenceBefore, exposure);
    // Half resolution needs as many matches as the fine stage's inliers (Wagner et al.'s lane
    // as it was); the coarser levels, with fewer patches, half that.
    const int minMatches = level >= 2 ? std::max(4, s.options.minInliers / 2) : s.options.minInliers;
    estimate = s.update(m, level, estimate, minMatches);
  }
  s.timings.coarse = msSince(t);

  // Fine: full resolution (or half, see above), small radius, sub-pixel peaks. After a search
  // beyond the standard range the coarse estimate may still be a few pixels off: when the fine
  // fit moves the corners by more than the fine radius, the fine stage runs once more from it
  // (PTAM iterates its fine stage likewise).
  t = Clock::now();
  Impl::Matches fine;
  std::vector<unsigned char> mask;
  cv::Matx33d homography;
  for (int pass = 0; pass < 2; ++pass) {
    fine = s.search(frame.level(finalLevel), finalLevel, estimate, s.options.fineRadiusPx, s.options.maxPatches,
                    prior.reference, prior.referenceBefore, exposure);
    const int found = static_cast<int>(fine.target.size());
    if (found < s.options.minInliers) {
      s.timings.fine = msSince(t);
      return reject("too few patches found: " + std::to_string(found) + " < " + std::to_string(s.options.minInliers));
    }
    // A blurred frame: an affine correction of the estimate, weighted by the streaks, then the
    // whole homography refined with the same weights (the prediction's perspective corrected
    // across the streaks); else the homography of the matches (RANSAC, then Levenberg-Marquardt
    // on the inliers).
    cv::Mat H;
    if (fine.streakPx >= kBlurFitStreakPx) {
      if (std::optional<cv::Matx33d> blurred = s.blurredUpdate(fine, estimate, s.options.ransacThresholdPx, mask)) {
        std::vector<cv::Point2f> targets, frames, streaks;
        for (size_t i = 0; i < mask.size(); ++i)
          if (mask[i] != 0) {
            targets.push_back(fine.target[i]);
            frames.push_back(fine.frame[i]);
            streaks.push_back(fine.streak[i]);
          }
        if (const std::optional<cv::Matx33d> refined = refineBlurredHomography(*blurred, targets, frames, streaks))
          blurred = refined;
        H = cv::Mat(*blurred);
      }
    } else {
      H = cv::findHomography(fine.target, fine.frame, cv::RANSAC, s.options.ransacThresholdPx, mask);
    }
    if (H.empty()) {
      s.timings.fine = msSince(t);
      return reject("no homography");
    }
    homography = cv::Matx33d(H);
    if (!finite(homography) || homography(2, 2) == 0) {
      s.timings.fine = msSince(t);
      return reject("non-finite homography");
    }
    homography *= 1.0 / homography(2, 2);
    const double moved = largestCornerDistance(homography, estimate, s.targetSize);
    if (range <= standard || !(moved > std::ldexp(static_cast<double>(s.options.fineRadiusPx), finalLevel))) break;
    estimate = homography;
  }
  s.timings.fine = msSince(t);
  const int matches = static_cast<int>(fine.target.size());

  TrackedTarget r;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) {
      r.inlierTargetPoints.push_back(fine.target[i]);
      r.inlierFramePoints.push_back(fine.frame[i]);
    }
  r.inliers = static_cast<int>(r.inlierTargetPoints.size());
  r.matches = matches;
  r.searched = fine.searched;
  r.coarsestLevel = startLevel;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) {
      r.meanInlierNcc += fine.score[i];
      const cv::Point2d d = apply(homography, cv::Point2d(fine.target[i])) - cv::Point2d(fine.frame[i]);
      const double length = std::hypot(fine.streak[i].x, fine.streak[i].y);
      if (length > 1e-9) {
        const cv::Point2d u(fine.streak[i].x / length, fine.streak[i].y / length);
        const double along = d.dot(u) / std::sqrt(1.0 + std::pow(kAlongStreakSigmaPerPx * length, 2));
        const double across = d.x * -u.y + d.y * u.x;
        r.fitRmsPx += along * along + across * across;
      } else {
        r.fitRmsPx += d.dot(d);
      }
    }
  r.meanInlierNcc /= std::max(1, r.inliers);
  r.fitRmsPx = std::sqrt(r.fitRmsPx / std::max(1, r.inliers));
  r.meanStreakPx = fine.streakPx;
  r.searchRangePx = range;
  if (r.inliers < s.options.minInliers)
    return reject("too few inliers: " + std::to_string(r.inliers) + " < " + std::to_string(s.options.minInliers));
  // Below minInlierFraction, a partly occluded target is still taken when its inliers are many,
  // at least kOccludedInlierFraction of those searched, and correlate well (see
  // kOccludedMinNcc): chance peaks around a wrong prediction score lower.
  const bool occluded = r.inliers >= 2 * s.options.minInliers && r.inliers >= kOccludedInlierFraction * r.searched &&
                        r.meanInlierNcc >= kOccludedMinNcc;
  if (r.inliers < s.options.minInlierFraction * r.searched && !occluded)
    return reject("too few inliers: " + std::to_string(r.inliers) + " of " + std::to_string(r.searched) +
                  " patches searched, below minInlierFraction " + std::to_string(s.options.minInlierFraction));
  const double spread = hullArea(r.inlierTargetPoints) / (static_cast<double>(s.targetSize.area()));
  if (spread < s.options.minInlierSpread)
    return reject("inliers spread over " + std::to_string(spread) + " of the target, below minInlierSpread " +
                  std::to_string(s.options.minInlierSpread));
  const std::string problem = quadProblem(homography, s.targetSize, frameSize, s.options.quad);
  if (!problem.empty()) return reject(problem);
  const double jump = largestCornerDistance(homography, predicted, s.targetSize);
  // A search beyond the standard range may find the target further away than maxCornerJumpPx.
  const double maxJump = range > standard ? std::max(s.options.maxCornerJumpPx, range + 20.0) : s.options.maxCornerJumpPx;
  if (!(jump <= maxJump))
    return reject("corner jump " + std::to_string(jump) + " px > " + std::to_string(maxJump));

  t = Clock::now();
  try {
    if (s.options.refinePose) {
      r.pose = estimatePose(s.calibration, r.inlierTargetPoints, r.inlierFramePoints, s.metresPerPixel, true);
    } else {
      // Unrefined, the pose of the homography fitted to the inliers (IPPE on a 3 × 3 grid of it,
      // as the final refinement's pose) costs a third of IPPE on every inlier, which a caller that
      // refines the homography afterwards (the session's final refinement) replaces anyway.
      r.pose = poseFromHomography(s.calibration, homography, s.targetSize, s.metresPerPixel, 3, false);
      r.pose.reprojectionErrorPx = meanReprojectionErrorPx(s.calibration, r.pose, r.inlierTargetPoints,
                                                          r.inlierFramePoints, s.metresPerPixel);
      r.pose.inliers = r.inliers;
    }
  } catch (const std::exception& e) {  // degenerate inliers (e.g. all on a line), a homography no camera makes
    s.timings.pose = msSince(t);
    return reject(std::string("no pose: ") + e.what());
  }
  s.timings.pose = msSince(t);
  r.homography = homography;
  cv::Point2d corners[4];
  projectTargetCorners(homography, s.targetSize, corners);
  for (const cv::Point2d& c : corners) r.corners.emplace_back(static_cast<float>(c.x), static_cast<float>(c.y));
  r.reprojectionErrorPx = r.pose.reprojectionErrorPx;
  if (prior.reference && prior.measureExposure)
    r.measuredExposure = s.measureExposure(frame.level(finalLevel), finalLevel, r, *prior.reference, prior.referenceBefore);
  r.timings = s.timings;
  return r;
}

}  // namespace nft::tracker
