#include "tracker/curved_tracking_lane.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <opencv2/calib3d.hpp>

#include "detection/label_surface.h"
#include "tracker/curved_detection.h"
#include "tracker/ncc_patch.h"
#include "tracker/patch_order.h"

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kPi = 3.14159265358979323846;
// RANSAC's settings for the lane's PnP: the matches are mostly inliers, so it stops early.
constexpr int kRansacIterations = 100;
constexpr double kRansacConfidence = 0.99;
// The lane's pose fit from its prediction: Levenberg-Marquardt on all matches, then on those within
// kTrimFactor × the threshold, then within it; RANSAC from scratch when that keeps fewer than
// kMinLmInlierFraction of them.
constexpr double kTrimFactor = 3.0;
constexpr double kMinLmInlierFraction = 0.5;
// The most a coarse stage's fit may turn the pose, degrees. At a coarse level a few blurred
// matches on a curved label constrain its rotation weakly: in a fast shake the 6-DoF fit there
// turned a pose 35-55° from its prediction (the cup's unconstrained preset at 1280 × 720, frames
// 44 and 114: each then came out 33-36 px off and the label was lost for 2-3 frames), and the last
// stage's matches, searched around it, fitted the wrong pose. A turn past this keeps the rotation
// and moves the pose by the matches' median image shift; the last stage's RANSAC from scratch then
// fits the rotation at full resolution. Measured within 5 px (nft_eval tracking --geometry, 1280 ×
// 720; can unconstrained / can motion_blur / cup unconstrained / cup motion_blur): no limit 95.7 /
// 94.3 / 93.3 / 95.0 %, 15° 97.7 / 95.3 / 96.3 / 96.7 %, 20° 94.3 / 96.3 / 96.7 / 96.3 %, 25° 92.3 /
// 96.7 / 94.0 / 95.0 %; keeping the whole predicted pose instead of shifting it, 59.7 % on the can's
// motion_blur at 10° (its real turns reach 35° a frame); all 32 rows in docs/results.md
// (#results_curved).
constexpr double kMaxCoarseTurnDeg = 15.0;

/// The angle of the rotation between rotation vectors a and b, degrees.
double turnDeg(const cv::Vec3d& a, const cv::Vec3d& b) {
  cv::Matx33d Ra, Rb;
  cv::Rodrigues(a, Ra);
  cv::Rodrigues(b, Rb);
  const cv::Matx33d d = Ra * Rb.t();
  return std::acos(std::clamp((d(0, 0) + d(1, 1) + d(2, 2) - 1) / 2, -1.0, 1.0)) * 180 / kPi;
}

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

cv::Vec3d vec(const cv::Point3d& p) { return {p.x, p.y, p.z}; }

bool finite(const cv::Vec3d& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

/// A pose as R, t and the camera centre in the target frame.
struct View {
  cv::Matx33d R;
  cv::Vec3d t, centre;
  explicit View(const Pose& pose) : t(pose.tvec) {
    cv::Rodrigues(pose.rvec, R);
    centre = -(R.t() * t);
  }
};

}  // namespace

struct CurvedTrackingLane::Impl {
  /// A tracking patch on the surface: its label pixel, 3D point, tangents (metres per label
  /// pixel along u and v) and normal.
  struct SurfacePatch {
    cv::Point2f label;
    cv::Vec3d X, Xu, Xv, normal;
  };
  /// One stage's matches: the patches' label pixels, surface points, where they were found (full
  /// resolution frame pixels) and their NCC.
  struct Matches {
    std::vector<cv::Point2f> label;
    std::vector<cv::Point3d> object;
    std::vector<cv::Point2d> image;
    std::vector<float> score;
    std::vector<cv::Point2d> streak;  // each template's blur streak, full-resolution frame pixels
    int searched = 0;
  };

  TrackingLaneOptions options;
  CameraCalibration calibration;
  cv::Size targetSize;
  std::optional<detection::LabelSurface> surface;
  std::vector<cv::Mat> targetPyramid;
  std::vector<SurfacePatch> patches;
  PatchTemplate scratch;
  TrackingTimings timings;
  std::string rejection;

  /// Frame pixel of X under `view` (no distortion: the templates' homographies have none either).
  cv::Point2d project(const View& view, const cv::Vec3d& X) const {
    const cv::Vec3d q = calibration.K * (view.R * X + view.t);
    return {q[0] / q[2], q[1] / q[2]};
  }

  /// Label pixels near patch p → full-resolution frame pixels under `view`: the tangent plane's
  /// homography at p.
  cv::Matx33d localHomography(const View& view, const SurfacePatch& p) const {
    const cv::Vec3d a = view.R * p.Xu, b = view.R * p.Xv;
    const cv::Vec3d c = view.R * (p.X - p.label.x * p.Xu - p.label.y * p.Xv) + view.t;
    return calibration.K * cv::Matx33d(a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]);
  }

  /// Facing the camera within kMaxPatchTiltDeg and in front of it.
  bool faces(const View& view, const SurfacePatch& p) const {
    const cv::Vec3d toCamera = view.centre - p.X;
    const double d = cv::norm(toCamera);
    return d > 0 && p.normal.dot(toCamera) / d > std::cos(kMaxPatchTiltDeg * kPi / 180) &&
           (view.R * p.X + view.t)[2] > 0;
  }

  /// Searches at `level` (its image `image`) the visible patches under `pose`, at most `budget`,
  /// within `radius` level pixels; templates blurred along exposure × their motion from `reference`.
  Matches search(const cv::Mat& image, int level, const Pose& pose, const std::optional<Pose>& reference,
                 double exposure, int radius, int budget) {
    const View view(pose);
    std::optional<View> before;
    if (reference) before.emplace(*reference);
    const double scale = std::ldexp(1.0, level);
    const int half = options.patchSize / 2;
    std::vector<cv::Point2d> frame(patches.size());
    std::vector<unsigned char> visible(patches.size(), 0);
    for (size_t i = 0; i < patches.size(); ++i) {
      if (!faces(view, patches[i])) continue;
      frame[i] = project(view, patches[i].X);
      const cv::Point c(cvRound(frame[i].x / scale), cvRound(frame[i].y / scale));
      visible[i] = c.x - half >= 0 && c.y - half >= 0 && c.x + half <= image.cols && c.y + half <= image.rows;
    }
    Matches m;
    for (const int index : spreadOrder(frame, visible, budget)) {
      if (m.searched >= budget) break;
      const SurfacePatch& p = patches[static_cast<size_t>(index)];
      const cv::Point2d q = frame[static_cast<size_t>(index)];
      const cv::Point centre(cvRound(q.x / scale), cvRound(q.y / scale));
      const cv::Point2d streak = before ? exposure * (q - project(*before, p.X)) : cv::Point2d();
      warpPatchInto(targetPyramid, localHomography(view, p).inv(), centre, level, options.patchSize, streak, scratch);
      if (!scratch.valid) continue;
      ++m.searched;
      const NccPeak peak = searchNcc(image, scratch, centre, radius, true);
      if (!peak.found || peak.score < options.minNcc) continue;
      // The template is what the prediction shows on the level's grid: the image found shifted
      // by `shift` level pixels puts the patch's point that far from its prediction.
      m.label.push_back(p.label);
      m.object.emplace_back(p.X[0], p.X[1], p.X[2]);
      m.image.push_back(q + scale * cv::Point2d(peak.shift.x, peak.shift.y));
      m.score.push_back(peak.score);
      m.streak.push_back(streak);
    }
    return m;
  }

  /// `pose`'s translation moved so that its projections of `m`'s surface points shift by the
  /// matches' median offset from them (x and y apart, frame pixels), at the depth of the target
  /// frame's origin: a coarse stage's update when its fit turned too far (kMaxCoarseTurnDeg).
  cv::Vec3d shifted(const Matches& m, const Pose& pose) const {
    std::vector<cv::Point2d> projected;
    cv::projectPoints(m.object, pose.rvec, pose.tvec, calibration.K, calibration.distortion, projected);
    std::vector<double> dx, dy;
    for (size_t i = 0; i < projected.size(); ++i) {
      dx.push_back(m.image[i].x - projected[i].x);
      dy.push_back(m.image[i].y - projected[i].y);
    }
    const auto median = [](std::vector<double>& v) {
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    const double z = pose.tvec[2];
    return pose.tvec + cv::Vec3d(median(dx) * z / calibration.K(0, 0), median(dy) * z / calibration.K(1, 1), 0);
  }

  /// The pose fitted to `m`'s matches within `thresholdPx`, from and into `pose`; `inliers` their
  /// indices. From the pose so far (`fromScratch` false; it is close, and NCC peaks above minNcc
  /// are mostly right): Levenberg-Marquardt on all matches, then on those within kTrimFactor × the
  /// threshold, then on those within it, kept when at least kMinLmInlierFraction of them fit. Else,
  /// and from scratch: RANSAC over AP3P samples (cv::solvePnPRansac, kRansacIterations at most),
  /// refined by Levenberg-Marquardt on its inliers. Every Levenberg-Marquardt is refinePose
  /// (tracker/pose.h) with the matches' blur streaks. Not from scratch (a coarse stage), a fit that
  /// turns the pose more than kMaxCoarseTurnDeg is replaced by `pose` moved by the matches' median
  /// shift (shifted()). False, `pose` untouched, with fewer than minInliers inliers or no solution.
  bool fit(const Matches& m, double thresholdPx, Pose& pose, std::vector<int>& inliers, bool fromScratch) {
    inliers.clear();
    if (static_cast<int>(m.object.size()) < options.minInliers) return false;
    const auto within = [&](const cv::Vec3d& r, const cv::Vec3d& t, double limit) {
      std::vector<cv::Point2d> projected;
      cv::projectPoints(m.object, r, t, calibration.K, calibration.distortion, projected);
      std::vector<int> kept;
      for (size_t i = 0; i < projected.size(); ++i)
        if (cv::norm(projected[i] - m.image[i]) < limit) kept.push_back(static_cast<int>(i));
      return kept;
    };
    // Each match weighted across and along its template's blur streak (refinePose, the planar
    // lane's blur_aware_fit.h rule).
    const auto refine = [&](const std::vector<int>& subset, cv::Vec3d& r, cv::Vec3d& t) {
      refinePose(calibration, m.object, m.image, &subset, r, t, &m.streak);
    };
    cv::Vec3d r = pose.rvec, t = pose.tvec;
    bool fitted = false;
    if (!fromScratch) {
      std::vector<int> all(m.object.size());
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
      refine(all, r, t);
      for (const double factor : {kTrimFactor, 1.0}) {
        const std::vector<int> kept = within(r, t, factor * thresholdPx);
        if (static_cast<int>(kept.size()) < options.minInliers) break;
        refine(kept, r, t);
      }
      inliers = within(r, t, thresholdPx);
      fitted = static_cast<int>(inliers.size()) >= options.minInliers &&
               static_cast<double>(inliers.size()) >= kMinLmInlierFraction * static_cast<double>(m.object.size());
    }
    if (!fitted) {
      cv::Mat rvec, tvec;
      try {
        if (!cv::solvePnPRansac(m.object, m.image, calibration.K, calibration.distortion, rvec, tvec, false,
                                kRansacIterations, static_cast<float>(thresholdPx), kRansacConfidence, inliers,
                                cv::SOLVEPNP_AP3P))
          return false;
      } catch (const cv::Exception&) {
        return false;
      }
      if (static_cast<int>(inliers.size()) < options.minInliers) return false;
      r = cv::Vec3d(rvec.at<double>(0), rvec.at<double>(1), rvec.at<double>(2));
      t = cv::Vec3d(tvec.at<double>(0), tvec.at<double>(1), tvec.at<double>(2));
      refine(inliers, r, t);
      inliers = within(r, t, thresholdPx);
      if (static_cast<int>(inliers.size()) < options.minInliers) return false;
    }
    if (!finite(r) || !finite(t)) return false;
    // A coarse stage does not turn the pose far (kMaxCoarseTurnDeg): it moves it by the matches'
    // median image shift, its rotation kept, and the last stage's fit finds the rotation.
    if (!fromScratch && turnDeg(pose.rvec, r) > kMaxCoarseTurnDeg) {
      r = pose.rvec;
      t = shifted(m, pose);
      inliers = within(r, t, thresholdPx);
      if (static_cast<int>(inliers.size()) < options.minInliers) return false;
    }
    pose.rvec = r;
    pose.tvec = t;
    return true;
  }
};

CurvedTrackingLane::CurvedTrackingLane(const detection::TargetModel& model, const CameraCalibration& calibration,
                                       const TrackingLaneOptions& options) {
  validateTrackingLaneOptions(options);
  if (!model.geometry.curved())
    throw std::invalid_argument("CurvedTrackingLane: the target is planar (tracker/tracking_lane.h follows it)");
  if (model.image.empty() || model.image.type() != CV_8UC1)
    throw std::invalid_argument("CurvedTrackingLane: the target model has no CV_8UC1 image");
  if (model.patches.empty()) throw std::invalid_argument("CurvedTrackingLane: the target model has no tracking patches");
  if (calibration.imageSize.width <= 0 || calibration.imageSize.height <= 0)
    throw std::invalid_argument("CurvedTrackingLane: calibration.imageSize must be positive, got " +
                                sizeText(calibration.imageSize));
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.options = options;
  s.calibration = calibration;
  s.targetSize = model.image.size();
  s.surface.emplace(model.geometry, model.widthMetres, model.image.size());
  s.targetPyramid = targetPyramidOf(model.image);
  for (const cv::Point2f& p : interleavedPatches(model.patches)) {
    const cv::Point2d c(p.x, p.y);
    Impl::SurfacePatch sp;
    sp.label = p;
    sp.X = vec(s.surface->point(c));
    // Central differences over a pixel: the surface's first-order map at the patch.
    sp.Xu = 0.5 * (vec(s.surface->point(c + cv::Point2d(1, 0))) - vec(s.surface->point(c - cv::Point2d(1, 0))));
    sp.Xv = 0.5 * (vec(s.surface->point(c + cv::Point2d(0, 1))) - vec(s.surface->point(c - cv::Point2d(0, 1))));
    sp.normal = s.surface->normal(c);
    s.patches.push_back(sp);
  }
}

CurvedTrackingLane::~CurvedTrackingLane() = default;
CurvedTrackingLane::CurvedTrackingLane(CurvedTrackingLane&&) noexcept = default;
CurvedTrackingLane& CurvedTrackingLane::operator=(CurvedTrackingLane&&) noexcept = default;

const TrackingLaneOptions& CurvedTrackingLane::options() const { return impl_->options; }
const TrackingTimings& CurvedTrackingLane::lastTimings() const { return impl_->timings; }
const std::string& CurvedTrackingLane::lastRejection() const { return impl_->rejection; }

std::optional<TrackedTarget> CurvedTrackingLane::track(FramePyramid& frame, const CurvedTrackingPrior& prior) {
  Impl& s = *impl_;
  const TrackingLaneOptions& o = s.options;
  if (frame.levelCount() == 0) throw std::invalid_argument("CurvedTrackingLane::track: the frame pyramid is empty");
  if (frame.level(0).type() != CV_8UC1 || frame.frameSize() != s.calibration.imageSize)
    throw std::invalid_argument("CurvedTrackingLane::track: frame size " + sizeText(frame.frameSize()) +
                                " differs from the lane's frame size " + sizeText(s.calibration.imageSize) +
                                " or is not CV_8UC1");
  if (!finite(prior.predicted.rvec) || !finite(prior.predicted.tvec) ||
      (prior.reference && (!finite(prior.reference->rvec) || !finite(prior.reference->tvec))))
    throw std::invalid_argument("CurvedTrackingLane::track: the prior's pose is not finite");
  if (!(prior.searchRangePx >= 0 && prior.searchRangePx <= 256))
    throw std::invalid_argument("CurvedTrackingLane::track: search range " + std::to_string(prior.searchRangePx) +
                                " px (expected 0 to 256)");
  if (!(prior.blurExposure >= 0 && prior.blurExposure <= 1))
    throw std::invalid_argument("CurvedTrackingLane::track: exposure " + std::to_string(prior.blurExposure) +
                                " (expected 0 to 1)");
  s.timings = {};
  s.rejection.clear();
  const auto start = Clock::now();

  // The search range: the planar lane's rule, with the fastest facing patch's predicted motion.
  double speed = 0;
  if (prior.reference) {
    const View now(prior.predicted), before(*prior.reference);
    for (const Impl::SurfacePatch& p : s.patches)
      if (s.faces(now, p)) speed = std::max(speed, cv::norm(s.project(now, p.X) - s.project(before, p.X)));
  }
  const double cap = std::max<double>(o.maxSearchPx, prior.searchRangePx);
  const double range =
      std::min(cap, std::max({2.0 * o.coarseRadiusPx, prior.searchRangePx, o.searchSpeedFactor * speed}));
  // The last stage: full resolution, or half resolution in a strongly blurred frame (the facing
  // patches' mean predicted streak at least kHalfResolutionStreakPx, as the planar lane's step 4).
  int finalLevel = 0;
  if (prior.reference && prior.blurExposure > 0) {
    const View now(prior.predicted), before(*prior.reference);
    double streak = 0;
    int facing = 0;
    for (const Impl::SurfacePatch& p : s.patches)
      if (s.faces(now, p)) {
        streak += prior.blurExposure * cv::norm(s.project(now, p.X) - s.project(before, p.X));
        ++facing;
      }
    if (facing > 0 && streak / facing >= kHalfResolutionStreakPx) finalLevel = 1;
  }
  struct Stage {
    int level, radius, budget;
  };
  std::vector<Stage> stages;
  if (range <= 2.0 * o.coarseRadiusPx && finalLevel == 0) {
    stages.push_back({1, o.coarseRadiusPx, o.maxPatches});
  } else {
    const int top = std::max(range / 4 <= kMaxCoarseRadius ? 2 : 3, finalLevel + 1);
    stages.push_back({top, std::clamp(static_cast<int>(std::ceil(range / (1 << top))), 2, kMaxSearchRadius),
                      o.coarsePatches});
    for (int level = top - 1; level > finalLevel; --level) stages.push_back({level, kRefineRadius, o.maxPatches});
  }
  frame.ensure(stages.front().level + 1);

  Pose pose = prior.predicted;
  std::vector<int> inliers;
  for (const Stage& stage : stages) {
    const Impl::Matches m = s.search(frame.level(stage.level), stage.level, pose, prior.reference, prior.blurExposure,
                                     stage.radius, stage.budget);
    s.fit(m, std::ldexp(2.0 * o.ransacThresholdPx, stage.level), pose, inliers, false);  // too few: the pose as it was
  }
  s.timings.coarse = msSince(start);

  const auto fineStart = Clock::now();
  const Impl::Matches fine = s.search(frame.level(finalLevel), finalLevel, pose, prior.reference, prior.blurExposure,
                                      o.fineRadiusPx, o.maxPatches);
  s.timings.fine = msSince(fineStart);
  const auto poseStart = Clock::now();
  const auto reject = [&](std::string why) -> std::optional<TrackedTarget> {
    s.rejection = std::move(why);
    s.timings.pose = msSince(poseStart);
    return std::nullopt;
  };
  if (static_cast<int>(fine.object.size()) < o.minInliers)
    return reject("too few matches: " + std::to_string(fine.object.size()) + " < " + std::to_string(o.minInliers) +
                  " of " + std::to_string(fine.searched) + " patches searched");
  if (!s.fit(fine, std::ldexp(o.ransacThresholdPx, finalLevel), pose, inliers, true))
    return reject("too few inliers: " + std::to_string(inliers.size()) + " < " + std::to_string(o.minInliers));

  TrackedTarget r;
  r.searched = fine.searched;
  r.matches = static_cast<int>(fine.object.size());
  r.inliers = static_cast<int>(inliers.size());
  r.coarsestLevel = stages.front().level;
  r.searchRangePx = range;
  const View view(pose);
  int away = 0;
  std::vector<cv::Point3d> object;
  std::vector<cv::Point2d> image;
  for (const int i : inliers) {
    const size_t k = static_cast<size_t>(i);
    const cv::Vec3d X = vec(fine.object[k]);
    if ((view.R * X + view.t)[2] <= 0) return reject("no pose: an inlier behind the camera");
    away += s.surface->normal(fine.label[k]).dot(X - view.centre) >= 0 ? 1 : 0;
    r.meanInlierNcc += fine.score[k];
    r.inlierTargetPoints.push_back(fine.label[k]);
    r.inlierFramePoints.emplace_back(static_cast<float>(fine.image[k].x), static_cast<float>(fine.image[k].y));
    object.push_back(fine.object[k]);
    image.push_back(fine.image[k]);
  }
  r.meanInlierNcc /= std::max(1, r.inliers);
  if (away * 10 > r.inliers)
    return reject("no pose: " + std::to_string(away) + " of " + std::to_string(r.inliers) +
                  " inliers on the label's far side");
  // As the planar lane: a partly occluded label is still taken with many inliers that correlate well.
  const bool occluded = r.inliers >= 2 * o.minInliers && r.inliers >= kOccludedInlierFraction * r.searched &&
                        r.meanInlierNcc >= kOccludedMinNcc;
  if (r.inliers < o.minInlierFraction * r.searched && !occluded)
    return reject("too few inliers: " + std::to_string(r.inliers) + " of " + std::to_string(r.searched) +
                  " patches searched (fewer than " + std::to_string(o.minInlierFraction) + " of them)");

  std::vector<cv::Point2d> projected;
  cv::projectPoints(object, pose.rvec, pose.tvec, s.calibration.K, s.calibration.distortion, projected);
  double sum = 0;
  for (size_t i = 0; i < projected.size(); ++i) sum += cv::norm(projected[i] - image[i]);
  pose.reprojectionErrorPx = sum / static_cast<double>(projected.size());
  pose.inliers = r.inliers;
  r.pose = pose;
  r.reprojectionErrorPx = pose.reprojectionErrorPx;
  r.homography = tangentPlaneHomography(s.calibration, pose, s.surface->metresPerPixel());
  const double w = s.targetSize.width, h = s.targetSize.height;
  std::vector<cv::Point3d> corners3d;
  for (const cv::Point2d& c : {cv::Point2d(0, 0), cv::Point2d(w, 0), cv::Point2d(w, h), cv::Point2d(0, h)}) {
    const cv::Point3d x = s.surface->point(c);
    if ((view.R * vec(x) + view.t)[2] <= 1e-9) return reject("no pose: a label corner projects to infinity");
    corners3d.push_back(x);
  }
  std::vector<cv::Point2d> corners;
  cv::projectPoints(corners3d, pose.rvec, pose.tvec, s.calibration.K, s.calibration.distortion, corners);
  for (const cv::Point2d& c : corners) r.corners.emplace_back(static_cast<float>(c.x), static_cast<float>(c.y));
  s.timings.pose = msSince(poseStart);
  r.timings = s.timings;
  return r;
}

}  // namespace nft::tracker
