// HomographyRefiner: inverse-compositional alignment with gain, offset and Tukey weights (see
// homography_refiner.h).
#include "tracker/homography_refiner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "tracker/dense_alignment.h"

namespace nft::tracker {
namespace {

using alignment::bilinearAt;
using alignment::bilinearWithGradient;
using alignment::floatAt;
using alignment::kCoarseLevels;
using alignment::kConvergedPx;
using alignment::kMinLevelSide;
using alignment::kMinStreakPx;
using alignment::kQuickIterations;
using alignment::kQuickShiftPx;

using alignment::kCheckGrid;

/// One template sample: its position in the level's normalised coordinates, its grey value and
/// its gradient there (grey levels per normalised unit: the level's gradient × sc).
struct Sample {
  float x, y, t;
  float gx, gy;
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

/// Sets the sample's gradient from (gx, gy), grey levels per level pixel.
void setGradient(Sample& s, double gx, double gy, double sc) {
  s.gx = static_cast<float>(gx * sc);
  s.gy = static_cast<float>(gy * sc);
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
  for (const cv::Point& p : alignment::strongestGradientPerCell(f, o.samples, o.minGradient, gx, gy)) {
    Sample s;
    s.x = static_cast<float>((p.x - level.cx) / level.sc);
    s.y = static_cast<float>((p.y - level.cy) / level.sc);
    s.t = f.at<float>(p);
    setGradient(s, gx.at<float>(p), gy.at<float>(p), level.sc);
    level.samples.push_back(s);
  }
  return level;
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
    setGradient(s, 0.5 * (mean(x + 1, y) - mean(x - 1, y)), 0.5 * (mean(x, y + 1) - mean(x, y - 1)), level.sc);
  }
  return out;
}

cv::Point2d apply(const cv::Matx33d& H, double x, double y) {
  const double w = H(2, 0) * x + H(2, 1) * y + H(2, 2);
  return {(H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w, (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w};
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

/// iterate()'s buffers, one value per sample, kept per thread so that a refinement allocates
/// nothing once warm.
struct AlignScratch {
  alignment::RobustSamples samples;   // values, residuals and weights
  std::vector<float> warpedGx, warpedGy;
  std::vector<float> rows;            // 9 × n: the weighted steepest-descent rows and residuals
};

/// How iterate() ended.
enum class Alignment { Failed, Unconverged, Converged };

/// Iterations of inverse-compositional alignment of `samples` (of `level`) on `frame`, starting
/// from `H` (model pixels → frame pixels), updated in place, until `check` (model pixels,
/// checkPoints) move less than `convergedPx` (frame pixels), at most `maxIterations`; Failed when the alignment fails (too few samples in
/// view or agreeing, no correlation, a singular system). Fills `out`'s counts.
Alignment iterate(const Level& level, const std::vector<Sample>& samples, const cv::Mat& frame,
                  const RefinerOptions& o, int maxIterations, double convergedPx, const std::vector<cv::Point2d>& check,
                  bool secondOrder, cv::Matx33d& H, Refinement& out) {
  const size_t n = samples.size();
  if (n < 16) return Alignment::Failed;
  const cv::Matx33d toModel = level.toModel();
  cv::Matx33d G = H * toModel;  // normalised level coordinates → frame pixels
  const cv::Matx33d fromModel = toModel.inv();
  thread_local AlignScratch scratch;
  AlignScratch& s = scratch;
  alignment::RobustSamples& robust = s.samples;
  robust.reset(n);
  for (size_t i = 0; i < n; ++i) robust.templateGrey[i] = samples[i].t;
  s.warpedGx.assign(n, 0.f);
  s.warpedGy.assign(n, 0.f);
  s.rows.assign(9 * n, 0.f);
  const uchar* data = frame.data;
  const size_t rowStep = frame.step;
  // Inside the frame, a pixel from its border: the central differences read either side.
  const double umin = 1.0, vmin = 1.0, umax = frame.cols - 2.001, vmax = frame.rows - 2.001;
  for (int iteration = 1; iteration <= maxIterations; ++iteration) {
    ++out.iterations;
    int inView = 0;
    for (size_t i = 0; i < n; ++i) {
      const double x = samples[i].x, y = samples[i].y;
      const double w = 1.0 / (G(2, 0) * x + G(2, 1) * y + G(2, 2));  // 1 / W
      const double u = (G(0, 0) * x + G(0, 1) * y + G(0, 2)) * w, v = (G(1, 0) * x + G(1, 1) * y + G(1, 2)) * w;
      robust.valid[i] = u >= umin && v >= vmin && u < umax && v < vmax;
      if (!robust.valid[i]) continue;
      ++inView;
      if (!secondOrder) {
        robust.frameGrey[i] = bilinearAt(data, rowStep, u, v);
        continue;
      }
      float ix, iy;
      bilinearWithGradient(data, rowStep, u, v, robust.frameGrey[i], ix, iy);
      // The warped frame's gradient in the level's normalised coordinates: ∇I · ∂(u, v)/∂(x, y).
      const double ux = (G(0, 0) - u * G(2, 0)) * w, uy = (G(0, 1) - u * G(2, 1)) * w;
      const double vx = (G(1, 0) - v * G(2, 0)) * w, vy = (G(1, 1) - v * G(2, 1)) * w;
      s.warpedGx[i] = static_cast<float>(ix * ux + iy * vx);
      s.warpedGy[i] = static_cast<float>(ix * uy + iy * vy);
    }
    out.inView = inView;
    if (inView < std::max(16.0, o.minInView * static_cast<double>(n))) return Alignment::Failed;
    // Gain and offset (frame ≈ a · template + b) and the residuals' Tukey weights
    // (alignment::fitGainAndWeights: robust to an occluder over part of the target).
    double gain = 1, offset = 0;
    if (!robust.fitGainAndWeights(iteration == 1, gain, offset)) return Alignment::Failed;
    // The samples' normalised cross-correlation, template against frame, Tukey-weighted; and the
    // steepest-descent rows weighted by √w (row r of sample i at rows[r · n + i], the weighted
    // residual at rows[8n + i]), whose products give the normal equations.
    alignment::WeightedCorrelation correlation;
    double sw = 0, sum2 = 0;
    int agreeing = 0;
    const float inverseGain = static_cast<float>(1.0 / gain);
    float* rows = s.rows.data();
    for (size_t i = 0; i < n; ++i) {
      const float wi = robust.weight[i];
      if (!(wi > 0)) {
        for (size_t r = 0; r < 9; ++r) rows[r * n + i] = 0.f;
        continue;
      }
      ++agreeing;
      correlation.add(wi, samples[i].t, robust.frameGrey[i]);
      sw += wi;
      sum2 += static_cast<double>(wi) * robust.residual[i] * robust.residual[i];
      // Efficient second-order minimisation (Benhimane and Malis, "Real-time image-based
      // tracking of planes using efficient second-order minimization", IROS 2004): the
      // steepest-descent row from the mean of the template's gradient and the warped frame's (in
      // template units, hence / a), not the template's alone. Where the frame is blurrier than
      // the template (a print as a camera sees it) the template's gradient alone overstates the
      // slope and every step falls short: cmu_book's refinements converged linearly, 0.34, 0.21,
      // 0.16, 0.13 px a step, 7.7 iterations a frame on average (4.7 now). Not in a frame blurred
      // by motion, whose template is blurred by the predicted streak: the mean then steps along
      // the streak, where the frame constrains little (motion_blur at 1280 × 720: 97.7 -> 91.7 %).
      const float ex = secondOrder ? 0.5f * (samples[i].gx + s.warpedGx[i] * inverseGain) : samples[i].gx;
      const float ey = secondOrder ? 0.5f * (samples[i].gy + s.warpedGy[i] * inverseGain) : samples[i].gy;
      const float x = samples[i].x, y = samples[i].y, radial = ex * x + ey * y, root = std::sqrt(wi);
      const float j[8] = {ex * x, ey * x, ex * y, ey * y, ex, ey, -x * radial, -y * radial};
      for (size_t r = 0; r < 8; ++r) rows[r * n + i] = root * j[r];
      rows[8 * n + i] = root * robust.residual[i];
    }
    out.correlation = correlation.value();
    if (out.iterations == 1) out.startCorrelation = out.correlation;
    out.agreeing = agreeing;
    out.rmsGrey = sw > 0 ? std::sqrt(sum2 / sw) : 0;
    if (agreeing < std::max(16.0, o.minAgreeing * inView)) return Alignment::Failed;
    cv::Matx<double, 8, 8> A;
    cv::Vec<double, 8> g;
    alignment::normalEquations(rows, n, A, g);
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

void validateRefinerOptions(const RefinerOptions& o) {
  if (o.samples < 16) throw std::invalid_argument("RefinerOptions::samples must be >= 16, got " + std::to_string(o.samples));
  if (!(o.minGradient >= 0)) throw std::invalid_argument("RefinerOptions::minGradient must be >= 0");
  if (o.maxIterations < 1) throw std::invalid_argument("RefinerOptions::maxIterations must be >= 1");
  if (!(o.minInView > 0 && o.minInView <= 1)) throw std::invalid_argument("RefinerOptions::minInView must be in (0, 1]");
  if (!(o.minAgreeing > 0 && o.minAgreeing <= 1))
    throw std::invalid_argument("RefinerOptions::minAgreeing must be in (0, 1]");
  if (!(o.maxShiftPx > 0)) throw std::invalid_argument("RefinerOptions::maxShiftPx must be > 0");
  if (!(o.minCorrelation >= -1 && o.minCorrelation <= 1))
    throw std::invalid_argument("RefinerOptions::minCorrelation must be in [-1, 1]");
  if (!(o.confirmingGain > 0)) throw std::invalid_argument("RefinerOptions::confirmingGain must be > 0");
  if (!(o.confirmedShiftFactor >= 1 && std::isfinite(o.confirmedShiftFactor)))
    throw std::invalid_argument("RefinerOptions::confirmedShiftFactor must be >= 1 and finite");
}

bool withinShiftLimit(const RefinerOptions& o, double shiftPx, double startCorrelation, double correlation) {
  if (shiftPx <= o.maxShiftPx) return true;
  return correlation - startCorrelation >= o.confirmingGain && shiftPx <= o.confirmedShiftFactor * o.maxShiftPx;
}

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
  validateRefinerOptions(o);
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
  // A BGR frame is aligned as its grey (cv::cvtColor's weights), converted once here.
  cv::Mat grey = frame;
  if (frame.channels() == 3) cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
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
    return iterate(level, blurred ? samples : level.samples, grey, o, iterations, converged, check, !blurred, H, out);
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

  // 3. Accept only a bounded move (withinShiftLimit: a larger one when the frame confirms it).
  cv::Matx33d refined = current * (1.0 / current(2, 2));
  out.shiftPx = largestMove(refined, homography, check);
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(refined.val[i])) return out;
  if (!withinShiftLimit(o, out.shiftPx, out.startCorrelation, out.correlation) || out.correlation < o.minCorrelation)
    return out;
  out.homography = refined;
  return out;
}

}  // namespace nft::tracker
