// HomographyRefiner: inverse-compositional alignment with gain, offset and Tukey weights (see
// homography_refiner.h).
#include "tracker/homography_refiner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/core/hal/intrin.hpp>
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
      setGradient(s, gx.at<float>(by, bx), gy.at<float>(by, bx), level.sc);
      level.samples.push_back(s);
    }
  return level;
}

/// Bilinear value of a CV_8UC1 image (rows `step` bytes apart) at (u, v) in [0, cols − 1) ×
/// [0, rows − 1).
inline float bilinearAt(const uchar* data, size_t step, double u, double v) {
  const int x = static_cast<int>(u), y = static_cast<int>(v);
  const float ax = static_cast<float>(u - x), ay = static_cast<float>(v - y);
  const uchar* r0 = data + static_cast<size_t>(y) * step + x;
  const uchar* r1 = r0 + step;
  const float top = r0[0] + ax * static_cast<float>(r0[1] - r0[0]);
  const float bottom = r1[0] + ax * static_cast<float>(r1[1] - r1[0]);
  return top + ay * (bottom - top);
}

/// bilinearAt() and the central differences of the bilinear image there, (I(u + 1, v) −
/// I(u − 1, v)) / 2 and (I(u, v + 1) − I(u, v − 1)) / 2, from the 12 pixels they read, for (u, v)
/// in [1, cols − 2) × [1, rows − 2).
inline void bilinearWithGradient(const uchar* data, size_t step, double u, double v, float& value, float& gx,
                                 float& gy) {
  const int x = static_cast<int>(u), y = static_cast<int>(v);
  const float ax = static_cast<float>(u - x), ay = static_cast<float>(v - y);
  const uchar* r1 = data + static_cast<size_t>(y) * step + x;  // row y, column x
  const uchar* r0 = r1 - step;
  const uchar* r2 = r1 + step;
  const uchar* r3 = r2 + step;
  const auto across = [ax](const uchar* r, int c) { return r[c] + ax * static_cast<float>(r[c + 1] - r[c]); };
  const float left1 = across(r1, -1), mid1 = across(r1, 0), right1 = across(r1, 1);
  const float left2 = across(r2, -1), mid2 = across(r2, 0), right2 = across(r2, 1);
  const float mid0 = across(r0, 0), mid3 = across(r3, 0);
  value = mid1 + ay * (mid2 - mid1);
  gx = 0.5f * ((right1 + ay * (right2 - right1)) - (left1 + ay * (left2 - left1)));
  gy = 0.5f * ((mid2 + ay * (mid3 - mid2)) - (mid0 + ay * (mid1 - mid0)));
}

/// Σ a_i · b_i over n floats, in OpenCV's universal intrinsics (float lanes, two accumulators).
float dot(const float* a, const float* b, size_t n) {
  size_t i = 0;
  float sum = 0;
#if CV_SIMD
  constexpr size_t lanes = cv::v_float32::nlanes;
  cv::v_float32 s0 = cv::vx_setzero_f32(), s1 = cv::vx_setzero_f32();
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    s0 = cv::v_fma(cv::vx_load(a + i), cv::vx_load(b + i), s0);
    s1 = cv::v_fma(cv::vx_load(a + i + lanes), cv::vx_load(b + i + lanes), s1);
  }
  sum = cv::v_reduce_sum(s0 + s1);
#endif
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
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
    setGradient(s, 0.5 * (mean(x + 1, y) - mean(x - 1, y)), 0.5 * (mean(x, y + 1) - mean(x, y - 1)), level.sc);
  }
  return out;
}

cv::Point2d apply(const cv::Matx33d& H, double x, double y) {
  const double w = H(2, 0) * x + H(2, 1) * y + H(2, 2);
  return {(H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w, (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w};
}

/// The median (the element of rank size / 2) of `v`, which it reorders: exactly
/// std::nth_element's, in about a third of its time on the refiner's 512 values. A histogram of
/// 64 bins over [min, max] finds the bin holding that rank; nth_element then runs on that bin's
/// values only.
float medianOf(std::vector<float>& v) {
  const size_t n = v.size(), rank = n / 2;
  float lo = v[0], hi = v[0];
  for (const float x : v) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!(hi > lo)) return lo;  // all equal (or NaN, which the callers never pass)
  constexpr int kBins = 64;
  const float toBin = kBins / (hi - lo);
  const auto binOf = [&](float x) { return std::min(kBins - 1, static_cast<int>((x - lo) * toBin)); };
  size_t counts[kBins] = {};
  for (const float x : v) ++counts[binOf(x)];
  int bin = 0;
  size_t below = 0;
  while (below + counts[bin] <= rank) below += counts[bin++];
  // The bin's values to the front, then the rank among them.
  size_t m = 0;
  for (size_t i = 0; i < n; ++i)
    if (binOf(v[i]) == bin) std::swap(v[m++], v[i]);
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(rank - below);
  std::nth_element(v.begin(), mid, v.begin() + static_cast<std::ptrdiff_t>(m));
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

/// iterate()'s buffers, one value per sample, kept per thread so that a refinement allocates
/// nothing once warm.
struct AlignScratch {
  std::vector<float> grey, warpedGx, warpedGy, residual, weight;
  std::vector<float> values, moreValues;  // for the medians
  std::vector<float> rows;                // 9 × n: the weighted steepest-descent rows and residuals
  std::vector<unsigned char> valid;
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
  s.grey.assign(n, 0.f);
  s.warpedGx.assign(n, 0.f);
  s.warpedGy.assign(n, 0.f);
  s.residual.assign(n, 0.f);
  s.weight.assign(n, 1.f);
  s.valid.assign(n, 0);
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
      s.valid[i] = u >= umin && v >= vmin && u < umax && v < vmax;
      if (!s.valid[i]) continue;
      ++inView;
      if (!secondOrder) {
        s.grey[i] = bilinearAt(data, rowStep, u, v);
        continue;
      }
      float ix, iy;
      bilinearWithGradient(data, rowStep, u, v, s.grey[i], ix, iy);
      // The warped frame's gradient in the level's normalised coordinates: ∇I · ∂(u, v)/∂(x, y).
      const double ux = (G(0, 0) - u * G(2, 0)) * w, uy = (G(0, 1) - u * G(2, 1)) * w;
      const double vx = (G(1, 0) - v * G(2, 0)) * w, vy = (G(1, 1) - v * G(2, 1)) * w;
      s.warpedGx[i] = static_cast<float>(ix * ux + iy * vx);
      s.warpedGy[i] = static_cast<float>(ix * uy + iy * vy);
    }
    out.inView = inView;
    if (inView < std::max(16.0, o.minInView * static_cast<double>(n))) return Alignment::Failed;
    // Gain and offset (frame ≈ a · template + b) and the residuals' Tukey weights, twice: the
    // gain from the last weights (on the first iteration from medians and median absolute
    // deviations, which an occluder over part of the target barely moves), the weights from its
    // residuals, then the gain again from those weights.
    double c = 0, gain = 1;
    for (int pass = 0; pass < 2; ++pass) {
      double a = 0, b = 0;
      if (iteration == 1 && pass == 0) {
        std::vector<float>& frameValues = s.values;
        std::vector<float>& templateValues = s.moreValues;
        frameValues.clear();
        templateValues.clear();
        for (size_t i = 0; i < n; ++i)
          if (s.valid[i]) frameValues.push_back(s.grey[i]), templateValues.push_back(samples[i].t);
        const float mf = medianOf(frameValues), mt = medianOf(templateValues);
        for (float& v : frameValues) v = std::abs(v - mf);
        for (float& v : templateValues) v = std::abs(v - mt);
        const double sf = medianOf(frameValues), st = medianOf(templateValues);
        a = st > 0 ? sf / st : 0;
        b = mf - a * mt;
      } else {
        double sw = 0, st = 0, si = 0, stt = 0, sti = 0;
        for (size_t i = 0; i < n; ++i)
          if (s.valid[i]) {
            const double wi = s.weight[i], t = samples[i].t, g = s.grey[i];
            sw += wi, st += wi * t, si += wi * g, stt += wi * t * t, sti += wi * t * g;
          }
        if (sw <= 0) return Alignment::Failed;
        const double mt = st / sw, mi = si / sw, vt = stt / sw - mt * mt, cti = sti / sw - mt * mi;
        a = vt > 0 ? cti / vt : 0;
        b = mi - a * mt;
      }
      if (!(a > 0.05)) return Alignment::Failed;  // the frame there does not look like the target
      gain = a;
      std::vector<float>& magnitudes = s.values;
      magnitudes.clear();
      const float inverseGain = static_cast<float>(1.0 / a), offset = static_cast<float>(b);
      for (size_t i = 0; i < n; ++i)
        if (s.valid[i]) {
          s.residual[i] = (s.grey[i] - offset) * inverseGain - samples[i].t;
          magnitudes.push_back(std::abs(s.residual[i]));
        }
      c = kTukey * std::max(kMinScaleGrey, 1.4826 * medianOf(magnitudes));
      const float inverseScale = static_cast<float>(1.0 / c);
      for (size_t i = 0; i < n; ++i) {
        const float u = s.valid[i] ? s.residual[i] * inverseScale : 1.0f;
        s.weight[i] = std::abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0.0f;
      }
    }
    // The samples' normalised cross-correlation, template against frame, Tukey-weighted; and the
    // steepest-descent rows weighted by √w (row r of sample i at rows[r · n + i], the weighted
    // residual at rows[8n + i]), whose products give the normal equations.
    double sw = 0, st = 0, sg = 0, stt = 0, sgg = 0, stg = 0, sum2 = 0;
    int agreeing = 0;
    const float inverseGain = static_cast<float>(1.0 / gain);
    float* rows = s.rows.data();
    for (size_t i = 0; i < n; ++i) {
      const float wi = s.weight[i];
      if (!(wi > 0)) {
        for (size_t r = 0; r < 9; ++r) rows[r * n + i] = 0.f;
        continue;
      }
      ++agreeing;
      const double t = samples[i].t, g = s.grey[i];
      sw += wi, st += wi * t, sg += wi * g, stt += wi * t * t, sgg += wi * g * g, stg += wi * t * g;
      sum2 += static_cast<double>(wi) * s.residual[i] * s.residual[i];
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
      rows[8 * n + i] = root * s.residual[i];
    }
    {
      const double vt = stt - st * st / sw, vg = sgg - sg * sg / sw;
      out.correlation = sw > 0 && vt > 0 && vg > 0 ? (stg - st * sg / sw) / std::sqrt(vt * vg) : 0;
    }
    out.agreeing = agreeing;
    out.rmsGrey = sw > 0 ? std::sqrt(sum2 / sw) : 0;
    if (agreeing < std::max(16.0, o.minAgreeing * inView)) return Alignment::Failed;
    cv::Matx<double, 8, 8> A;
    cv::Vec<double, 8> g;
    for (size_t r = 0; r < 8; ++r) {
      g[static_cast<int>(r)] = dot(rows + r * n, rows + 8 * n, n);
      for (size_t k = r; k < 8; ++k)
        A(static_cast<int>(r), static_cast<int>(k)) = A(static_cast<int>(k), static_cast<int>(r)) =
            dot(rows + r * n, rows + k * n, n);
    }
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
