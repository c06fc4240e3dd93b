// HomographyRefiner: inverse-compositional alignment with gain, offset and Tukey weights (see
// homography_refiner.h).
#include "tracker/homography_refiner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

namespace nft::tracker {
namespace {

// Iterations stop once no target corner moves more than this in one step (frame pixels).
constexpr double kConvergedPx = 0.05;
// A start the alignment at the frame's own level brings to convergence within kQuickIterations,
// moving the target in view at most kQuickShiftPx, needs no coarser level (the tracking lane's
// homography, about a pixel off, nearly always): the coarse levels cost the final refinement 5×
// its time on tmt_bookI otherwise.
constexpr int kQuickIterations = 4;
constexpr double kQuickShiftPx = 2.0;
// Template levels above the frame's that the alignment starts from (coarse to fine).
constexpr int kCoarseLevels = 2;
// Cells per side of the grid whose corners in view measure the moves (checkPoints).
constexpr int kCheckGrid = 8;
// Tukey's biweight constant (95 % efficiency under Gaussian noise), in robust standard deviations.
constexpr double kTukey = 4.685;
// The robust scale never goes under this (grey levels): an exact fit must not turn every
// sample's noise into an outlier.
constexpr double kMinScaleGrey = 1.0;
// Streaks shorter than this (template pixels) are not modelled: they blur less than the
// bilinear sampling does.
constexpr double kMinStreakPx = 1.5;
// A template pyramid level needs this many pixels on its shorter side.
constexpr int kMinLevelSide = 24;

/// One template sample: its position in the level's normalised coordinates, its grey value and
/// the steepest-descent row ∇T · ∂W/∂p at the identity warp (Baker and Matthews, eq. 33).
struct Sample {
  float x, y, t;
  std::array<float, 8> j;
};

struct Level {
  double scale = 1;               // model pixels per level pixel (2^level)
  double cx = 0, cy = 0, sc = 1;  // level pixel = sc · normalised + (cx, cy)
  cv::Mat image;                  // CV_32F, for the motion-blurred samples
  std::vector<Sample> samples;
  cv::Matx33d toModel() const {  // normalised level coordinates → model pixels (cv::pyrDown: x0 = 2^l·x)
    return {scale * sc, 0, scale * cx, 0, scale * sc, scale * cy, 0, 0, 1};
  }
};

/// The steepest-descent row of a sample whose template gradient is (gx, gy) grey levels per level
/// pixel: the gradient with respect to the normalised coordinates (× sc), then ∂W/∂p of the
/// homography x' = ((1+p1)x + p3 y + p5) / (p7 x + p8 y + 1), y' = (p2 x + (1+p4) y + p6) / (...)
/// at p = 0.
void setJacobian(Sample& s, double gx, double gy, double sc) {
  const float ux = static_cast<float>(gx * sc), uy = static_cast<float>(gy * sc);
  const float x = s.x, y = s.y;
  s.j = {ux * x, uy * x, ux * y, uy * y, ux, uy, -x * (ux * x + uy * y), -y * (ux * x + uy * y)};
}

Level buildLevel(const cv::Mat& image, double scale, const RefinerOptions& o) {
  Level level;
  level.scale = scale;
  level.cx = 0.5 * (image.cols - 1);
  level.cy = 0.5 * (image.rows - 1);
  level.sc = 0.5 * std::max(image.cols, image.rows);
  cv::Mat f, gx, gy;
  image.convertTo(f, CV_32F);
  level.image = f;
  cv::Sobel(f, gx, CV_32F, 1, 0, 3, 1.0 / 8);
  cv::Sobel(f, gy, CV_32F, 0, 1, 3, 1.0 / 8);
  // The strongest gradient of each cell of a grid with about o.samples cells.
  const int cell = std::max(2, static_cast<int>(std::sqrt(static_cast<double>(image.cols) * image.rows / o.samples)));
  const double min2 = o.minGradient * o.minGradient;
  for (int y0 = 1; y0 < image.rows - 1; y0 += cell)
    for (int x0 = 1; x0 < image.cols - 1; x0 += cell) {
      int bx = -1, by = -1;
      double best = min2;
      for (int y = y0; y < std::min(y0 + cell, image.rows - 1); ++y)
        for (int x = x0; x < std::min(x0 + cell, image.cols - 1); ++x) {
          const double g2 = static_cast<double>(gx.at<float>(y, x)) * gx.at<float>(y, x) +
                            static_cast<double>(gy.at<float>(y, x)) * gy.at<float>(y, x);
          if (g2 >= best) best = g2, bx = x, by = y;
        }
      if (bx < 0) continue;
      Sample s;
      s.x = static_cast<float>((bx - level.cx) / level.sc);
      s.y = static_cast<float>((by - level.cy) / level.sc);
      s.t = f.at<float>(by, bx);
      setJacobian(s, gx.at<float>(by, bx), gy.at<float>(by, bx), level.sc);
      level.samples.push_back(s);
    }
  return level;
}

/// Bilinear grey value of `frame` (CV_8UC1, or CV_8UC3 read as cv::cvtColor's BGR → grey) at
/// (u, v), which lies in [0, cols − 1) × [0, rows − 1).
float sampleAt(const cv::Mat& frame, double u, double v) {
  const int x = static_cast<int>(u), y = static_cast<int>(v);
  const float ax = static_cast<float>(u - x), ay = static_cast<float>(v - y);
  const auto grey = [&](int yy, int xx) -> float {
    if (frame.channels() == 1) return frame.ptr<uchar>(yy)[xx];
    const uchar* p = frame.ptr<uchar>(yy) + 3 * xx;
    return 0.114f * p[0] + 0.587f * p[1] + 0.299f * p[2];
  };
  const float top = grey(y, x) + ax * (grey(y, x + 1) - grey(y, x));
  const float bottom = grey(y + 1, x) + ax * (grey(y + 1, x + 1) - grey(y + 1, x));
  return top + ay * (bottom - top);
}

/// Bilinear value of a CV_32F image at (u, v), clamped to its border.
float floatAt(const cv::Mat& image, double u, double v) {
  u = std::clamp(u, 0.0, image.cols - 1.001);
  v = std::clamp(v, 0.0, image.rows - 1.001);
  const int x = static_cast<int>(u), y = static_cast<int>(v);
  const float ax = static_cast<float>(u - x), ay = static_cast<float>(v - y);
  const float* r0 = image.ptr<float>(y);
  const float* r1 = image.ptr<float>(y + 1);
  const float top = r0[x] + ax * (r0[x + 1] - r0[x]);
  const float bottom = r1[x] + ax * (r1[x + 1] - r1[x]);
  return top + ay * (bottom - top);
}

/// The level's samples as a frame blurred along `streak` (level pixels; the image of a point
/// sweeps it during the exposure, centred on its mid-exposure place) shows them: each value the
/// mean of the template along the streak, the gradients by central differences of those means
/// (the blur model of Klein and Murray, ECCV 2008, that the tracking lane's templates follow).
std::vector<Sample> blurredSamples(const Level& level, cv::Vec2d streak) {
  const double length = cv::norm(streak);
  const int taps = std::max(2, static_cast<int>(std::ceil(length)) + 1);
  const auto mean = [&](double x, double y) {
    double sum = 0;
    for (int k = 0; k < taps; ++k) {
      const double f = static_cast<double>(k) / (taps - 1) - 0.5;
      sum += floatAt(level.image, x + f * streak[0], y + f * streak[1]);
    }
    return sum / taps;
  };
  std::vector<Sample> out = level.samples;
  for (Sample& s : out) {
    const double x = level.sc * s.x + level.cx, y = level.sc * s.y + level.cy;
    s.t = static_cast<float>(mean(x, y));
    setJacobian(s, 0.5 * (mean(x + 1, y) - mean(x - 1, y)), 0.5 * (mean(x, y + 1) - mean(x, y - 1)), level.sc);
  }
  return out;
}

cv::Point2d apply(const cv::Matx33d& H, double x, double y) {
  const double w = H(2, 0) * x + H(2, 1) * y + H(2, 2);
  return {(H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w, (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w};
}

double medianOf(std::vector<double>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

/// The points of the target (model pixels) whose moves tell how far a homography changed where
/// the target is seen: the corners of a kCheckGrid × kCheckGrid grid over the target that H puts
/// in the frame (`frameSize`), or the target's corners when fewer than 4 of them are. A large
/// target partly out of view (a book held close) has corners far outside the frame, where a
/// change of perspective too small to see in the frame moves them by pixels: measured there, the
/// alignment never converged and its moves looked too large to accept (issue 45, Deliver 5: on
/// korean_book 201 of 329 refinements were refused, every one after its last iteration).
std::vector<cv::Point2d> checkPoints(const cv::Matx33d& H, cv::Size modelSize, cv::Size frameSize) {
  std::vector<cv::Point2d> points;
  for (int j = 0; j <= kCheckGrid; ++j)
    for (int i = 0; i <= kCheckGrid; ++i) {
      const cv::Point2d m(modelSize.width * i / static_cast<double>(kCheckGrid),
                          modelSize.height * j / static_cast<double>(kCheckGrid));
      const cv::Point2d q = apply(H, m.x, m.y);
      if (q.x >= 0 && q.y >= 0 && q.x <= frameSize.width && q.y <= frameSize.height) points.push_back(m);
    }
  if (points.size() >= 4) return points;
  const double w = modelSize.width, h = modelSize.height;
  return {{0, 0}, {w, 0}, {w, h}, {0, h}};
}

/// The largest distance between where G and H put `points` (frame pixels).
double largestMove(const cv::Matx33d& G, const cv::Matx33d& H, const std::vector<cv::Point2d>& points) {
  double moved = 0;
  for (const cv::Point2d& m : points) moved = std::max(moved, cv::norm(apply(G, m.x, m.y) - apply(H, m.x, m.y)));
  return moved;
}

/// How iterate() ended.
enum class Alignment { Failed, Unconverged, Converged };

/// Iterations of inverse-compositional alignment of `samples` (of `level`) on `frame`, starting
/// from `H` (model pixels → frame pixels), updated in place, until `check` (model pixels,
/// checkPoints) move less than `convergedPx` (frame pixels), at most `maxIterations`; Failed when the alignment fails (too few samples in
/// view or agreeing, no correlation, a singular system). Fills `out`'s counts.
Alignment iterate(const Level& level, const std::vector<Sample>& samples, const cv::Mat& frame,
                  const RefinerOptions& o, int maxIterations, double convergedPx, const std::vector<cv::Point2d>& check,
                  cv::Matx33d& H, Refinement& out) {
  const size_t n = samples.size();
  if (n < 16) return Alignment::Failed;
  const cv::Matx33d toModel = level.toModel();
  cv::Matx33d G = H * toModel;  // normalised level coordinates → frame pixels
  const cv::Matx33d fromModel = toModel.inv();
  std::vector<double> residual(n), weight(n, 1.0), grey(n), magnitudes;
  std::vector<char> valid(n);
  const double umax = frame.cols - 1.001, vmax = frame.rows - 1.001;
  for (int iteration = 1; iteration <= maxIterations; ++iteration) {
    ++out.iterations;
    int inView = 0;
    for (size_t i = 0; i < n; ++i) {
      const cv::Point2d q = apply(G, samples[i].x, samples[i].y);
      valid[i] = q.x >= 0 && q.y >= 0 && q.x < umax && q.y < vmax;
      if (valid[i]) {
        grey[i] = sampleAt(frame, q.x, q.y);
        ++inView;
      }
    }
    out.inView = inView;
    if (inView < std::max(16.0, o.minInView * static_cast<double>(n))) return Alignment::Failed;
    // Gain and offset (frame ≈ a · template + b) and the residuals' Tukey weights, twice: the
    // gain from the last weights (on the first iteration from medians and median absolute
    // deviations, which an occluder over part of the target barely moves), the weights from its
    // residuals, then the gain again from those weights.
    double c = 0;
    for (int pass = 0; pass < 2; ++pass) {
      double a = 0, b = 0;
      if (iteration == 1 && pass == 0) {
        std::vector<double> frameValues, templateValues;
        for (size_t i = 0; i < n; ++i)
          if (valid[i]) frameValues.push_back(grey[i]), templateValues.push_back(samples[i].t);
        const double mf = medianOf(frameValues), mt = medianOf(templateValues);
        for (double& v : frameValues) v = std::abs(v - mf);
        for (double& v : templateValues) v = std::abs(v - mt);
        const double sf = medianOf(frameValues), st = medianOf(templateValues);
        a = st > 0 ? sf / st : 0;
        b = mf - a * mt;
      } else {
        double sw = 0, st = 0, si = 0, stt = 0, sti = 0;
        for (size_t i = 0; i < n; ++i)
          if (valid[i]) {
            const double wi = weight[i], t = samples[i].t, g = grey[i];
            sw += wi, st += wi * t, si += wi * g, stt += wi * t * t, sti += wi * t * g;
          }
        if (sw <= 0) return Alignment::Failed;
        const double mt = st / sw, mi = si / sw, vt = stt / sw - mt * mt, cti = sti / sw - mt * mi;
        a = vt > 0 ? cti / vt : 0;
        b = mi - a * mt;
      }
      if (!(a > 0.05)) return Alignment::Failed;  // the frame there does not look like the target
      magnitudes.clear();
      for (size_t i = 0; i < n; ++i)
        if (valid[i]) {
          residual[i] = (grey[i] - b) / a - samples[i].t;
          magnitudes.push_back(std::abs(residual[i]));
        }
      c = kTukey * std::max(kMinScaleGrey, 1.4826 * medianOf(magnitudes));
      for (size_t i = 0; i < n; ++i) {
        const double u = valid[i] ? residual[i] / c : 1.0;
        weight[i] = std::abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0.0;
      }
    }
    {  // the samples' normalised cross-correlation, template against frame, Tukey-weighted
      double sw = 0, st = 0, sg = 0, stt = 0, sgg = 0, stg = 0;
      for (size_t i = 0; i < n; ++i)
        if (weight[i] > 0) {
          const double wi = weight[i], t = samples[i].t, g = grey[i];
          sw += wi, st += wi * t, sg += wi * g, stt += wi * t * t, sgg += wi * g * g, stg += wi * t * g;
        }
      const double vt = stt - st * st / sw, vg = sgg - sg * sg / sw;
      out.correlation = sw > 0 && vt > 0 && vg > 0 ? (stg - st * sg / sw) / std::sqrt(vt * vg) : 0;
    }
    cv::Matx<double, 8, 8> A = cv::Matx<double, 8, 8>::zeros();
    cv::Vec<double, 8> g = cv::Vec<double, 8>::all(0);
    int agreeing = 0;
    double sum2 = 0, sumW = 0;
    for (size_t i = 0; i < n; ++i) {
      if (weight[i] <= 0) continue;
      ++agreeing;
      sum2 += weight[i] * residual[i] * residual[i];
      sumW += weight[i];
      const std::array<float, 8>& j = samples[i].j;
      for (int r = 0; r < 8; ++r) {
        g[r] += weight[i] * j[static_cast<size_t>(r)] * residual[i];
        for (int k = r; k < 8; ++k) A(r, k) += weight[i] * j[static_cast<size_t>(r)] * j[static_cast<size_t>(k)];
      }
    }
    out.agreeing = agreeing;
    out.rmsGrey = sumW > 0 ? std::sqrt(sum2 / sumW) : 0;
    if (agreeing < std::max(16.0, o.minAgreeing * inView)) return Alignment::Failed;
    for (int r = 0; r < 8; ++r)
      for (int k = 0; k < r; ++k) A(r, k) = A(k, r);
    cv::Vec<double, 8> dp;
    if (!cv::solve(A, g, dp, cv::DECOMP_CHOLESKY)) return Alignment::Failed;
    // Inverse composition: W(x; p) ← W(x; p) ∘ W(x; Δp)⁻¹.
    const cv::Matx33d step(1 + dp[0], dp[2], dp[4], dp[1], 1 + dp[3], dp[5], dp[6], dp[7], 1);
    const cv::Matx33d next = G * step.inv();
    const double moved = largestMove(next * fromModel, G * fromModel, check);
    G = next;
    if (moved < convergedPx) {
      H = G * fromModel;
      return Alignment::Converged;
    }
  }
  H = G * fromModel;
  return Alignment::Unconverged;
}

}  // namespace

struct HomographyRefiner::Impl {
  RefinerOptions options;
  cv::Size size;  // the model image's
  std::vector<Level> levels;
};

HomographyRefiner::HomographyRefiner(const cv::Mat& image, const RefinerOptions& o) : impl_(std::make_unique<Impl>()) {
  if (image.type() != CV_8UC1 || image.cols < 16 || image.rows < 16)
    throw std::invalid_argument("HomographyRefiner: the target image must be CV_8UC1 of at least 16x16, got " +
                                cv::typeToString(image.type()) + " " + std::to_string(image.cols) + "x" +
                                std::to_string(image.rows));
  if (o.samples < 16) throw std::invalid_argument("RefinerOptions::samples must be >= 16, got " + std::to_string(o.samples));
  if (!(o.minGradient >= 0)) throw std::invalid_argument("RefinerOptions::minGradient must be >= 0");
  if (o.maxIterations < 1) throw std::invalid_argument("RefinerOptions::maxIterations must be >= 1");
  if (!(o.minInView > 0 && o.minInView <= 1)) throw std::invalid_argument("RefinerOptions::minInView must be in (0, 1]");
  if (!(o.minAgreeing > 0 && o.minAgreeing <= 1))
    throw std::invalid_argument("RefinerOptions::minAgreeing must be in (0, 1]");
  if (!(o.maxShiftPx > 0)) throw std::invalid_argument("RefinerOptions::maxShiftPx must be > 0");
  if (!(o.minCorrelation >= -1 && o.minCorrelation <= 1))
    throw std::invalid_argument("RefinerOptions::minCorrelation must be in [-1, 1]");
  impl_->options = o;
  impl_->size = image.size();
  cv::Mat level = image;
  for (double scale = 1; std::min(level.cols, level.rows) >= kMinLevelSide; scale *= 2) {
    impl_->levels.push_back(buildLevel(level, scale, o));
    cv::pyrDown(level, level);
  }
}

HomographyRefiner::~HomographyRefiner() = default;
HomographyRefiner::HomographyRefiner(HomographyRefiner&&) noexcept = default;
HomographyRefiner& HomographyRefiner::operator=(HomographyRefiner&&) noexcept = default;
const RefinerOptions& HomographyRefiner::options() const { return impl_->options; }

Refinement HomographyRefiner::refine(const cv::Mat& frame, const cv::Matx33d& homography, cv::Vec2d streakPx,
                                     bool coarseToFine) const {
  if (frame.empty() || (frame.type() != CV_8UC1 && frame.type() != CV_8UC3))
    throw std::invalid_argument("HomographyRefiner::refine: expected a CV_8UC1 or CV_8UC3 frame, got " +
                                cv::typeToString(frame.type()) + " " + std::to_string(frame.cols) + "x" +
                                std::to_string(frame.rows));
  const Impl& s = *impl_;
  const RefinerOptions& o = s.options;
  Refinement out;
  const double w = s.size.width, h = s.size.height;
  const std::vector<cv::Point2d> check = checkPoints(homography, s.size, cv::Size(frame.cols, frame.rows));

  // 1. The level whose pixels are about the frame's at the target's centre.
  const cv::Point2d c0 = apply(homography, 0.5 * w, 0.5 * h), cx = apply(homography, 0.5 * w + 1, 0.5 * h),
                    cy = apply(homography, 0.5 * w, 0.5 * h + 1);
  const double frameScale = std::sqrt(std::abs((cx - c0).cross(cy - c0)));  // frame px per model px
  if (!std::isfinite(frameScale) || frameScale <= 0) return out;
  const cv::Matx22d toModel = cv::Matx22d(cx.x - c0.x, cy.x - c0.x, cx.y - c0.y, cy.y - c0.y).inv();
  const int wanted = static_cast<int>(std::lround(std::log2(1.0 / frameScale)));
  out.level = std::clamp(wanted, 0, static_cast<int>(s.levels.size()) - 1);
  // 2. The alignment on template level l from H, at most `iterations`.
  const auto align = [&](int l, int iterations, cv::Matx33d& H) {
    const Level& level = s.levels[static_cast<size_t>(l)];
    // The streak in this level's pixels: frame pixels through the inverse of the homography's
    // Jacobian at the target's centre (rotation and scale), model pixels to level pixels.
    const cv::Vec2d streak = toModel * streakPx * (1.0 / level.scale);
    const bool blurred = cv::norm(streak) >= kMinStreakPx;
    const std::vector<Sample> samples = blurred ? blurredSamples(level, streak) : std::vector<Sample>();
    const double converged = kConvergedPx * std::ldexp(1.0, l - out.level);
    return iterate(level, blurred ? samples : level.samples, frame, o, iterations, converged, check, H, out);
  };
  // A start close to the optimum converges at the level itself in a few iterations; else coarse
  // to fine from kCoarseLevels template levels up (a start 10 px off is 2.5 level pixels there,
  // within the basin of its smoother gradients), each level iterated until it converges.
  cv::Matx33d current = homography;  // model pixels → frame pixels
  Alignment quick = align(out.level, kQuickIterations, current);
  if (quick == Alignment::Failed) return out;
  // Still moving, but little: a slow (linear) convergence near the optimum, as a real print's
  // blur and noise give (cmu_book: 0.34, 0.21, 0.16, 0.13 px a step), is followed at the level
  // itself, not restarted from coarser levels (0.27 -> 2.2 ms a frame when it was).
  if (quick == Alignment::Unconverged && largestMove(current, homography, check) <= kQuickShiftPx) {
    quick = align(out.level, o.maxIterations - kQuickIterations, current);
    if (quick == Alignment::Failed) return out;
  }
  if (quick == Alignment::Unconverged || largestMove(current, homography, check) > kQuickShiftPx) {
    if (!coarseToFine) return out;
    current = homography;
    const int first = std::min(out.level + kCoarseLevels, static_cast<int>(s.levels.size()) - 1);
    for (int l = first; l >= out.level; --l)
      if (align(l, o.maxIterations, current) == Alignment::Failed) return out;
  }

  // 3. Accept only a bounded move.
  cv::Matx33d refined = current * (1.0 / current(2, 2));
  out.shiftPx = largestMove(refined, homography, check);
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(refined.val[i])) return out;
  if (out.shiftPx > o.maxShiftPx || out.correlation < o.minCorrelation) return out;
  out.homography = refined;
  return out;
}

}  // namespace nft::tracker
