// CurvedRefiner: forward-additive alignment of a curved label's pose with gain, offset and Tukey
// weights (see curved_refiner.h).
#include "tracker/curved_refiner.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/label_surface.h"
#include "tracker/curved_tracking_lane.h"
#include "tracker/dense_alignment.h"

namespace nft::tracker {
namespace {

using alignment::bilinearAt;
using alignment::bilinearWithGradient;

constexpr double kPi = 3.14159265358979323846;

cv::Vec3d vec(const cv::Point3d& p) { return {p.x, p.y, p.z}; }

/// One label sample: its label pixel at its level, its surface point, the surface's tangents per
/// level pixel along u and v and its normal (target frame, metres), its grey value and gradient
/// (grey levels per level pixel).
struct Sample {
  float lx = 0, ly = 0;
  cv::Vec3d X, Xu, Xv, normal;
  float t = 0, gx = 0, gy = 0;
};

/// A sample as one refine() call uses it: its surface point, tangents and normal, its grey value
/// and gradient (per level pixel); `blurred` when they are the means along its streak.
struct SeenSample {
  cv::Vec3d X, Xu, Xv, normal;
  float t = 0, gx = 0, gy = 0;
  bool blurred = false;
};

struct Level {
  double scale = 1;           // model pixels per level pixel (2^level; cv::pyrDown: x0 = 2^l·x)
  // CV_32FC3, for the motion-blurred samples: the level's value and its central differences
  // ((I(x + 1) − I(x − 1)) / 2, likewise in y) per pixel, side by side so that one bilinear
  // lookup reads all three. Bilinear sampling commutes with the differences, so their means along
  // a streak are the central differences of the streak's means.
  cv::Mat valueAndDifferences;
  std::vector<Sample> samples;
};

// Samples facing the camera up to this much beyond kMaxPatchTiltDeg at the start of a refinement
// take part in it (a sample turning into view as the pose moves is then there to be seen).
constexpr double kFacingMarginDeg = 10.0;
// Most label values averaged along one streak, taken at most a level pixel apart: streaks up to
// 127 level pixels are sampled densely (the motion_blur presets' reach about 80 frame pixels).
constexpr int kMaxBlurTaps = 128;
// How far (frame pixels) the pose must move in a blurred frame before the streaks are predicted
// again from where it went (refine(), step 4b).
constexpr double kReblurPx = 2.0;
// The streak each sample is blurred along, as a fraction of exposure × its predicted velocity.
// The second-order backward difference overshoots a hand's shake: on a 10-frame (3 Hz at 30 fps)
// oscillation it gives 1.12 × the velocity (|1.5 − 2e^(−iω) + 0.5e^(−2iω)| / ω at ω = 2π/10),
// and the motion_blur presets' estimates were 1.12 × the true velocity (median, the can and the
// cup at 1280 × 720); a streak predicted too long pulls the alignment along it to where the frame
// correlates a little better with the over-blurred label (the can's motion_blur at 1280 × 720: 9
// of its 27 frames beyond 5 px were within it before the refinement). Measured within 5 px
// (nft_eval tracking --geometry, docs/curved_targets.md): 1.0 → 0.8 took the can's and the cup's
// motion_blur at 1280 × 720 from 91.0 / 93.7 to 93.0 / 95.0 % and the cup's unconstrained at
// 640 × 480 from 94.7 to 95.0 %; 0.7 gave 91.7 / 94.7 %. A first-order velocity (no
// overshoot, but half a frame late) gave 88.0 % on the can, a damped second-order term
// (1.25, −1.5, 0.25) 90.7 %.
constexpr double kStreakFraction = 0.8;
// A move of more than kFreeShiftPx frame pixels that ends correlating under kWellCorrelated is
// taken only when the correlation rose by at least kGainPerShiftPx per pixel of it (refine(), step
// 5): under a long blur the alignment slides along the streak to where the frame correlates a
// hair better (the motion_blur can at 1280 × 720 with kStreakFraction: 5 of its 21 frames beyond
// 5 px were within it before a refinement that moved 13–29 px for a gain of 0.002–0.062 and ended
// at 0.81–0.91; the moves over 8 px it rightly took gained 0.045–0.49, at least 0.0024 a pixel,
// or ended at 0.95–0.97). With it, that row 93.0 → 94.3 % within 5 px, the 640 × 480 one 98.7 →
// 99.0 %, the other 30 rows the same.
constexpr double kFreeShiftPx = 8.0;
constexpr double kWellCorrelated = 0.93;
constexpr double kGainPerShiftPx = 0.002;

/// A pose as R and t (X_camera = R·X + t).
struct View {
  cv::Matx33d R;
  cv::Vec3d t;
  View() = default;
  explicit View(const Pose& pose) : t(pose.tvec) { cv::Rodrigues(pose.rvec, R); }
  cv::Vec3d camera(const cv::Vec3d& X) const { return R * X + t; }
  cv::Vec3d centre() const { return -(R.t() * t); }
  Pose pose() const {
    Pose p;
    cv::Rodrigues(R, p.rvec);
    p.tvec = t;
    return p;
  }
};

/// A label point whose move measures the alignment's steps: its surface point and normal, and the
/// surface's tangents per label pixel along u and v (its local scale).
struct CheckPoint {
  cv::Vec3d X, normal, Xu, Xv;
};

/// Frame pixel of the camera-frame point Xc (Xc[2] > 0), without distortion.
cv::Point2d project(const cv::Matx33d& K, const cv::Vec3d& Xc) {
  const cv::Vec3d q = K * Xc;
  return {q[0] / q[2], q[1] / q[2]};
}

/// The point X with its normal faces the camera centre within the angle whose cosine squared is
/// `minFacing2` (n · d > 0 and (n · d)² > cos² · |d|²: no square root).
bool facesWithin(const cv::Vec3d& centre, const cv::Vec3d& X, const cv::Vec3d& normal, double minFacing2) {
  const cv::Vec3d toCamera = centre - X;
  const double facing = normal.dot(toCamera);
  return facing > 0 && facing * facing > minFacing2 * toCamera.dot(toCamera);
}

/// Faces the camera within kMaxPatchTiltDeg and lies in front of it.
bool faces(const View& view, const cv::Vec3d& X, const cv::Vec3d& normal) {
  const double minFacing = std::cos(kMaxPatchTiltDeg * kPi / 180);
  return facesWithin(view.centre(), X, normal, minFacing * minFacing) && view.camera(X)[2] > 0;
}

/// The label's local map at a sample: frame pixels per level pixel (2 × 2) under `view`.
cv::Matx22d localMap(const cv::Matx23d& dq, const View& view, const Sample& s) {
  const cv::Vec2d a = dq * (view.R * s.Xu), b = dq * (view.R * s.Xv);
  return {a[0], b[0], a[1], b[1]};
}

/// The largest distance between where `a` and `b` project `points` (frame pixels).
double largestMove(const cv::Matx33d& K, const View& a, const View& b, const std::vector<CheckPoint>& points) {
  double moved = 0;
  for (const CheckPoint& p : points)
    moved = std::max(moved, cv::norm(project(K, a.camera(p.X)) - project(K, b.camera(p.X))));
  return moved;
}

/// iterate()'s per-sample buffers, kept per thread so that a refinement allocates nothing once warm.
struct Scratch {
  alignment::RobustSamples samples;  // values, residuals and weights
  std::vector<float> frameGx, frameGy;
  std::vector<float> rows;  // 7 × n: the weighted steepest-descent rows and residuals
  std::vector<cv::Vec3d> cameraPoints;  // each sample's point in the camera's frame
  std::vector<cv::Point2d> pixels;      // ... and where it is seen
};

enum class Alignment { Failed, Unconverged, Converged };

/// Iterations of the forward-additive alignment of `samples` on `frame` from `view`, updated in
/// place, until `check` moves less than `convergedPx` (frame pixels), at most `maxIterations`;
/// Failed when too few samples are seen or agree, no gain fits or the system is singular.
Alignment iterate(const std::vector<SeenSample>& samples, const cv::Mat& frame, const cv::Matx33d& K,
                  const RefinerOptions& o, int maxIterations, double convergedPx, const std::vector<CheckPoint>& check,
                  View& view, CurvedRefinement& out) {
  const size_t n = samples.size();
  if (n < 16) return Alignment::Failed;
  thread_local Scratch scratch;
  Scratch& s = scratch;
  alignment::RobustSamples& robust = s.samples;
  robust.reset(n);
  for (size_t i = 0; i < n; ++i) robust.templateGrey[i] = samples[i].t;
  s.frameGx.assign(n, 0.f);
  s.frameGy.assign(n, 0.f);
  s.rows.assign(7 * n, 0.f);
  s.cameraPoints.resize(n);
  s.pixels.resize(n);
  const uchar* data = frame.data;
  const size_t rowStep = frame.step;
  const double umin = 1.0, vmin = 1.0, umax = frame.cols - 2.001, vmax = frame.rows - 2.001;
  const double minFacing = std::cos(kMaxPatchTiltDeg * kPi / 180), minFacing2 = minFacing * minFacing;
  for (int iteration = 1; iteration <= maxIterations; ++iteration) {
    ++out.iterations;
    const cv::Vec3d centre = view.centre();
    int inView = 0;
    for (size_t i = 0; i < n; ++i) {
      const SeenSample& sample = samples[i];
      robust.valid[i] = 0;
      if (!facesWithin(centre, sample.X, sample.normal, minFacing2)) continue;
      const cv::Vec3d Xc = view.camera(sample.X);
      if (Xc[2] <= 0) continue;
      const cv::Point2d q = project(K, Xc);
      if (!(q.x >= umin && q.y >= vmin && q.x < umax && q.y < vmax)) continue;
      robust.valid[i] = 1;
      ++inView;
      s.cameraPoints[i] = Xc;
      s.pixels[i] = q;
      if (sample.blurred) {
        robust.frameGrey[i] = bilinearAt(data, rowStep, q.x, q.y);
      } else {
        bilinearWithGradient(data, rowStep, q.x, q.y, robust.frameGrey[i], s.frameGx[i], s.frameGy[i]);
      }
    }
    out.inView = inView;
    if (inView < std::max(16.0, o.minInView * static_cast<double>(n))) return Alignment::Failed;
    double gain = 1, offset = 0;
    if (!robust.fitGainAndWeights(iteration == 1, gain, offset)) return Alignment::Failed;
    // The steepest-descent rows weighted by √w (row r of sample i at rows[r · n + i], the weighted
    // residual at rows[6n + i]): d residual / d (ω, v) = e · ∂q/∂Xc · [−[Xc]× | I], with e the
    // grey gradient in frame pixels (template units).
    alignment::WeightedCorrelation correlation;
    double sw = 0, sum2 = 0;
    int agreeing = 0;
    const double inverseGain = 1.0 / gain;
    float* rows = s.rows.data();
    for (size_t i = 0; i < n; ++i) {
      const float wi = robust.weight[i];
      for (size_t r = 0; r < 7; ++r) rows[r * n + i] = 0.f;
      if (!robust.valid[i] || !(wi > 0)) continue;
      const SeenSample& sample = samples[i];
      const cv::Matx23d dq = projectionJacobian(K, s.cameraPoints[i], s.pixels[i]);
      // The label's gradient carried into the frame: ∇_q T = M⁻ᵀ ∇_label T, M the local map.
      const cv::Vec2d a = dq * (view.R * sample.Xu), b = dq * (view.R * sample.Xv);
      const double det = a[0] * b[1] - b[0] * a[1];
      if (!(std::abs(det) > 1e-12)) continue;
      const double tx = (b[1] * sample.gx - a[1] * sample.gy) / det;
      const double ty = (-b[0] * sample.gx + a[0] * sample.gy) / det;
      // ESM's mean with the frame's own gradient where the template is sharp (homography_refiner.cpp
      // says why not where it is blurred by motion).
      const double ex = sample.blurred ? tx : 0.5 * (tx + s.frameGx[i] * inverseGain);
      const double ey = sample.blurred ? ty : 0.5 * (ty + s.frameGy[i] * inverseGain);
      const cv::Vec3d g(ex * dq(0, 0) + ey * dq(1, 0), ex * dq(0, 1) + ey * dq(1, 1), ex * dq(0, 2) + ey * dq(1, 2));
      const cv::Vec3d rotation = s.cameraPoints[i].cross(g);
      ++agreeing;
      correlation.add(wi, sample.t, robust.frameGrey[i]);
      sw += wi;
      sum2 += static_cast<double>(wi) * robust.residual[i] * robust.residual[i];
      const float root = std::sqrt(wi);
      const double j[6] = {rotation[0], rotation[1], rotation[2], g[0], g[1], g[2]};
      for (size_t r = 0; r < 6; ++r) rows[r * n + i] = static_cast<float>(root * j[r]);
      rows[6 * n + i] = root * robust.residual[i];
    }
    out.correlation = correlation.value();
    if (out.iterations == 1) out.startCorrelation = out.correlation;
    out.agreeing = agreeing;
    out.rmsGrey = sw > 0 ? std::sqrt(sum2 / sw) : 0;
    if (agreeing < std::max(16.0, o.minAgreeing * inView)) return Alignment::Failed;
    // The rows' scales differ (radians against metres): the normal equations in double, each
    // column scaled to unit diagonal before the Cholesky solve.
    cv::Matx<double, 6, 6> A;
    cv::Vec<double, 6> g;
    alignment::normalEquations(rows, n, A, g);
    cv::Vec<double, 6> d;
    for (int r = 0; r < 6; ++r) d[r] = A(r, r) > 0 ? 1.0 / std::sqrt(A(r, r)) : 0.0;
    cv::Matx<double, 6, 6> As;
    cv::Vec<double, 6> gs;
    for (int r = 0; r < 6; ++r) {
      gs[r] = -g[r] * d[r];
      for (int k = 0; k < 6; ++k) As(r, k) = A(r, k) * d[r] * d[k];
    }
    cv::Vec<double, 6> delta;
    if (!cv::solve(As, gs, delta, cv::DECOMP_CHOLESKY)) return Alignment::Failed;
    for (int r = 0; r < 6; ++r) delta[r] *= d[r];
    // The update composed on the left: Xc ← exp([ω]×)·Xc + v.
    cv::Matx33d dR;
    cv::Rodrigues(cv::Vec3d(delta[0], delta[1], delta[2]), dR);
    View next;
    next.R = dR * view.R;
    next.t = dR * view.t + cv::Vec3d(delta[3], delta[4], delta[5]);
    const double moved = largestMove(K, next, view, check);
    view = next;
    if (moved < convergedPx) return Alignment::Converged;
  }
  return Alignment::Unconverged;
}

}  // namespace

struct CurvedRefiner::Impl {
  RefinerOptions options;
  cv::Size size;  // the label image's
  std::optional<detection::LabelSurface> surface;
  std::vector<Level> levels;
  std::vector<CheckPoint> grid;  // (kCheckGrid + 1)² label points

  /// The samples of `level` that face the camera under `view` within `minFacing` (the cosine of
  /// the largest angle from their normal), as refine() uses them from `view`: with `motion`, each
  /// the mean of the label's values and differences along the streak its point sweeps during the
  /// exposure (its velocity at the frame's time × the exposure, carried into level pixels by the
  /// local map); its gradient carried into the frame by the local map.
  std::vector<SeenSample> seenSamples(const Level& level, const cv::Matx33d& K, const View& view, double minFacing,
                                      const CurvedMotion* motion) const {
    std::optional<View> before, beforeThat;
    if (motion) before.emplace(*motion->before);
    if (motion && motion->beforeThat) beforeThat.emplace(*motion->beforeThat);
    const cv::Vec3d centre = view.centre();
    const double minFacing2 = minFacing * minFacing;
    const cv::Mat& image = level.valueAndDifferences;
    const double xmax = image.cols - 1.001, ymax = image.rows - 1.001;
    std::vector<SeenSample> out;
    out.reserve(level.samples.size());
    for (const Sample& s : level.samples) {
      if (!facesWithin(centre, s.X, s.normal, minFacing2)) continue;
      const cv::Vec3d Xc = view.camera(s.X);
      if (Xc[2] <= 0) continue;
      const cv::Point2d q = project(K, Xc);
      const cv::Matx22d M = localMap(projectionJacobian(K, Xc, q), view, s);  // frame px per level px
      const double det = M(0, 0) * M(1, 1) - M(0, 1) * M(1, 0);
      if (!(std::abs(det) > 1e-12)) continue;
      SeenSample seen;
      seen.X = s.X;
      seen.normal = s.normal;
      double t = s.t, gx = s.gx, gy = s.gy;
      const cv::Vec3d X1 = before ? before->camera(s.X) : cv::Vec3d();
      if (before && X1[2] > 0 && (!beforeThat || beforeThat->camera(s.X)[2] > 0)) {
        const cv::Point2d q1 = project(K, X1);
        cv::Point2d velocity = q - q1;
        if (beforeThat) velocity += 0.5 * (velocity - (q1 - project(K, beforeThat->camera(s.X))));
        const cv::Point2d f = kStreakFraction * motion->exposure * velocity;  // frame pixels
        const cv::Vec2d streak((M(1, 1) * f.x - M(0, 1) * f.y) / det, (-M(1, 0) * f.x + M(0, 0) * f.y) / det);
        const double length = cv::norm(streak);
        if (length >= alignment::kMinStreakPx && std::isfinite(length)) {
          const int taps = std::clamp(static_cast<int>(std::ceil(length)) + 1, 2, kMaxBlurTaps);
          t = gx = gy = 0;
          for (int k = 0; k < taps; ++k) {
            const double along = static_cast<double>(k) / (taps - 1) - 0.5;
            const double u = std::clamp(s.lx + along * streak[0], 0.0, xmax);
            const double v = std::clamp(s.ly + along * streak[1], 0.0, ymax);
            const int x = static_cast<int>(u), y = static_cast<int>(v);
            const double ax = u - x, ay = v - y;
            const float* r0 = image.ptr<float>(y) + 3 * x;
            const float* r1 = image.ptr<float>(y + 1) + 3 * x;
            const double w00 = (1 - ax) * (1 - ay), w01 = ax * (1 - ay), w10 = (1 - ax) * ay, w11 = ax * ay;
            t += w00 * r0[0] + w01 * r0[3] + w10 * r1[0] + w11 * r1[3];
            gx += w00 * r0[1] + w01 * r0[4] + w10 * r1[1] + w11 * r1[4];
            gy += w00 * r0[2] + w01 * r0[5] + w10 * r1[2] + w11 * r1[5];
          }
          t /= taps, gx /= taps, gy /= taps;
          seen.blurred = true;
        }
      }
      seen.Xu = s.Xu;
      seen.Xv = s.Xv;
      seen.t = static_cast<float>(t);
      seen.gx = static_cast<float>(gx);
      seen.gy = static_cast<float>(gy);
      out.push_back(seen);
    }
    return out;
  }
};

CurvedRefiner::CurvedRefiner(const detection::TargetModel& model, const RefinerOptions& o)
    : impl_(std::make_unique<Impl>()) {
  if (!model.geometry.curved())
    throw std::invalid_argument("CurvedRefiner: the target is planar (tracker/homography_refiner.h refines it)");
  const cv::Mat& image = model.image;
  if (image.type() != CV_8UC1 || image.cols < 16 || image.rows < 16)
    throw std::invalid_argument("CurvedRefiner: the label image must be CV_8UC1 of at least 16x16, got " +
                                cv::typeToString(image.type()) + " " + std::to_string(image.cols) + "x" +
                                std::to_string(image.rows));
  validateRefinerOptions(o);
  Impl& s = *impl_;
  s.options = o;
  s.size = image.size();
  s.surface.emplace(model.geometry, model.widthMetres, image.size());
  const detection::LabelSurface& surface = *s.surface;
  const auto point = [&](double x, double y) { return vec(surface.point({x, y})); };
  cv::Mat level = image;
  for (double scale = 1; std::min(level.cols, level.rows) >= alignment::kMinLevelSide; scale *= 2) {
    Level l;
    l.scale = scale;
    cv::Mat image32;
    level.convertTo(image32, CV_32F);
    const cv::Matx13f centralDifference(-0.5f, 0.f, 0.5f);
    cv::Mat dx, dy;
    cv::filter2D(image32, dx, CV_32F, centralDifference, {-1, -1}, 0, cv::BORDER_REPLICATE);
    cv::filter2D(image32, dy, CV_32F, centralDifference.t(), {-1, -1}, 0, cv::BORDER_REPLICATE);
    cv::merge(std::vector<cv::Mat>{image32, dx, dy}, l.valueAndDifferences);
    cv::Mat gx, gy;
    for (const cv::Point& p : alignment::strongestGradientPerCell(image32, o.samples, o.minGradient, gx, gy)) {
      const double x = scale * p.x, y = scale * p.y;  // model pixels
      if (!surface.onLabel({x, y})) continue;
      Sample sample;
      sample.lx = static_cast<float>(p.x);
      sample.ly = static_cast<float>(p.y);
      sample.X = point(x, y);
      sample.Xu = 0.5 * (point(x + scale, y) - point(x - scale, y));
      sample.Xv = 0.5 * (point(x, y + scale) - point(x, y - scale));
      sample.normal = surface.normal({x, y});
      sample.t = image32.at<float>(p);
      sample.gx = gx.at<float>(p);
      sample.gy = gy.at<float>(p);
      l.samples.push_back(sample);
    }
    s.levels.push_back(std::move(l));
    cv::pyrDown(level, level);
  }
  for (int j = 0; j <= alignment::kCheckGrid; ++j)
    for (int i = 0; i <= alignment::kCheckGrid; ++i) {
      const cv::Point2d m(image.cols * i / static_cast<double>(alignment::kCheckGrid),
                          image.rows * j / static_cast<double>(alignment::kCheckGrid));
      if (!surface.onLabel(m)) continue;
      s.grid.push_back({point(m.x, m.y), surface.normal(m), 0.5 * (point(m.x + 1, m.y) - point(m.x - 1, m.y)),
                        0.5 * (point(m.x, m.y + 1) - point(m.x, m.y - 1))});
    }
}

CurvedRefiner::~CurvedRefiner() = default;
CurvedRefiner::CurvedRefiner(CurvedRefiner&&) noexcept = default;
CurvedRefiner& CurvedRefiner::operator=(CurvedRefiner&&) noexcept = default;
const RefinerOptions& CurvedRefiner::options() const { return impl_->options; }
const detection::LabelSurface& CurvedRefiner::surface() const { return *impl_->surface; }

CurvedRefinement CurvedRefiner::refine(const cv::Mat& frame, const CameraCalibration& calibration, const Pose& pose,
                                       const CurvedMotion& motion, bool coarseToFine) const {
  if (frame.empty() || (frame.type() != CV_8UC1 && frame.type() != CV_8UC3))
    throw std::invalid_argument("CurvedRefiner::refine: expected a CV_8UC1 or CV_8UC3 frame, got " +
                                cv::typeToString(frame.type()) + " " + std::to_string(frame.cols) + "x" +
                                std::to_string(frame.rows));
  if (frame.size() != calibration.imageSize)
    throw std::invalid_argument("CurvedRefiner::refine: frame size " + std::to_string(frame.cols) + "x" +
                                std::to_string(frame.rows) + " differs from the calibration's " +
                                std::to_string(calibration.imageSize.width) + "x" +
                                std::to_string(calibration.imageSize.height));
  const auto finite = [](const Pose& p) {
    return std::isfinite(p.rvec[0]) && std::isfinite(p.rvec[1]) && std::isfinite(p.rvec[2]) &&
           std::isfinite(p.tvec[0]) && std::isfinite(p.tvec[1]) && std::isfinite(p.tvec[2]);
  };
  if (!finite(pose) || (motion.before && !finite(*motion.before)) || (motion.beforeThat && !finite(*motion.beforeThat)))
    throw std::invalid_argument("CurvedRefiner::refine: a pose is not finite");
  if (!(motion.exposure >= 0 && motion.exposure <= 1))
    throw std::invalid_argument("CurvedRefiner::refine: exposure " + std::to_string(motion.exposure) +
                                " (expected 0 to 1)");
  const Impl& s = *impl_;
  const RefinerOptions& o = s.options;
  const cv::Matx33d& K = calibration.K;
  CurvedRefinement out;
  cv::Mat grey = frame;
  if (frame.channels() == 3) cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
  const View start(pose);

  // 1. The label's points in view, which measure the moves.
  std::vector<CheckPoint> check;
  for (const CheckPoint& p : s.grid) {
    if (!faces(start, p.X, p.normal)) continue;
    const cv::Point2d q = project(K, start.camera(p.X));
    if (q.x >= 0 && q.y >= 0 && q.x <= frame.cols && q.y <= frame.rows) check.push_back(p);
  }
  if (check.size() < 4) return out;
  // 2. The level whose pixels are about the frame's: the surface's local scale (frame pixels per
  //    label pixel) at the points in view, their median.
  std::vector<double> scales;
  for (const CheckPoint& p : check) {
    Sample probe;
    probe.Xu = p.Xu;
    probe.Xv = p.Xv;
    const cv::Vec3d Xc = start.camera(p.X);
    const cv::Matx22d M = localMap(projectionJacobian(K, Xc, project(K, Xc)), start, probe);
    scales.push_back(std::sqrt(std::abs(M(0, 0) * M(1, 1) - M(0, 1) * M(1, 0))));
  }
  std::nth_element(scales.begin(), scales.begin() + static_cast<std::ptrdiff_t>(scales.size() / 2), scales.end());
  const double frameScale = scales[scales.size() / 2];
  if (!std::isfinite(frameScale) || frameScale <= 0) return out;
  const int wanted = static_cast<int>(std::lround(std::log2(1.0 / frameScale)));
  out.level = std::clamp(wanted, 0, static_cast<int>(s.levels.size()) - 1);
  const int quickLevel = out.level;
  // 3-4. The alignment on label level l from `view`, at most `iterations`; the samples blurred by
  //      the motion as seen from where the refinement starts.
  //      Only the samples that face the camera from where it starts (within kFacingMarginDeg more
  //      than the lane's limit: the pose moves a little) take part: a label round a can shows
  //      half of itself at most, and the rest would cost every iteration its time.
  const bool blurred = motion.before && motion.exposure > 0;
  std::vector<std::optional<std::vector<SeenSample>>> seen(s.levels.size());  // each level's, once
  const double minFacing = std::cos((kMaxPatchTiltDeg + kFacingMarginDeg) * kPi / 180);
  const auto align = [&](int l, int iterations, View& view) {
    const Level& level = s.levels[static_cast<size_t>(l)];
    out.level = l;
    std::optional<std::vector<SeenSample>>& samples = seen[static_cast<size_t>(l)];
    if (!samples) samples = s.seenSamples(level, K, start, minFacing, blurred ? &motion : nullptr);
    const double converged = alignment::kConvergedPx * std::ldexp(1.0, l - quickLevel);
    return iterate(*samples, grey, K, o, iterations, converged, check, view, out);
  };
  View current = start;
  Alignment quick = align(quickLevel, alignment::kQuickIterations, current);
  if (quick == Alignment::Failed) return out;
  if (quick == Alignment::Unconverged && largestMove(K, current, start, check) <= alignment::kQuickShiftPx) {
    quick = align(quickLevel, o.maxIterations - alignment::kQuickIterations, current);
    if (quick == Alignment::Failed) return out;
  }
  if (quick == Alignment::Unconverged || largestMove(K, current, start, check) > alignment::kQuickShiftPx) {
    if (!coarseToFine) return out;
    current = start;
    const int first = std::min(quickLevel + alignment::kCoarseLevels, static_cast<int>(s.levels.size()) - 1);
    for (int l = first; l >= quickLevel; --l)
      if (align(l, o.maxIterations, current) == Alignment::Failed) return out;
  }

  // 4b. The blur was predicted from where the refinement started; when the pose moved, the streaks
  //     are predicted again from where it ended and the alignment goes on from there.
  if (blurred && largestMove(K, current, start, check) > kReblurPx) {
    const Level& level = s.levels[static_cast<size_t>(quickLevel)];
    const std::vector<SeenSample> again = s.seenSamples(level, K, current, minFacing, &motion);
    out.level = quickLevel;
    if (iterate(again, grey, K, o, o.maxIterations, alignment::kConvergedPx, check, current, out) == Alignment::Failed)
      return out;
  }

  // 5. Accept only a bounded move that correlates.
  out.shiftPx = largestMove(K, current, start, check);
  const Pose refined = current.pose();
  if (!finite(refined)) return out;
  // A move past maxShiftPx is taken when the frame confirms it (RefinerOptions::confirmingGain):
  // in a frame blurred by a fast shake the lane's pose can be 20-40 px off along the motion, and
  // the alignment from it ends correlating at 0.85-0.95 from 0.43-0.70 (the motion_blur can at
  // 1280 x 720: 5 frames 17-36 px off were refused for their 44-66 px move alone).
  if (!withinShiftLimit(o, out.shiftPx, out.startCorrelation, out.correlation) || out.correlation < o.minCorrelation)
    return out;
  // A pose that explains the frame worse than the start did is not taken: under a long blur the
  // alignment can slide along the streak, where the frame constrains little (the motion_blur can
  // at 1280 × 720: 7 of the 27 refinements that left it more than 5 px off ended below their
  // start's correlation; with this check 87.7 -> 92.0 % of its frames within 5 px, 97.3 -> 98.3 %
  // at 640 × 480, where refusing only moves over 2 px gave 94.7 %).
  if (out.correlation < out.startCorrelation) return out;
  // Nor a long move that the frame barely confirms (kGainPerShiftPx).
  if (out.shiftPx > kFreeShiftPx && out.correlation < kWellCorrelated &&
      out.correlation - out.startCorrelation < kGainPerShiftPx * out.shiftPx)
    return out;
  out.pose = refined;
  out.pose->inliers = pose.inliers;
  return out;
}

}  // namespace nft::tracker
