#include "tracker/ncc_patch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/imgproc.hpp>

namespace nft::tracker {
namespace {

cv::Point2d apply(const cv::Matx33d& H, double x, double y) {
  const double w = H(2, 0) * x + H(2, 1) * y + H(2, 2);
  return {(H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w, (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w};
}

/// Target pixels per full-resolution frame pixel around frame point p: the square root of the
/// area ratio of frameToTarget's local linear map (finite differences over one pixel).
double localScale(const cv::Matx33d& frameToTarget, cv::Point2d p) {
  const cv::Point2d c = apply(frameToTarget, p.x, p.y);
  const cv::Point2d dx = apply(frameToTarget, p.x + 1, p.y) - c;
  const cv::Point2d dy = apply(frameToTarget, p.x, p.y + 1) - c;
  return std::sqrt(std::abs(dx.x * dy.y - dx.y * dy.x));
}

// Always inlined: it is the inner loop of every template (GCC left it out of line once
// warpPatchBlurred grew its tap loop, +8 % of the tracking lane on cmu_book).
[[gnu::always_inline]] inline float bilinear(const cv::Mat& image, double x, double y) {
  const int x0 = std::min(static_cast<int>(x), image.cols - 2);
  const int y0 = std::min(static_cast<int>(y), image.rows - 2);
  const float fx = static_cast<float>(x - x0), fy = static_cast<float>(y - y0);
  const uchar* r0 = image.ptr<uchar>(y0) + x0;
  const uchar* r1 = image.ptr<uchar>(y0 + 1) + x0;
  const float top = r0[0] + fx * static_cast<float>(r0[1] - r0[0]);
  const float bottom = r1[0] + fx * static_cast<float>(r1[1] - r1[0]);
  return top + fy * (bottom - top);
}

/// Σ (v_i − offset) over n floats, or Σ (v_i − offset)² when `squared`, in OpenCV's universal
/// intrinsics (independent lanes instead of one chain of dependent additions).
float sumOf(const float* v, int n, float offset, bool squared = false) {
  int i = 0;
  float sum = 0;
#if CV_SIMD
  constexpr int lanes = cv::v_float32::nlanes;
  const cv::v_float32 o = cv::vx_setall_f32(offset);
  cv::v_float32 acc = cv::vx_setzero_f32();
  for (; i + lanes <= n; i += lanes) {
    const cv::v_float32 d = cv::vx_load(v + i) - o;
    acc = squared ? cv::v_fma(d, d, acc) : acc + d;
  }
  sum = cv::v_reduce_sum(acc);
#endif
  for (; i < n; ++i) sum += squared ? (v[i] - offset) * (v[i] - offset) : v[i] - offset;
  return sum;
}

/// bilinear() at 4 points (x, y) of `image` (CV_8UC1) within [0, cols − 1] × [0, rows − 1]: the
/// corners' pixels read one by one, the weights and the blend in vectors (the same arithmetic).
inline cv::v_float32x4 bilinear4(const cv::Mat& image, const cv::v_float32x4& x, const cv::v_float32x4& y) {
  const cv::v_int32x4 zero = cv::v_setzero_s32();
  const cv::v_int32x4 ix = cv::v_max(cv::v_min(cv::v_trunc(x), cv::v_setall_s32(image.cols - 2)), zero);
  const cv::v_int32x4 iy = cv::v_max(cv::v_min(cv::v_trunc(y), cv::v_setall_s32(image.rows - 2)), zero);
  const cv::v_float32x4 fx = x - cv::v_cvt_f32(ix), fy = y - cv::v_cvt_f32(iy);
  int xs[4], ys[4];
  cv::v_store(xs, ix);
  cv::v_store(ys, iy);
  const size_t step = image.step;
  const uchar* p[4];
  for (int k = 0; k < 4; ++k) p[k] = image.data + static_cast<size_t>(ys[k]) * step + xs[k];
  const auto corner = [&](size_t offset) {
    return cv::v_cvt_f32(cv::v_int32x4(p[0][offset], p[1][offset], p[2][offset], p[3][offset]));
  };
  const cv::v_float32x4 a = corner(0), b = corner(1), c = corner(step), d = corner(step + 1);
  const cv::v_float32x4 top = a + fx * (b - a), bottom = c + fx * (d - c);
  return top + fy * (bottom - top);
}

/// The sampling grid of a template (warpPatchInto): grid pixel (i, j) is the target point (level
/// pixels) (X, Y) / W with (X, Y, W) = G · (x0 + i·step, y0 + j·step, 1), averaged over `taps`
/// taps at offsets[k] · streak from it.
struct TapGrid {
  cv::Matx33d G;
  double x0 = 0, y0 = 0, step = 1;
  int size = 0, taps = 1;
  cv::Point2d streak;
  double offsets[kMaxBlurTaps] = {};
  double at(int row, int i, int j) const { return G(row, 0) * (x0 + i * step) + G(row, 1) * (y0 + j * step) + G(row, 2); }
};

/// The grid's values into v (row-major) when every tap lies inside `target` (no checks): four
/// pixels of a row at a time, the positions, the bilinear weights and the blending in vectors,
/// only the pixel reads one by one. size a multiple of 4.
void sampleInside(const cv::Mat& target, const TapGrid& g, float* v) {
  const float invTaps = 1.0f / static_cast<float>(g.taps);
  const cv::v_float32x4 steps(0.f, 1.f, 2.f, 3.f);
  const double dX = g.G(0, 0) * g.step, dY = g.G(1, 0) * g.step, dW = g.G(2, 0) * g.step;
  const cv::v_float32x4 stepX = cv::v_setall_f32(static_cast<float>(dX)) * steps,
                        stepY = cv::v_setall_f32(static_cast<float>(dY)) * steps,
                        stepW = cv::v_setall_f32(static_cast<float>(dW)) * steps;
  for (int j = 0; j < g.size; ++j) {
    const double X0 = g.at(0, 0, j), Y0 = g.at(1, 0, j), W0 = g.at(2, 0, j);
    for (int i = 0; i < g.size; i += 4, v += 4) {
      const cv::v_float32x4 X = cv::v_setall_f32(static_cast<float>(X0 + i * dX)) + stepX;
      const cv::v_float32x4 Y = cv::v_setall_f32(static_cast<float>(Y0 + i * dY)) + stepY;
      const cv::v_float32x4 r = cv::v_setall_f32(1.0f) / (cv::v_setall_f32(static_cast<float>(W0 + i * dW)) + stepW);
      const cv::v_float32x4 qx = X * r, qy = Y * r;
      if (g.taps == 1) {
        cv::v_store(v, bilinear4(target, qx, qy));
        continue;
      }
      cv::v_float32x4 sum = cv::v_setzero_f32();
      for (int k = 0; k < g.taps; ++k)
        sum += bilinear4(target, qx + cv::v_setall_f32(static_cast<float>(g.offsets[k] * g.streak.x)),
                         qy + cv::v_setall_f32(static_cast<float>(g.offsets[k] * g.streak.y)));
      cv::v_store(v, sum * cv::v_setall_f32(invTaps));
    }
  }
}

/// The grid's values into v, every tap checked: false as soon as one falls outside `target` (or
/// is NaN).
bool sampleChecked(const cv::Mat& target, const TapGrid& g, float* v) {
  const double maxX = target.cols - 1, maxY = target.rows - 1;
  const double dX = g.G(0, 0) * g.step, dY = g.G(1, 0) * g.step, dW = g.G(2, 0) * g.step;
  for (int j = 0; j < g.size; ++j) {
    double X = g.at(0, 0, j), Y = g.at(1, 0, j), W = g.at(2, 0, j);
    for (int i = 0; i < g.size; ++i, ++v, X += dX, Y += dY, W += dW) {
      const double r = 1.0 / W;
      const double qx = X * r, qy = Y * r;
      float value = 0;
      for (int k = 0; k < g.taps; ++k) {
        const double x = qx + g.offsets[k] * g.streak.x, y = qy + g.offsets[k] * g.streak.y;
        if (!(x >= 0 && y >= 0 && x <= maxX && y <= maxY)) return false;
        value += bilinear(target, x, y);
      }
      *v = g.taps == 1 ? value : value / static_cast<float>(g.taps);
    }
  }
  return true;
}

/// NCC of the template with the window whose top-left pixel is `origin` (inside the image).
float ncc(const cv::Mat& image, const PatchTemplate& patch, cv::Point origin) {
  const int n = patch.size;
  float dot = 0, sum = 0, sumSq = 0;
  const float* t = patch.values.data();
  for (int j = 0; j < n; ++j) {
    const uchar* row = image.ptr<uchar>(origin.y + j) + origin.x;
    for (int i = 0; i < n; ++i, ++t) {
      const float w = row[i];
      dot += *t * w;
      sum += w;
      sumSq += w * w;
    }
  }
  // Σ t = 0, so Σ t·(w − mean w) = Σ t·w; the template's norm is 1.
  const float variance = sumSq - sum * sum / static_cast<float>(n * n);
  return variance > 1e-3f ? dot / std::sqrt(variance) : 0.0f;
}

/// Vertex offset of the parabola through (−1, a), (0, b), (+1, c), clamped to ±0.5.
float parabolaPeak(float a, float b, float c) {
  const float denominator = a - 2 * b + c;
  if (!(denominator < 0)) return 0;  // not a maximum (flat or a trough)
  return std::clamp(0.5f * (a - c) / denominator, -0.5f, 0.5f);
}

/// Patch sides scoreShifts() takes: a window's Σw and Σw² are integers below 2^24 (16² · 255² <
/// 2^24, exact as floats), and its quantised dot product fits 32 bits (16² · 32767 · 255 < 2^31).
constexpr int kMaxExactSumSize = 16;

/// Scratch of scoreShifts(), kept per thread.
struct SearchScratch {
  std::vector<short> pixels;       // the search area as 16-bit integers, rows of `stride` (zero padded)
  std::vector<short> weights;      // the template as 16-bit integers, rows of `padded`
  std::vector<int> sums, squares;  // integral images of the area (Σw, Σw²), (rows + 1) × (cols + 1)
};

/// ncc() of every shift in [first, last] (both inside the image, as searchNcc clips them), for a
/// patch of side <= kMaxExactSumSize, into out[(dy − first.y) · outStride + (dx − first.x)], with
/// the dot products in 16-bit integers (OpenCV's universal intrinsics): the template quantised to
/// round(t · Q), Q = 32767 / max |t|, each row's 8 products summed in pairs by v_dotprod (8
/// multiply-adds an instruction, where the float vectors make 4 in two), 4 neighbouring shifts at
/// a time, and the area converted once instead of once per shift. Exact integer sums of the
/// quantised products: the scores differ from ncc()'s by the quantisation, about 1e-5
/// (ncc_patch_test bounds it), far below what moves a peak. Σw and Σw² come from integral images
/// of the area (exact). tests/benchmarks/ncc_patch_benchmark.cpp: level with the float vectors of
/// 4 shifts this replaced (the window sums and the scoring, not the dot products, now take most of
/// a search) and 5-10 × faster than cv::matchTemplate on the same windows.
void scoreShifts(const cv::Mat& image, const PatchTemplate& patch, cv::Point centre, cv::Point first, cv::Point last,
                 float* out, int outStride) {
  thread_local SearchScratch scratch;
  const int n = patch.size, half = n / 2;
  const int padded = (n + 7) / 8 * 8;  // a template row in 8-lane steps (zeros past n)
  const int width = last.x - first.x + 1, height = last.y - first.y + 1;
  const int blocks = (width + 3) / 4;  // shifts scored 4 at a time
  const int areaCols = width + n - 1, areaRows = height + n - 1;
  const int stride = blocks * 4 + padded;  // every block reads 3 + padded columns past its first
  const int integralCols = areaCols + 1;
  const cv::Point origin = centre + first - cv::Point(half, half);
  const auto at = [](int i) { return static_cast<size_t>(i); };

  float largest = 0;
  for (const float t : patch.values) largest = std::max(largest, std::abs(t));
  const float quantum = largest > 0 ? 32767.0f / largest : 1.0f;
  scratch.weights.assign(at(n * padded), 0);
  int weightSum = 0;  // Σ round(t · Q): the rounding leaves it off 0, by a few units
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      // round(t · Q), halves away from 0 as std::lround, which is a library call (it cost searchNcc
      // 15-35 %): |t · Q| <= 32767, where + 0.5 is exact in float.
      const float scaled = patch.values[at(j * n + i)] * quantum;
      const int magnitude = static_cast<int>(std::abs(scaled) + 0.5f);  // truncation: one instruction
      const short q = static_cast<short>(scaled < 0 ? -magnitude : magnitude);
      scratch.weights[at(j * padded + i)] = q;
      weightSum += q;
    }

  scratch.pixels.resize(at(areaRows * stride));
  scratch.sums.resize(at((areaRows + 1) * integralCols));
  scratch.squares.resize(at((areaRows + 1) * integralCols));
  short* pixels = scratch.pixels.data();
  int* sums = scratch.sums.data();
  int* squares = scratch.squares.data();
  std::fill(sums, sums + integralCols, 0);
  std::fill(squares, squares + integralCols, 0);
  for (int y = 0; y < areaRows; ++y) {
    const uchar* row = image.ptr<uchar>(origin.y + y) + origin.x;
    short* dst = pixels + y * stride;
    int* sumRow = sums + (y + 1) * integralCols;
    int* squareRow = squares + (y + 1) * integralCols;
    sumRow[0] = squareRow[0] = 0;
    int rowSum = 0, rowSquares = 0;
    for (int x = 0; x < areaCols; ++x) {
      const int w = row[x];
      dst[x] = static_cast<short>(w);
      rowSum += w;
      rowSquares += w * w;
      sumRow[x + 1] = sumRow[x + 1 - integralCols] + rowSum;
      squareRow[x + 1] = squareRow[x + 1 - integralCols] + rowSquares;
    }
    std::fill(dst + areaCols, dst + stride, static_cast<short>(0));  // shifts past `last` (ignored)
  }

  const short* t = scratch.weights.data();
  const float count = static_cast<float>(n * n), toDot = 1.0f / quantum;
  for (int sy = 0; sy < height; ++sy)
    for (int b = 0; b < blocks; ++b) {
      cv::v_int32x4 a0 = cv::v_setzero_s32(), a1 = a0, a2 = a0, a3 = a0;
      for (int j = 0; j < n; ++j) {
        const short* p = pixels + (sy + j) * stride + b * 4;
        for (int c = 0; c < padded; c += 8) {
          const cv::v_int16x8 tv = cv::v_load(t + j * padded + c);
          a0 = cv::v_dotprod(tv, cv::v_load(p + c), a0);
          a1 = cv::v_dotprod(tv, cv::v_load(p + c + 1), a1);
          a2 = cv::v_dotprod(tv, cv::v_load(p + c + 2), a2);
          a3 = cv::v_dotprod(tv, cv::v_load(p + c + 3), a3);
        }
      }
      // Lane k of the transposed sums is shift 4b + k's whole dot product.
      cv::v_int32x4 b0, b1, b2, b3;
      cv::v_transpose4x4(a0, a1, a2, a3, b0, b1, b2, b3);
      int dots[4];
      cv::v_store(dots, b0 + b1 + b2 + b3);
      for (int k = 0; k < 4 && b * 4 + k < width; ++k) {
        const int sx = b * 4 + k;
        const int top = sy * integralCols + sx, bottom = (sy + n) * integralCols + sx;
        const float sum = static_cast<float>(sums[bottom + n] - sums[bottom] - sums[top + n] + sums[top]);
        const float sumSq =
            static_cast<float>(squares[bottom + n] - squares[bottom] - squares[top + n] + squares[top]);
        // As ncc(): the template's norm is 1; its quantised values do not sum to 0, so their
        // dot product with the window's mean is taken off (else it adds the mean grey times a
        // few units of the quantum: 5e-4 on a 4 × 4 patch).
        const float variance = sumSq - sum * sum / count;
        const float dot = static_cast<float>(dots[k]) - static_cast<float>(weightSum) * sum / count;
        out[sy * outStride + sx] = variance > 1e-3f ? dot * toDot / std::sqrt(variance) : 0.0f;
      }
    }
}

}  // namespace

PatchTemplate warpPatch(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget,
                        cv::Point centre, int frameLevel, int size, float minStdDev) {
  return warpPatchBlurred(targetPyramid, frameToTarget, centre, frameLevel, size, cv::Point2d(0, 0), minStdDev);
}

PatchTemplate warpPatchBlurred(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget,
                               cv::Point centre, int frameLevel, int size, cv::Point2d streak, float minStdDev) {
  PatchTemplate patch;
  warpPatchInto(targetPyramid, frameToTarget, centre, frameLevel, size, streak, patch, minStdDev);
  return patch;
}

void warpPatchInto(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget, cv::Point centre,
                   int frameLevel, int size, cv::Point2d streak, PatchTemplate& patch, float minStdDev) {
  if (targetPyramid.empty() || targetPyramid[0].empty())
    throw std::invalid_argument("warpPatch: the target pyramid is empty");
  if (size < 2) throw std::invalid_argument("warpPatch: patch size must be >= 2, got " + std::to_string(size));
  patch.size = size;
  patch.valid = false;
  patch.values.resize(static_cast<size_t>(size) * static_cast<size_t>(size));

  const double levelScale = std::ldexp(1.0, frameLevel);
  const cv::Point2d centreFull(centre.x * levelScale, centre.y * levelScale);
  // Taps along the streak: about a level pixel apart, 2 to kMaxBlurTaps of them; none (one
  // tap, no blur) for a streak under kMinBlurStreak level pixels, which changes an 8 × 8
  // template too little to matter.
  const double streakLevelPx = std::hypot(streak.x, streak.y) / levelScale;
  const int taps = streakLevelPx < kMinBlurStreak
                       ? 1
                       : std::clamp(static_cast<int>(std::ceil(streakLevelPx)) + 1, 2, kMaxBlurTaps);
  // The target level to sample: the coarsest whose pixel is at most footprint/√2 target pixels,
  // with footprint the target pixels one level-L frame pixel covers (or one step between taps,
  // if longer). Measured on a fine-grained
  // synthetic target seen at 0.5×, 0.35×, 0.25× and 0.2× (area-averaged, as a camera integrates
  // light): mean NCC at the true position 0.99997 / 0.96 / 0.97 / 0.92 with this rule, against
  // 0.83 / 0.68 / 0.69 / 0.85 taking the level nearest the footprint and 1.0 / 0.88 / 0.78 / 0.54
  // from level 0 only. On tmt_bookI (the book at 0.5×–1×) the rules differ by 0.04 px of median
  // alignment error.
  const double stepLevelPx = taps > 1 ? streakLevelPx / (taps - 1) : 0.0;
  const double footprint = levelScale * localScale(frameToTarget, centreFull) * std::max(1.0, stepLevelPx);
  const int targetLevel = std::clamp(static_cast<int>(std::floor(std::log2(std::max(footprint, 1e-6)) - 0.5)), 0,
                                     static_cast<int>(targetPyramid.size()) - 1);
  const cv::Mat& target = targetPyramid[static_cast<size_t>(targetLevel)];
  const double toLevel = std::ldexp(1.0, -targetLevel);
  const double maxX = target.cols - 1, maxY = target.rows - 1;

  const int half = size / 2;
  // The streak in the target (level pixels), from the patch's centre: the taps of every grid
  // pixel follow it (the homography's change of scale within a patch is negligible for the blur).
  cv::Point2d targetStreak(0, 0);
  if (taps > 1)
    targetStreak = (apply(frameToTarget, centreFull.x + 0.5 * streak.x, centreFull.y + 0.5 * streak.y) -
                    apply(frameToTarget, centreFull.x - 0.5 * streak.x, centreFull.y - 0.5 * streak.y)) *
                   toLevel;
  // Grid pixel (i, j) is the full-resolution frame point p = (x0 + i·L, y0 + j·L); its target
  // point (level pixels) is (X, Y) / W with X, Y, W affine in (i, j): stepped along each row
  // instead of a matrix product and two divisions per pixel.
  TapGrid grid;
  grid.G = cv::Matx33d(toLevel, 0, 0, 0, toLevel, 0, 0, 0, 1) * frameToTarget;
  grid.x0 = (centre.x - half) * levelScale;
  grid.y0 = (centre.y - half) * levelScale;
  grid.step = levelScale;
  grid.size = size;
  grid.taps = taps;
  grid.streak = targetStreak;
  for (int k = 0; k < taps; ++k) grid.offsets[k] = taps == 1 ? 0.0 : static_cast<double>(k) / (taps - 1) - 0.5;
  // Every sample inside the target without a check per pixel: where W > 0 at the grid's corners
  // it is positive over the grid, whose image is then the convex quad of the corners' images,
  // and the taps stay within ± half the streak of it; so the corners ± half the streak inside
  // the target put every tap inside. Else each tap is checked (the template may still be valid).
  bool inside = true;
  for (const int j : {0, size - 1})
    for (const int i : {0, size - 1}) {
      const double w = grid.at(2, i, j);
      if (!(w > 0)) {
        inside = false;
        continue;
      }
      const cv::Point2d q(grid.at(0, i, j) / w, grid.at(1, i, j) / w);
      for (const double a : {-0.5, 0.5}) {
        const double x = q.x + a * targetStreak.x, y = q.y + a * targetStreak.y;
        inside = inside && x >= 0 && y >= 0 && x <= maxX && y <= maxY;
      }
    }
  // The samples first, their statistics after: summed in the loop, the sums were a chain of
  // dependent additions (one through the stack) that held up the independent samples.
  if (inside && size % 4 == 0)
    sampleInside(target, grid, patch.values.data());
  else if (!sampleChecked(target, grid, patch.values.data()))
    return;
  // Mean, then the sum of squared deviations (two passes: no cancellation).
  const int count = static_cast<int>(patch.values.size());
  float* values = patch.values.data();
  const float mean = sumOf(values, count, 0.0f) / static_cast<float>(count);
  const float squares = sumOf(values, count, mean, true);
  if (std::sqrt(squares / static_cast<float>(count)) < minStdDev) return;
  const float scale = 1.0f / std::sqrt(squares);
  for (int i = 0; i < count; ++i) values[i] = (values[i] - mean) * scale;
  patch.valid = true;
}

NccPeak searchNcc(const cv::Mat& image, const PatchTemplate& patch, cv::Point centre, int radius, bool clipToImage) {
  if (image.type() != CV_8UC1) throw std::invalid_argument("searchNcc: the image must be CV_8UC1");
  if (!patch.valid) throw std::invalid_argument("searchNcc: invalid patch template");
  if (radius < 0 || radius > kMaxSearchRadius)
    throw std::invalid_argument("searchNcc: radius must be in [0, " + std::to_string(kMaxSearchRadius) + "], got " +
                                std::to_string(radius));
  NccPeak peak;
  const int half = patch.size / 2;
  const int r = radius;
  // Shifts [x0, x1] × [y0, y1] whose window (top-left centre + shift − half) lies inside the image.
  int x0 = -r, x1 = r, y0 = -r, y1 = r;
  const int lowX = half - centre.x, highX = image.cols - patch.size + half - centre.x;
  const int lowY = half - centre.y, highY = image.rows - patch.size + half - centre.y;
  if (x0 < lowX || y0 < lowY || x1 > highX || y1 > highY) {
    if (!clipToImage) return peak;
    x0 = std::max(x0, lowX), x1 = std::min(x1, highX), y0 = std::max(y0, lowY), y1 = std::min(y1, highY);
    if (x0 > x1 || y0 > y1) return peak;
  }

  float scores[(2 * kMaxSearchRadius + 1) * (2 * kMaxSearchRadius + 1)];
  const int s = 2 * r + 1;
  const cv::Point firstShift(x0, y0), lastShift(x1, y1);
  // Every shift's ncc(): all at once where that is exact (scoreShifts), else window by window.
  if (patch.size <= kMaxExactSumSize)
    scoreShifts(image, patch, centre, firstShift, lastShift, scores + (y0 + r) * s + (x0 + r), s);
  else
    for (int dy = y0; dy <= y1; ++dy)
      for (int dx = x0; dx <= x1; ++dx)
        scores[(dy + r) * s + (dx + r)] = ncc(image, patch, centre + cv::Point(dx - half, dy - half));
  int best = -1;
  for (int dy = y0; dy <= y1; ++dy)
    for (int dx = x0; dx <= x1; ++dx) {
      const int k = (dy + r) * s + (dx + r);
      if (best < 0 || scores[k] > scores[best]) best = k;
    }
  const int bx = best % s - r, by = best / s - r;
  peak.score = scores[best];
  peak.found = true;
  peak.shift = cv::Point2f(static_cast<float>(bx), static_cast<float>(by));
  if (bx > x0 && bx < x1) peak.shift.x += parabolaPeak(scores[best - 1], scores[best], scores[best + 1]);
  if (by > y0 && by < y1) peak.shift.y += parabolaPeak(scores[best - s], scores[best], scores[best + s]);
  return peak;
}

std::vector<cv::Mat> targetPyramidOf(const cv::Mat& image) {
  std::vector<cv::Mat> levels{image};
  while (levels.back().cols >= 32 && levels.back().rows >= 32) {
    cv::Mat next;
    cv::pyrDown(levels.back(), next);
    levels.push_back(next);
  }
  return levels;
}

}  // namespace nft::tracker
