#include "tracker/ncc_patch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

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

/// Patch sides up to which a window's Σw and Σw² are integers below 2^24 (16² · 255² < 2^24): a
/// float sums them exactly in any order, so integer box sums give ncc()'s values bit for bit.
constexpr int kMaxExactSumSize = 16;

/// Four floats: the NCC numerators of four neighbouring shifts of one row. A GCC/Clang vector
/// extension, compiled to the target's SIMD (SSE2, NEON) without intrinsics; `acc += t * w` keeps
/// the scalar code's rounding (each lane is ncc()'s sum, term by term in the same order).
typedef float Float4 __attribute__((vector_size(16)));
constexpr int kShiftsPerVector = 4;

Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Scratch of scoreShifts(), kept per thread so that a search allocates nothing once warm.
struct SearchScratch {
  std::vector<float> pixels;       // the search area, as floats, rows of `stride` (zero padded)
  std::vector<int> sums, squares;  // integral images of the area (Σw, Σw²), (rows + 1) × (cols + 1)
  std::vector<float> dots;         // NCC numerators, row by row of shifts, blocks × 4 per row
};

/// ncc() of every shift in [first, last] (both inside the image, as searchNcc clips them), for a
/// patch of side <= kMaxExactSumSize, into out[(dy − first.y) · outStride + (dx − first.x)] — the
/// same values, bit for bit, at a fraction of the cost: the search area is converted to float
/// once instead of once per shift, Σw and Σw² come from integral images (exact), and the dot
/// products of 4 neighbouring shifts run side by side in one vector, 4 vectors at a time (the
/// scalar loop waits on one addition after another).
void scoreShifts(const cv::Mat& image, const PatchTemplate& patch, cv::Point centre, cv::Point first, cv::Point last,
                 float* out, int outStride) {
  thread_local SearchScratch scratch;
  const int n = patch.size, half = n / 2;
  const int width = last.x - first.x + 1, height = last.y - first.y + 1;
  const int blocks = (width + kShiftsPerVector - 1) / kShiftsPerVector;
  const int areaCols = width + n - 1, areaRows = height + n - 1;
  const int stride = blocks * kShiftsPerVector + n - 1;  // every block reads 4 + n − 1 columns
  const int integralCols = areaCols + 1;
  const cv::Point origin = centre + first - cv::Point(half, half);
  const auto at = [](int i) { return static_cast<size_t>(i); };

  scratch.pixels.resize(at(areaRows * stride));
  scratch.sums.assign(at((areaRows + 1) * integralCols), 0);
  scratch.squares.assign(at((areaRows + 1) * integralCols), 0);
  float* pixels = scratch.pixels.data();
  int* sums = scratch.sums.data();
  int* squares = scratch.squares.data();
  for (int y = 0; y < areaRows; ++y) {
    const uchar* row = image.ptr<uchar>(origin.y + y) + origin.x;
    float* dst = pixels + y * stride;
    int rowSum = 0, rowSquares = 0;
    for (int x = 0; x < areaCols; ++x) {
      const int w = row[x];
      dst[x] = static_cast<float>(w);
      rowSum += w;
      rowSquares += w * w;
      sums[(y + 1) * integralCols + x + 1] = sums[y * integralCols + x + 1] + rowSum;
      squares[(y + 1) * integralCols + x + 1] = squares[y * integralCols + x + 1] + rowSquares;
    }
    for (int x = areaCols; x < stride; ++x) dst[x] = 0;  // shifts past `last` (ignored)
  }

  // Dot products: task q is block q % blocks of shift row q / blocks; 4 tasks at a time (the last
  // group repeats its last task).
  const int tasks = height * blocks;
  scratch.dots.resize(at(tasks * kShiftsPerVector));
  const float* t = patch.values.data();
  for (int q = 0; q < tasks; q += 4) {
    const float* p[4];
    for (int k = 0; k < 4; ++k) {
      const int task = std::min(q + k, tasks - 1);
      p[k] = pixels + (task / blocks) * stride + (task % blocks) * kShiftsPerVector;
    }
    Float4 a0 = {0, 0, 0, 0}, a1 = a0, a2 = a0, a3 = a0;
    for (int j = 0; j < n; ++j) {
      const float* tr = t + j * n;
      const int o = j * stride;
      for (int i = 0; i < n; ++i) {
        const Float4 tv = {tr[i], tr[i], tr[i], tr[i]};
        a0 += tv * load4(p[0] + o + i);
        a1 += tv * load4(p[1] + o + i);
        a2 += tv * load4(p[2] + o + i);
        a3 += tv * load4(p[3] + o + i);
      }
    }
    const Float4 acc[4] = {a0, a1, a2, a3};
    for (int k = 0; k < 4 && q + k < tasks; ++k)
      std::memcpy(scratch.dots.data() + (q + k) * kShiftsPerVector, &acc[k], sizeof(Float4));
  }

  const float count = static_cast<float>(n * n);
  for (int sy = 0; sy < height; ++sy)
    for (int sx = 0; sx < width; ++sx) {
      const int top = sy * integralCols + sx, bottom = (sy + n) * integralCols + sx;
      const float sum = static_cast<float>(sums[bottom + n] - sums[bottom] - sums[top + n] + sums[top]);
      const float sumSq = static_cast<float>(squares[bottom + n] - squares[bottom] - squares[top + n] + squares[top]);
      const float dot = scratch.dots[at(sy * blocks * kShiftsPerVector + sx)];
      // As ncc(): Σ t = 0 and the template's norm is 1.
      const float variance = sumSq - sum * sum / count;
      out[sy * outStride + sx] = variance > 1e-3f ? dot / std::sqrt(variance) : 0.0f;
    }
}

}  // namespace

PatchTemplate warpPatch(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget,
                        cv::Point centre, int frameLevel, int size, float minStdDev) {
  return warpPatchBlurred(targetPyramid, frameToTarget, centre, frameLevel, size, cv::Point2d(0, 0), minStdDev);
}

PatchTemplate warpPatchBlurred(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget,
                               cv::Point centre, int frameLevel, int size, cv::Point2d streak, float minStdDev) {
  if (targetPyramid.empty() || targetPyramid[0].empty())
    throw std::invalid_argument("warpPatch: the target pyramid is empty");
  if (size < 2) throw std::invalid_argument("warpPatch: patch size must be >= 2, got " + std::to_string(size));
  PatchTemplate patch;
  patch.size = size;
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

  double sum = 0, sumSq = 0;
  const int half = size / 2;
  float* v = patch.values.data();
  // The streak in the target (level pixels), from the patch's centre: the taps of every grid
  // pixel follow it (the homography's change of scale within a patch is negligible for the blur).
  cv::Point2d targetStreak(0, 0);
  if (taps > 1)
    targetStreak = (apply(frameToTarget, centreFull.x + 0.5 * streak.x, centreFull.y + 0.5 * streak.y) -
                    apply(frameToTarget, centreFull.x - 0.5 * streak.x, centreFull.y - 0.5 * streak.y)) *
                   toLevel;
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < size; ++i, ++v) {
      const cv::Point2d q =
          apply(frameToTarget, (centre.x - half + i) * levelScale, (centre.y - half + j) * levelScale) * toLevel;
      if (taps == 1) {  // no blur: one bilinear sample
        if (!(q.x >= 0 && q.y >= 0 && q.x <= maxX && q.y <= maxY)) return patch;  // outside the target (or NaN)
        *v = bilinear(target, q.x, q.y);
        sum += *v;
        sumSq += static_cast<double>(*v) * *v;
        continue;
      }
      float value = 0;
      for (int k = 0; k < taps; ++k) {
        const double a = taps == 1 ? 0.0 : static_cast<double>(k) / (taps - 1) - 0.5;
        const double x = q.x + a * targetStreak.x, y = q.y + a * targetStreak.y;
        if (!(x >= 0 && y >= 0 && x <= maxX && y <= maxY)) return patch;  // outside the target (or NaN)
        value += bilinear(target, x, y);
      }
      *v = value / static_cast<float>(taps);
      sum += *v;
      sumSq += static_cast<double>(*v) * *v;
    }
  const double count = static_cast<double>(patch.values.size());
  const double mean = sum / count;
  const double variance = std::max(0.0, sumSq / count - mean * mean);
  if (std::sqrt(variance) < minStdDev) return patch;
  const double norm = std::sqrt(variance * count);
  for (float& value : patch.values) value = static_cast<float>((value - mean) / norm);
  patch.valid = true;
  return patch;
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

}  // namespace nft::tracker
