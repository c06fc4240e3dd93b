#include "tracker/detection_lane.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/calib3d.hpp>

#include "gpu/capabilities.h"
#include "tracker/curved_detection.h"

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;

// Side of the grid of target points whose images under the RANSAC homography the detection's
// pose is fitted to (poseFromHomography): 3, as the session's pose of a refined homography.
constexpr int kPoseGrid = 3;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

void validate(const DetectionLaneOptions& o) {
  if (!(o.ransacThresholdPx > 0) || !std::isfinite(o.ransacThresholdPx))
    throw std::invalid_argument("DetectionLaneOptions::ransacThresholdPx must be finite and > 0, got " +
                                std::to_string(o.ransacThresholdPx));
  if (o.ransacMaxIterations < 1)
    throw std::invalid_argument("DetectionLaneOptions::ransacMaxIterations must be >= 1, got " +
                                std::to_string(o.ransacMaxIterations));
  if (!(o.ransacConfidence > 0 && o.ransacConfidence < 1))
    throw std::invalid_argument("DetectionLaneOptions::ransacConfidence must be in (0, 1), got " +
                                std::to_string(o.ransacConfidence));
  if (o.minInliers < 4)
    throw std::invalid_argument("DetectionLaneOptions::minInliers must be >= 4, got " + std::to_string(o.minInliers));
  if (o.nearMinInliers < 4)
    throw std::invalid_argument("DetectionLaneOptions::nearMinInliers must be >= 4, got " +
                                std::to_string(o.nearMinInliers));
  if (!(o.targetKeypointFactor >= 0) || !std::isfinite(o.targetKeypointFactor))
    throw std::invalid_argument("DetectionLaneOptions::targetKeypointFactor must be finite and >= 0, got " +
                                std::to_string(o.targetKeypointFactor));
  if (!(o.regionKeypointFraction > 0 && o.regionKeypointFraction <= 1))
    throw std::invalid_argument("DetectionLaneOptions::regionKeypointFraction must be in (0, 1], got " +
                                std::to_string(o.regionKeypointFraction));
  if (!(o.firstPassFraction > 0 && o.firstPassFraction <= 1))
    throw std::invalid_argument("DetectionLaneOptions::firstPassFraction must be in (0, 1], got " +
                                std::to_string(o.firstPassFraction));
  detection::validateMatchOptions(o.matching);
}

detection::SurfEsOptions surfOptions(const detection::TargetModel& model, const DetectionPlan& plan,
                                     const DetectionLaneOptions& o) {
  detection::SurfEsOptions s;
  s.maxWidth = plan.frameSize().width;
  s.maxHeight = plan.frameSize().height;
  s.maxKeypoints = plan.maxKeypoints();
  s.type = model.descriptorType;
  s.orientation = model.orientation;
  s.storage = o.storage;
  s.precisionBits = o.precisionBits;
  s.boxTaps = o.boxTaps;
  return s;
}

const CameraCalibration& checkedCalibration(const CameraCalibration& c) {
  if (c.imageSize.width <= 0 || c.imageSize.height <= 0)
    throw std::invalid_argument("DetectionLane: calibration.imageSize must be positive, got " + sizeText(c.imageSize));
  return c;
}

/// `o` with the levels a fine frame of `fine` adds to frames of `lane` (the same coarsest scale):
/// round(log(r) / log(scaleFactor)) more, r the sizes' ratio; `o` itself without a fine frame.
detection::FastDetectorOptions fineDetectorOptions(detection::FastDetectorOptions o, cv::Size lane, cv::Size fine) {
  if (fine == cv::Size() || fine == lane) return o;
  const double r = std::sqrt(static_cast<double>(fine.area()) / lane.area());
  o.levels = std::min(32, o.levels + static_cast<int>(std::lround(std::log(r) / std::log(o.scaleFactor))));
  return o;
}

/// The largest frame size the lane takes: options.fineFrameSize when set (checked), else the
/// calibration's.
cv::Size largestFrame(const CameraCalibration& c, const DetectionLaneOptions& o) {
  const cv::Size f = o.fineFrameSize;
  const cv::Size w = checkedCalibration(c).imageSize;
  if (f == cv::Size()) return w;
  if (f.width < w.width || f.height < w.height)
    throw std::invalid_argument("DetectionLaneOptions::fineFrameSize " + sizeText(f) + " is smaller than the lane's frames " +
                                sizeText(w) + " on a side (expected the full-resolution frame of that working frame, or 0x0)");
  return f;
}

/// The plan of a search in a region: the budget regionKeypointFraction × the frame's (at least 4)
/// and the frame plan's passes scaled to it (the same firstPassFraction of the region's budget,
/// doubling): a region the tracker searches after a loss (the target's box and a margin) holds
/// the target on a larger share of it than the whole frame does, so its strongest keypoints find
/// it sooner. Measured on all 531 frames of tmt_bookI, detection alone (the session searches the
/// region around the last detection first, every frame): passes of 250, 500, all of at most
/// 1000 instead of 500, 1000: the same 88.9 / 88.9 % within 5 / 10 px at 0.56 instead of 0.64 ×
/// ORB's time per frame (first pass 125: 0.53 ×).
DetectionPlan regionPlanOf(const DetectionPlan& plan, const DetectionLaneOptions& o) {
  DetectionLaneOptions r = o;
  r.detector = plan.detector();
  r.detector.maxKeypoints =
      static_cast<int>(std::max(4.0, std::ceil(o.regionKeypointFraction * plan.maxKeypoints())));
  r.targetKeypointFactor = 0.0;  // the frame's budget has the target cap already
  return DetectionPlan(plan.frameSize(), r);
}

/// H's local scale at target point p: the square root of |det| of its Jacobian there, det H / w³
/// (w = the third coordinate of H·p). 0 where p maps to infinity or behind it.
double localScale(const cv::Matx33d& H, const cv::Point2f& p) {
  const double w = H(2, 0) * p.x + H(2, 1) * p.y + H(2, 2);
  if (!(std::abs(w) > 1e-12)) return 0.0;
  return std::sqrt(std::abs(cv::determinant(H) / (w * w * w)));
}

const detection::TargetModel& checkedModel(const detection::TargetModel& m) {
  if (m.keypoints.empty() || m.descriptors.empty())
    throw std::invalid_argument("DetectionLane: the target model has no keypoints/descriptors");
  if (m.descriptors.rows != static_cast<int>(m.keypoints.size()))
    throw std::invalid_argument("DetectionLane: the target model has " + std::to_string(m.keypoints.size()) +
                                " keypoints but " + std::to_string(m.descriptors.rows) + " descriptors");
  if (m.image.empty()) throw std::invalid_argument("DetectionLane: the target model has no image");
  if (m.tiltedKeypoints < 0 || static_cast<size_t>(m.tiltedKeypoints) >= m.keypoints.size())
    throw std::invalid_argument("DetectionLane: the target model's tiltedKeypoints " +
                                std::to_string(m.tiltedKeypoints) + " is not in [0, " +
                                std::to_string(m.keypoints.size()) + ") (it needs frontal keypoints)");
  return m;
}

}  // namespace

namespace {

// The RANSAC iterations after which a set of n matches holding m inliers has given an all-inlier
// sample of 4 with probability `confidence`: 1 − (1 − p)^k >= confidence, p = C(m, 4) / C(n, 4)
// (4 drawn without replacement); at most `cap`, at least 1. A detection needs minInliers inliers,
// so a set that has shown none with that many after the iterations for m = minInliers holds
// fewer at that confidence, and more iterations are spent on a set that fails anyway. On
// tmt_bookI, detection alone, 829 of 1344 RANSAC calls failed and took 81 % of the RANSAC time
// (MAGSAC's 2000 iterations, about 1 ms each call), a third of them on fewer than 50 matches,
// where 250 iterations or fewer suffice: RANSAC's time 1690 -> 1337 ms over the 531 frames.
int iterationsFor(int m, int n, double confidence, int cap) {
  if (m >= n) return std::min(cap, 1);
  double p = 1.0;
  for (int i = 0; i < 4; ++i) p *= static_cast<double>(m - i) / (n - i);
  if (!(p > 0)) return cap;
  const double k = std::ceil(std::log(1.0 - confidence) / std::log1p(-p));
  return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(cap)));
}

// verifyDetection on one set of matches.
std::optional<Detection> verifyMatches(const std::vector<detection::Match>& matches,
                                       const std::vector<cv::Point2f>& targetPoints,
                                       const std::vector<detection::Keypoint>& frameKeypoints, cv::Size targetSize,
                                       double metresPerPixel, const CameraCalibration& calibration,
                                       const DetectionLaneOptions& o, std::string& rejection, double& ransacMs,
                                       double& poseMs) {
  rejection.clear();
  if (static_cast<int>(matches.size()) < o.minInliers) {
    rejection = "too few matches: " + std::to_string(matches.size()) + " < " + std::to_string(o.minInliers);
    return std::nullopt;
  }
  auto t = Clock::now();
  std::vector<cv::Point2f> src, dst;
  src.reserve(matches.size());
  dst.reserve(matches.size());
  for (const detection::Match& m : matches) {
    src.push_back(targetPoints[static_cast<size_t>(m.target)]);
    const detection::Keypoint& k = frameKeypoints[static_cast<size_t>(m.query)];
    dst.emplace_back(k.x, k.y);
  }
  std::vector<unsigned char> mask;
  const int iterations =
      iterationsFor(o.minInliers, static_cast<int>(matches.size()), o.ransacConfidence, o.ransacMaxIterations);
  const cv::Mat H =
      cv::findHomography(src, dst, o.ransacMethod, o.ransacThresholdPx, mask, iterations, o.ransacConfidence);
  ransacMs += msSince(t);
  if (H.empty()) {
    rejection = "no homography";
    return std::nullopt;
  }
  cv::Matx33d homography(H);
  if (std::abs(homography(2, 2)) > 0) homography *= 1.0 / homography(2, 2);
  std::vector<cv::Point2f> inSrc, inDst;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) {
      inSrc.push_back(src[i]);
      inDst.push_back(dst[i]);
    }
  const int inliers = static_cast<int>(inSrc.size());
  if (inliers < o.minInliers) {
    rejection = "too few inliers: " + std::to_string(inliers) + " < " + std::to_string(o.minInliers);
    return std::nullopt;
  }
  rejection = quadProblem(homography, targetSize, calibration.imageSize, o.quad);
  if (!rejection.empty()) return std::nullopt;
  t = Clock::now();
  Detection d;
  try {
    // The pose of the homography (a kPoseGrid² grid of target points it maps) rather than of
    // the inliers themselves: RANSAC has fitted H to them already, and IPPE + LM on 100-250
    // inliers took 1.2-1.4 ms a detection on tmt_bookI (a sixth of the lane) against ~0.5 ms on
    // the 9 grid points. The session reports the pose of a refined homography the same way.
    d.pose = poseFromHomography(calibration, homography, targetSize, metresPerPixel, kPoseGrid, o.refinePose);
    d.pose.reprojectionErrorPx = meanReprojectionErrorPx(calibration, d.pose, inSrc, inDst, metresPerPixel);
    d.pose.inliers = inliers;
  } catch (const std::exception& e) {  // IPPE found no pose, or H puts the target behind the camera
    poseMs += msSince(t);
    rejection = std::string("no pose: ") + e.what();
    return std::nullopt;
  }
  poseMs += msSince(t);
  d.homography = homography;
  d.inliers = inliers;
  cv::Point2d corners[4];
  projectTargetCorners(homography, targetSize, corners);
  for (const cv::Point2d& c : corners) d.corners.emplace_back(static_cast<float>(c.x), static_cast<float>(c.y));
  d.reprojectionErrorPx = d.pose.reprojectionErrorPx;
  d.keypoints = static_cast<int>(frameKeypoints.size());
  d.matches = static_cast<int>(matches.size());
  return d;
}

}  // namespace

int ransacIterationsFor(int inliers, int matches, double confidence, int cap) {
  if (inliers < 4 || matches < inliers || !(confidence > 0 && confidence < 1) || cap < 1)
    throw std::invalid_argument("ransacIterationsFor: expected 4 <= inliers <= matches, confidence in (0, 1) and "
                                "cap >= 1, got " + std::to_string(inliers) + ", " + std::to_string(matches) + ", " +
                                std::to_string(confidence) + ", " + std::to_string(cap));
  return iterationsFor(inliers, matches, confidence, cap);
}

std::optional<Detection> verifyDetection(const std::vector<detection::Match>& matches,
                                         const std::vector<cv::Point2f>& targetPoints,
                                         const std::vector<detection::Keypoint>& frameKeypoints, cv::Size targetSize,
                                         double metresPerPixel, const CameraCalibration& calibration,
                                         const DetectionLaneOptions& o, std::string& rejection, double& ransacMs,
                                         double& poseMs) {
  std::optional<Detection> d = verifyMatches(matches, targetPoints, frameKeypoints, targetSize, metresPerPixel,
                                             calibration, o, rejection, ransacMs, poseMs);
  if (d) return d;
  // The stricter ratios of kStricterRatios (see detection_lane.h): the matches of a small target
  // among many false ones, which RANSAC's iterations do not reach at the lane's ratio.
  const std::string first = rejection;
  size_t tried = matches.size();
  for (const float ratio : kStricterRatios) {
    if (!(ratio < o.matching.ratio)) continue;
    std::vector<detection::Match> strict;
    for (const detection::Match& m : matches)
      if (m.distance < ratio * m.secondDistance) strict.push_back(m);
    if (static_cast<int>(strict.size()) < o.minInliers) break;
    if (strict.size() == tried) continue;
    tried = strict.size();
    d = verifyMatches(strict, targetPoints, frameKeypoints, targetSize, metresPerPixel, calibration, o, rejection,
                      ransacMs, poseMs);
    if (d) {
      // Guided: fitted again on every match of the lane's ratio that the strict homography
      // explains. The strict set's 20-40 inliers fix where the target is; the others fix it more
      // exactly (korean_book: 36.5 / 73.0 % of frames within 5 / 10 px without the re-fit,
      // 42.2 / 75.7 % with it; 40.7 / 73.4 % without the stricter sets).
      std::vector<detection::Match> consistent;
      for (const detection::Match& m : matches) {
        const cv::Point2f& t = targetPoints[static_cast<size_t>(m.target)];
        const cv::Vec3d p = d->homography * cv::Vec3d(t.x, t.y, 1.0);
        const detection::Keypoint& k = frameKeypoints[static_cast<size_t>(m.query)];
        if (std::abs(p[2]) > 1e-12 && std::hypot(p[0] / p[2] - k.x, p[1] / p[2] - k.y) <= o.ransacThresholdPx)
          consistent.push_back(m);
      }
      if (static_cast<int>(consistent.size()) > d->inliers) {
        std::string why;
        if (std::optional<Detection> refit = verifyMatches(consistent, targetPoints, frameKeypoints, targetSize,
                                                           metresPerPixel, calibration, o, why, ransacMs, poseMs))
          d = std::move(refit);
      }
      d->matches = static_cast<int>(matches.size());
      return d;
    }
  }
  rejection = first;
  return std::nullopt;
}

struct DetectionLane::Impl {
  /// `tilted`: the matcher of the model's tilted-view descriptors, matched only when the frontal
  /// ones find nothing; null: `m` holds all of them.
  Impl(std::unique_ptr<detection::KeypointDescriber> d, std::unique_ptr<detection::TargetMatcher> m,
       std::unique_ptr<detection::TargetMatcher> tilted, const detection::TargetModel& model,
       const CameraCalibration& cal, const DetectionPlan& p, const DetectionLaneOptions& o)
      : options(o),
        calibration(cal),
        fineCalibration(o.fineFrameSize.empty() ? cal : scaledTo(cal, o.fineFrameSize)),
        targetSize(model.image.size()),
        metresPerPixel(model.metresPerPixel()),
        plan(p),
        regionPlan(regionPlanOf(p, o)),
        detector(plan.detector()),
        fineDetector(fineDetectorOptions(plan.detector(), cal.imageSize, o.fineFrameSize)),
        describer(std::move(d)),
        matcher(std::move(m)),
        tiltedMatcher(std::move(tilted)) {
    if (!describer || !matcher) throw std::invalid_argument("DetectionLane: null describer or matcher");
    if (describer->type() != model.descriptorType || describer->orientation() != model.orientation)
      throw std::invalid_argument("DetectionLane: the describer's descriptor type or orientation differs from the "
                                  "target model's");
    targetPoints.reserve(model.keypoints.size());
    for (const detection::Keypoint& k : model.keypoints) {
      targetPoints.emplace_back(k.x, k.y);
      targetScales.push_back(k.scale);
      minTargetScale = std::min(minTargetScale, static_cast<double>(k.scale));
      maxTargetScale = std::max(maxTargetScale, static_cast<double>(k.scale));
    }
    if (model.geometry.curved()) surface.emplace(model.geometry, model.widthMetres, model.image.size());
    if (tiltedMatcher) {
      frontal = model.frontalKeypoints();
      matcher->setTarget(model.descriptors.rowRange(0, frontal));
      tiltedMatcher->setTarget(model.descriptors.rowRange(frontal, model.descriptors.rows));
    } else {
      matcher->setTarget(model.descriptors);
    }
  }

  DetectionLaneOptions options;
  CameraCalibration calibration;
  /// calibration at options.fineFrameSize (calibration itself when none is set).
  CameraCalibration fineCalibration;
  cv::Size targetSize;
  double metresPerPixel;
  DetectionPlan plan;
  /// The passes of a search in a region (detect(frame, region)): the plan's, scaled to the
  /// region's budget (regionPlanOf).
  DetectionPlan regionPlan;
  detection::FastDetector detector;
  /// The detector of fine frames: as many more levels as the fine frame is larger, so that its
  /// coarsest level is the working frame's (a fine search covers the working one's scales too).
  detection::FastDetector fineDetector;
  std::unique_ptr<detection::KeypointDescriber> describer;
  std::unique_ptr<detection::TargetMatcher> matcher;
  std::unique_ptr<detection::TargetMatcher> tiltedMatcher;  // null: `matcher` holds every descriptor
  int frontal = 0;  // with tiltedMatcher: its target index 0 is the model's keypoint `frontal`
  std::vector<cv::Point2f> targetPoints;
  std::vector<float> targetScales;  // SURF scale of each model keypoint, target pixels
  double minTargetScale = 1e30, maxTargetScale = 0;
  DetectionTimings timings;
  std::string rejection;
  /// A curved target's surface (detection/label_surface.h); empty for a flat print.
  std::optional<detection::LabelSurface> surface;

  /// Steps 4 and 5 of detect() on `matches` (target indices into targetPoints) in a frame of
  /// `frameCalibration`'s size: the detection, or std::nullopt with `rejection` set; adds to
  /// timings.ransac and timings.pose. `near`: the matches of detect(frame, region, near), whose
  /// inlier floor is options.nearMinInliers.
  std::optional<Detection> verify(const std::vector<detection::Keypoint>& keypoints,
                                  const std::vector<detection::Match>& matches,
                                  const CameraCalibration& frameCalibration, bool near) {
    DetectionLaneOptions o = options;  // near a pose: its scale-consistent matches
    if (near) o.minInliers = std::min(options.minInliers, options.nearMinInliers);
    if (surface) {  // a curved label: 2D–3D correspondences and PnP (tracker/curved_detection.h)
      double ransacMs = 0, poseMs = 0;
      std::optional<Detection> d = verifyCurvedDetection(matches, targetPoints, keypoints, *surface, targetSize,
                                                         frameCalibration, o, rejection, ransacMs, poseMs);
      timings.ransac += ransacMs;
      timings.pose += poseMs;
      return d;
    }
    return verifyDetection(matches, targetPoints, keypoints, targetSize, metresPerPixel, frameCalibration, o,
                           rejection, timings.ransac, timings.pose);
  }

  /// A detection in a fine frame (fineCalibration's pixels) in the lane's frame pixels
  /// (calibration's): u = (x + 0.5) / rx − 0.5 (scaledTo's mapping). The pose is the same camera's.
  void toLaneFrame(Detection& d) const {
    const double rx = static_cast<double>(fineCalibration.imageSize.width) / calibration.imageSize.width;
    const double ry = static_cast<double>(fineCalibration.imageSize.height) / calibration.imageSize.height;
    const cv::Matx33d A(1 / rx, 0, 0.5 / rx - 0.5, 0, 1 / ry, 0.5 / ry - 0.5, 0, 0, 1);
    cv::Matx33d H = A * d.homography;
    d.homography = H * (1.0 / H(2, 2));
    for (cv::Point2f& c : d.corners)
      c = cv::Point2f(static_cast<float>(A(0, 0) * c.x + A(0, 2)), static_cast<float>(A(1, 1) * c.y + A(1, 2)));
    const double scale = std::sqrt(rx * ry);
    d.reprojectionErrorPx /= scale;
    d.pose.reprojectionErrorPx /= scale;
  }
};

DetectionLane::DetectionLane(const gpu::Capabilities& caps, const detection::TargetModel& model,
                             const CameraCalibration& calibration, const DetectionLaneOptions& options) {
  validate(options);
  checkedModel(model);
  const DetectionPlan plan(largestFrame(calibration, options), options, static_cast<size_t>(model.frontalKeypoints()));
  impl_ = std::make_unique<Impl>(
      detection::makeKeypointDescriber(options.descriptorBackend, caps, surfOptions(model, plan, options)),
      detection::makeTargetMatcher(options.matcherBackend, caps, plan.maxKeypoints()),
      model.tiltedKeypoints > 0 ? detection::makeTargetMatcher(options.matcherBackend, caps, plan.maxKeypoints())
                                : nullptr,
      model, calibration, plan, options);
}

DetectionLane::DetectionLane(std::unique_ptr<detection::KeypointDescriber> describer,
                             std::unique_ptr<detection::TargetMatcher> matcher, const detection::TargetModel& model,
                             const CameraCalibration& calibration, const DetectionLaneOptions& options) {
  validate(options);
  const DetectionPlan plan(largestFrame(calibration, options), options,
                           static_cast<size_t>(checkedModel(model).frontalKeypoints()));
  impl_ = std::make_unique<Impl>(std::move(describer), std::move(matcher), nullptr, model, calibration, plan, options);
}

DetectionLane::~DetectionLane() = default;
DetectionLane::DetectionLane(DetectionLane&&) noexcept = default;
DetectionLane& DetectionLane::operator=(DetectionLane&&) noexcept = default;

cv::Size DetectionLane::frameSize() const { return impl_->calibration.imageSize; }
cv::Size DetectionLane::targetSize() const { return impl_->targetSize; }
const DetectionLaneOptions& DetectionLane::options() const { return impl_->options; }
detection::Backend DetectionLane::descriptorBackend() const { return impl_->describer->backend(); }
detection::Backend DetectionLane::matcherBackend() const { return impl_->matcher->backend(); }
const DetectionTimings& DetectionLane::lastTimings() const { return impl_->timings; }
const std::string& DetectionLane::lastRejection() const { return impl_->rejection; }
const DetectionPlan& DetectionLane::plan() const { return impl_->plan; }

std::optional<Detection> DetectionLane::detect(const cv::Mat& frame) {
  const cv::Size lane = impl_->calibration.imageSize;
  return detect(frame, cv::Rect(0, 0, lane.width, lane.height));
}

std::optional<Detection> DetectionLane::detect(const cv::Mat& frame, const cv::Rect& region) {
  return detectNear(frame, region, nullptr);
}

std::optional<Detection> DetectionLane::detect(const cv::Mat& frame, const cv::Rect& region, const cv::Matx33d& near) {
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(near.val[i])) throw std::invalid_argument("DetectionLane::detect: the homography near is not finite");
  return detectNear(frame, region, &near);
}

std::optional<Detection> DetectionLane::detectNear(const cv::Mat& frame, const cv::Rect& region,
                                                   const cv::Matx33d* near) {
  Impl& s = *impl_;
  if (frame.empty()) throw std::invalid_argument("DetectionLane::detect: empty frame");
  if (frame.type() != CV_8UC1 && frame.type() != CV_8UC3)
    throw std::invalid_argument("DetectionLane::detect: frame type " + cv::typeToString(frame.type()) +
                                " is not CV_8UC1 or CV_8UC3");
  // A fine frame (options.fineFrameSize): the search there, the region and result mapped.
  const bool fine = !s.options.fineFrameSize.empty() && frame.size() == s.options.fineFrameSize &&
                    frame.size() != s.calibration.imageSize;
  if (frame.size() != s.calibration.imageSize && !fine)
    throw std::invalid_argument("DetectionLane::detect: frame size " + sizeText(frame.size()) +
                                " differs from the lane's frame size " + sizeText(s.calibration.imageSize) +
                                (s.options.fineFrameSize.empty() ? std::string()
                                                                 : " and its fine frame size " + sizeText(s.options.fineFrameSize)) +
                                " (resize the frame or build a lane for that size)");
  const CameraCalibration& frameCalibration = fine ? s.fineCalibration : s.calibration;
  cv::Rect searched = region;
  if (fine) {
    // The region's pixel edges (pixel u spans [u, u + 1) in edge coordinates, its centre u + 0.5)
    // map to edge · r, as the centres do ((u + 0.5)·r in edge coordinates).
    const double rx = static_cast<double>(frame.cols) / s.calibration.imageSize.width;
    const double ry = static_cast<double>(frame.rows) / s.calibration.imageSize.height;
    const int x0 = static_cast<int>(std::floor(region.x * rx)), y0 = static_cast<int>(std::floor(region.y * ry));
    const int x1 = static_cast<int>(std::ceil((region.x + region.width) * rx));
    const int y1 = static_cast<int>(std::ceil((region.y + region.height) * ry));
    searched = cv::Rect(x0, y0, x1 - x0, y1 - y0);
  }
  // `near` in the searched frame's pixels: lane pixel centre u is fine pixel (u + 0.5)·r − 0.5.
  std::optional<cv::Matx33d> nearInFrame;
  if (near) {
    nearInFrame = *near;
    if (fine) {
      const double rx = static_cast<double>(frame.cols) / s.calibration.imageSize.width;
      const double ry = static_cast<double>(frame.rows) / s.calibration.imageSize.height;
      nearInFrame = cv::Matx33d(rx, 0, 0.5 * rx - 0.5, 0, ry, 0.5 * ry - 0.5, 0, 0, 1) * *near;
    }
  }
  std::optional<Detection> d = detectIn(frame, searched, frameCalibration, fine ? s.fineDetector : s.detector,
                                        nearInFrame ? &*nearInFrame : nullptr);
  if (d && fine) s.toLaneFrame(*d);
  return d;
}

std::optional<Detection> DetectionLane::detectIn(const cv::Mat& frame, const cv::Rect& region,
                                                 const CameraCalibration& frameCalibration,
                                                 const detection::FastDetector& detector, const cv::Matx33d* near) {
  Impl& s = *impl_;
  s.timings = {};
  s.rejection.clear();
  const auto reject = [&](std::string why) -> std::optional<Detection> {
    s.rejection = std::move(why);
    return std::nullopt;
  };

  // 1. Keypoints (in the region, shifted to frame pixels).
  auto t = Clock::now();
  const cv::Rect inside = region & cv::Rect(0, 0, frame.cols, frame.rows);
  if (inside.width < 8 || inside.height < 8) {
    s.timings.detect = msSince(t);
    return reject("empty detection region");
  }
  std::vector<detection::Keypoint> keypoints = detector.detect(frame(inside));
  if (near) {
    // The budget on the scales the target can show: its keypoints' scales times near's local
    // scale over the target (its corners' extremes), within kNearScaleTolerance.
    double lo = 1e30, hi = 0;
    for (const cv::Point2f& c : {cv::Point2f(0, 0), cv::Point2f(static_cast<float>(s.targetSize.width), 0),
                                 cv::Point2f(static_cast<float>(s.targetSize.width), static_cast<float>(s.targetSize.height)),
                                 cv::Point2f(0, static_cast<float>(s.targetSize.height))}) {
      const double l = localScale(*near, c);
      lo = std::min(lo, l), hi = std::max(hi, l);
    }
    lo *= s.minTargetScale / kNearScaleTolerance;
    hi *= s.maxTargetScale * kNearScaleTolerance;
    keypoints.erase(std::remove_if(keypoints.begin(), keypoints.end(),
                                   [&](const detection::Keypoint& k) { return k.scale < lo || k.scale > hi; }),
                    keypoints.end());
  }
  const bool inRegion = inside.area() < frame.rows * frame.cols;
  const DetectionPlan& plan = inRegion ? s.regionPlan : s.plan;
  if (inRegion) {  // a region: the strongest share of the budget
    const size_t cap = static_cast<size_t>(plan.maxKeypoints());
    if (keypoints.size() > cap) keypoints.resize(cap);
  }
  for (detection::Keypoint& k : keypoints) {
    k.x += static_cast<float>(inside.x);
    k.y += static_cast<float>(inside.y);
  }
  s.timings.detect = msSince(t);
  if (keypoints.size() < 4) return reject("too few keypoints: " + std::to_string(keypoints.size()));

  // 2-3. Descriptors and matching with the ratio test, in passes of
  // growing size (DetectionPlan::passEnds): the strongest keypoints first, the next pass only when
  // the ones before found nothing (each query's nearest neighbours do not depend on the other
  // queries, so the passes' matches together are those of one pass over all). A GPU describer
  // leaves the descriptors on the GPU unless the matcher needs them here; a GPU readback waits
  // for the GPU.
  const auto describe = [&](size_t begin, size_t end) {
    std::vector<detection::Keypoint> part(keypoints.begin() + static_cast<std::ptrdiff_t>(begin),
                                          keypoints.begin() + static_cast<std::ptrdiff_t>(end));
    const auto start = Clock::now();
    detection::FrameDescriptors out =
        s.describer->describe(frame, part, s.matcher->needsHostQueries(s.options.matching));
    std::copy(part.begin(), part.end(), keypoints.begin() + static_cast<std::ptrdiff_t>(begin));  // angles
    s.timings.describe += msSince(start);
    return out;
  };
  // Matches whose scale ratio (frame keypoint over target keypoint) differs from near's local
  // scale at the target keypoint by more than kNearScaleTolerance: wrong ones.
  const auto keepScaleConsistent = [&](std::vector<detection::Match>& ms, const std::vector<detection::Keypoint>& kps,
                                       const cv::Matx33d& H) {
    ms.erase(std::remove_if(ms.begin(), ms.end(),
                            [&](const detection::Match& m) {
                              const size_t i = static_cast<size_t>(m.target);
                              const double expected = localScale(H, s.targetPoints[i]) * s.targetScales[i];
                              const double ratio = kps[static_cast<size_t>(m.query)].scale / expected;
                              return !(ratio >= 1 / kNearScaleTolerance && ratio <= kNearScaleTolerance);
                            }),
             ms.end());
  };
  const auto match = [&](detection::TargetMatcher& matcher, const detection::FrameDescriptors& queries, size_t begin,
                         int targetOffset, std::vector<detection::Match>& into) {
    const auto start = Clock::now();
    for (detection::Match m : matcher.match(queries, s.options.matching)) {
      m.query += static_cast<int>(begin);
      m.target += targetOffset;
      into.push_back(m);
    }
    s.timings.match += msSince(start);
  };
  std::vector<std::pair<size_t, size_t>> passes;  // [begin, end) of the keypoints of each pass
  std::vector<detection::FrameDescriptors> described;
  std::vector<detection::Match> matches;
  std::optional<Detection> d;
  for (const size_t end : plan.passEnds(keypoints.size())) {
    const size_t begin = passes.empty() ? 0 : passes.back().second;
    passes.emplace_back(begin, end);
    described.push_back(describe(begin, end));
    match(*s.matcher, described.back(), begin, 0, matches);
    if (near) keepScaleConsistent(matches, keypoints, *near);
    d = s.verify(keypoints, matches, frameCalibration, near != nullptr);
    if (d) break;
  }
  // The tilted views' descriptors only when the frontal ones find nothing (most frames show the
  // target within the tilt the frontal descriptors match; the tilted views triple the matching).
  // The last pass's descriptors first: a GPU describer's output is valid only until its next
  // call, so an earlier pass's that are on the GPU only are described again.
  // The matches are added in keypoint order, as one pass over all keypoints adds them.
  if (!d && s.tiltedMatcher) {
    std::vector<std::vector<detection::Match>> tilted(passes.size());
    for (size_t p = passes.size(); p-- > 0;) {
      if (p + 1 < passes.size() && !described[p].onHost())
        described[p] = describe(passes[p].first, passes[p].second);
      match(*s.tiltedMatcher, described[p], passes[p].first, s.frontal, tilted[p]);
    }
    for (std::vector<detection::Match>& part : tilted) {
      if (near) keepScaleConsistent(part, keypoints, *near);
      matches.insert(matches.end(), part.begin(), part.end());
    }
    d = s.verify(keypoints, matches, frameCalibration, near != nullptr);
  }
  if (!d) return std::nullopt;
  d->keypoints = static_cast<int>(keypoints.size());
  d->matches = static_cast<int>(matches.size());
  d->timings = s.timings;
  return d;
}

}  // namespace nft::tracker
