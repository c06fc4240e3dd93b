#include "detection/surf_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/imgproc.hpp>

namespace nft::detection {
namespace {

// OpenCV's universal intrinsics at 128 bits: SSE2 on x86-64, NEON on arm64, WebAssembly SIMD
// where the build enables it, and OpenCV's portable C++ emulation elsewhere.
using cv::v_float32x4;
using cv::v_int32x4;
using cv::v_uint32x4;
constexpr int kLanes = 4;

constexpr int kMaxGrid = 20;                 // n of SURF-64
constexpr int kMaxSide = kMaxGrid + 1;       // box lattice side g = n + 1
constexpr int kMaxLength = 64;               // bins of SURF-64
constexpr int kMaxPaddedGrid = 20;           // n rounded up to kLanes (20 and 16)
constexpr double kDegPerRad = 57.295779513082320876798;
// Below this many keypoints the thread pool costs more than it saves.
constexpr int kMinParallelKeypoints = 32;
// Keypoints per parallel stripe at least, and stripes per worker at most (load balance vs. the
// per-stripe overhead).
constexpr int kMinStripeKeypoints = 16;
constexpr int kStripesPerThread = 8;
// Rows of the bands in which describe() visits the keypoints (see there).
constexpr int kBandRows = 32;
// Box sums are formed as differences of 32-bit integral values (below): exact while every box's
// true sum, at most 255 · (s + 2)² in 8-bit units, is under 2³¹. That holds for any box in an
// image of up to kMaxExactPixels pixels (255 · W · H < 2³¹; 4K UHD, 8.29 million, is inside) and
// for boxes of s <= kMaxWideScale in any image (a box spans at most (s + 2)² pixels of the sums).
constexpr double kMaxExactPixels = 2147483647.0 / 255.0;  // 8,421,504
constexpr float kMaxWideScale = 2899.0f;                  // 255 · 2901² < 2³¹ <= 255 · 2902²

constexpr int roundUp(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }
constexpr int kMaxLatticeBoxes = roundUp(kMaxSide * kMaxSide, kLanes);  // 444
// The orientation disc: i² + j² <= r², r = kOrientationRadius (113 points for r = 6).
constexpr int discPoints() {
  int count = 0;
  for (int j = -kOrientationRadius; j <= kOrientationRadius; ++j)
    for (int i = -kOrientationRadius; i <= kOrientationRadius; ++i)
      count += i * i + j * j <= kOrientationRadius * kOrientationRadius ? 1 : 0;
  return count;
}
constexpr int kDiscBoxes = roundUp(discPoints(), kLanes);  // 116: padded with (0, 0), weight 0 in m10, m01

// Integral image in 8-bit units, (H + 1) × (W + 1) 32-bit values: sum(r, c) = Σ of pixels with
// row < r and column < c, modulo 2³² (read as unsigned). Viewed as a function of continuous
// position it is bilinear inside each pixel cell, and outside the image the edge cells' bilinear
// forms continue (exact for the replicate border, where every row/column beyond the edge repeats
// the edge pixels, so the integral grows linearly there): exact at any distance, no padded copy.
struct IntegralView {
  const unsigned* data = nullptr;
  size_t stride = 0;  // values per row of the integral image
  int width = 0;      // pixel columns of the image (cells per row)
  int height = 0;     // pixel rows
};

// The 32-bit integral of `gray`: cv::integral where no sum can reach 2³¹ (it accumulates in
// signed int), else the same sums wrapping modulo 2³² (unsigned arithmetic, well defined); box
// sums taken as differences of it are exact either way while each is under 2³¹.
cv::Mat integral32(const cv::Mat& gray) {
  cv::Mat sums;
  if (static_cast<double>(gray.cols) * gray.rows <= kMaxExactPixels) {
    cv::integral(gray, sums, CV_32S);
    return sums;
  }
  sums.create(gray.rows + 1, gray.cols + 1, CV_32S);
  unsigned* out = reinterpret_cast<unsigned*>(sums.data);
  const size_t stride = sums.step1();
  std::fill(out, out + stride, 0u);
  for (int r = 0; r < gray.rows; ++r) {
    const uchar* in = gray.ptr<uchar>(r);
    const unsigned* above = out + static_cast<size_t>(r) * stride;
    unsigned* row = out + static_cast<size_t>(r + 1) * stride;
    unsigned run = 0;
    row[0] = 0;
    for (int c = 0; c < gray.cols; ++c) {
      run += in[c];
      row[c + 1] = above[c + 1] + run;
    }
  }
  return sums;
}

// Where a keypoint sits on the integral image: every box edge coordinate near it is
// u = x + 0.5 + offset in integral-index units (index k sits at coordinate k − 0.5), written as
// the integer part `ix` plus the float remainder fx + offset, so that the small offsets keep
// float's precision whatever the image size (a float 1000.3 has 6e-5 px steps; a float 30.3 4e-6).
struct Anchor {
  int ix = 0, iy = 0;
  float fx = 0, fy = 0;  // in [0, 1)
};

Anchor anchorOf(const Keypoint& kp) {
  const double ux = static_cast<double>(kp.x) + 0.5, uy = static_cast<double>(kp.y) + 0.5;
  Anchor a;
  a.ix = static_cast<int>(std::floor(ux));
  a.iy = static_cast<int>(std::floor(uy));
  a.fx = static_cast<float>(ux - a.ix);
  a.fy = static_cast<float>(uy - a.iy);
  return a;
}

// The exact sums of one row difference over four boxes' columns: `v[q]` holds box q's
// (V[cl], V[cl + 1], V[cr], V[cr + 1]), V a difference of two integral rows. Returns, per box,
// the bilinear form (1 − tr)·V[cr] + tr·V[cr + 1] − (1 − tl)·V[cl] − tl·V[cl + 1] written as
// (V[cr] − V[cl]) + tr·(V[cr + 1] − V[cr]) − tl·(V[cl + 1] − V[cl]): each difference is an
// integer box or strip sum of at most 255 · (s + 2)² (exact in 32 bits, wrapping included), so
// the float arithmetic starts from small exact values instead of cancelling large integral ones.
inline v_float32x4 columnForm(const v_uint32x4 (&v)[kLanes], const v_float32x4& tl, const v_float32x4& tr) {
  v_uint32x4 l0, l1, r0, r1;
  // A copy of the first row: OpenCV 4.6's C++ emulation (the WebAssembly build's) takes it by
  // non-const reference.
  v_uint32x4 first = v[0];
  cv::v_transpose4x4(first, v[1], v[2], v[3], l0, l1, r0, r1);
  const v_float32x4 a = cv::v_cvt_f32(cv::v_reinterpret_as_s32(r0 - l0));
  const v_float32x4 b = cv::v_cvt_f32(cv::v_reinterpret_as_s32(r1 - r0));
  const v_float32x4 c = cv::v_cvt_f32(cv::v_reinterpret_as_s32(l1 - l0));
  return a + tr * b - tl * c;
}

// Sums (8-bit units) of `count` (a multiple of kLanes) axis-aligned boxes of side 2r on the
// piecewise-constant, replicate-bordered image, box i centred at the anchor's point plus
// (ox[i], oy[i]), into out[i]. The exact area integral over [xl, xr] × [yt, yb] of the bilinear
// integral F is F(xr, yb) − F(xl, yb) − F(xr, yt) + F(xl, yt); with rows ct, ct + 1 (top edge,
// weight tt) and cb, cb + 1 (bottom, tb) it is H(Vb) + tb·H(Vb' − Vb)... in row differences:
//   box = H(I[cb] − I[ct]) + tb·H(I[cb + 1] − I[cb]) − tt·H(I[ct + 1] − I[ct]),
// H the column form above. Four boxes at a time: 8 loads of two adjacent 32-bit values per box.
void boxSums(const IntegralView& in, const Anchor& anchor, const float* ox, const float* oy, int count, float r,
             float* out) {
  const v_float32x4 zero = cv::v_setzero_f32();
  const v_float32x4 lastX = cv::v_setall_f32(static_cast<float>(in.width - 1));
  const v_float32x4 lastY = cv::v_setall_f32(static_cast<float>(in.height - 1));
  const v_float32x4 baseX = cv::v_setall_f32(static_cast<float>(anchor.ix));
  const v_float32x4 baseY = cv::v_setall_f32(static_cast<float>(anchor.iy));
  const v_int32x4 baseXi = cv::v_setall_s32(anchor.ix), baseYi = cv::v_setall_s32(anchor.iy);
  const v_float32x4 left = cv::v_setall_f32(anchor.fx - r), right = cv::v_setall_f32(anchor.fx + r);
  const v_float32x4 top = cv::v_setall_f32(anchor.fy - r), bottom = cv::v_setall_f32(anchor.fy + r);
  alignas(16) int cl[kLanes], cr[kLanes], ct[kLanes], cb[kLanes];
  for (int i = 0; i < count; i += kLanes) {
    const v_float32x4 x = cv::v_load(ox + i), y = cv::v_load(oy + i);
    // Edge positions relative to the anchor's integer index; the cell holding each (clamped to
    // the image: beyond it the edge cell's form continues) and the position t in that cell,
    // t = u − cell = (ix − cell) + q, outside [0, 1] when extrapolating.
    const v_float32x4 qL = x + left, qR = x + right, qT = y + top, qB = y + bottom;
    const v_int32x4 cL = cv::v_trunc(cv::v_min(cv::v_max(qL + baseX, zero), lastX));
    const v_int32x4 cR = cv::v_trunc(cv::v_min(cv::v_max(qR + baseX, zero), lastX));
    const v_int32x4 cT = cv::v_trunc(cv::v_min(cv::v_max(qT + baseY, zero), lastY));
    const v_int32x4 cB = cv::v_trunc(cv::v_min(cv::v_max(qB + baseY, zero), lastY));
    const v_float32x4 tL = cv::v_cvt_f32(baseXi - cL) + qL, tR = cv::v_cvt_f32(baseXi - cR) + qR;
    const v_float32x4 tT = cv::v_cvt_f32(baseYi - cT) + qT, tB = cv::v_cvt_f32(baseYi - cB) + qB;
    cv::v_store_aligned(cl, cL);
    cv::v_store_aligned(cr, cR);
    cv::v_store_aligned(ct, cT);
    cv::v_store_aligned(cb, cB);
    v_uint32x4 span[kLanes], below[kLanes], above[kLanes];
    for (int q = 0; q < kLanes; ++q) {
      const unsigned* t0 = in.data + static_cast<size_t>(ct[q]) * in.stride;
      const unsigned* b0 = in.data + static_cast<size_t>(cb[q]) * in.stride;
      const v_uint32x4 rowT = cv::v_load_halves(t0 + cl[q], t0 + cr[q]);
      const v_uint32x4 rowT1 = cv::v_load_halves(t0 + in.stride + cl[q], t0 + in.stride + cr[q]);
      const v_uint32x4 rowB = cv::v_load_halves(b0 + cl[q], b0 + cr[q]);
      const v_uint32x4 rowB1 = cv::v_load_halves(b0 + in.stride + cl[q], b0 + in.stride + cr[q]);
      span[q] = rowB - rowT;
      below[q] = rowB1 - rowB;
      above[q] = rowT1 - rowT;
    }
    const v_float32x4 sum = columnForm(span, tL, tR) + tB * columnForm(below, tL, tR) - tT * columnForm(above, tL, tR);
    cv::v_store(out + i, sum);
  }
}

// The box lattice c(a, b) = (x, y) + (a − n/2)·s·u + (b − n/2)·s·v (surf_descriptor.h), row-major
// box[b·g + a], g = n + 1, padded to kMaxLatticeBoxes: box sums instead of means (every box has
// area s², a common factor that the final normalisation removes). Upright is u = (1, 0).
// `ka`, `kb`: a − n/2 and b − n/2 of each flat index (SurfCpu's tables).
void latticeBoxes(const IntegralView& in, const Keypoint& kp, double angleRad, int boxes, const float* ka,
                  const float* kb, float* box) {
  const double s = kp.scale;
  const v_float32x4 uxs = cv::v_setall_f32(static_cast<float>(std::cos(angleRad) * s));
  const v_float32x4 uys = cv::v_setall_f32(static_cast<float>(std::sin(angleRad) * s));
  alignas(16) float ox[kMaxLatticeBoxes], oy[kMaxLatticeBoxes];
  for (int i = 0; i < boxes; i += kLanes) {
    const v_float32x4 a = cv::v_load(ka + i), b = cv::v_load(kb + i);
    cv::v_store_aligned(ox + i, a * uxs - b * uys);  // a·s·u + b·s·v, v = (−sin, cos)
    cv::v_store_aligned(oy + i, a * uys + b * uxs);
  }
  boxSums(in, anchorOf(kp), ox, oy, boxes, static_cast<float>(0.5 * s), box);
}

// Intensity-centroid orientation (surf_descriptor.h): the s×s boxes centred at (x, y) + s·(i, j)
// over the disc. Box sums instead of means: the common factor s² does not change atan2.
// `di`, `dj`: the disc's points (SurfCpu's tables, padded with (0, 0)).
float centroidAngle(const IntegralView& in, const Keypoint& kp, const float* di, const float* dj) {
  const float s = kp.scale;
  alignas(16) float ox[kDiscBoxes], oy[kDiscBoxes], box[kDiscBoxes];
  const v_float32x4 sv = cv::v_setall_f32(s);
  for (int i = 0; i < kDiscBoxes; i += kLanes) {
    cv::v_store_aligned(ox + i, cv::v_load(di + i) * sv);
    cv::v_store_aligned(oy + i, cv::v_load(dj + i) * sv);
  }
  boxSums(in, anchorOf(kp), ox, oy, kDiscBoxes, 0.5f * s, box);
  double m10 = 0.0, m01 = 0.0;
  for (int k = 0; k < kDiscBoxes; ++k) {
    m10 += static_cast<double>(di[k]) * box[k];
    m01 += static_cast<double>(dj[k]) * box[k];
  }
  double degrees = std::atan2(m01, m10) * kDegPerRad;
  if (degrees < 0.0) degrees += 360.0;
  const float angle = static_cast<float>(degrees);
  // Rounding to float can turn 359.99999999 into 360, outside [0, 360); that is angle 0.
  return angle >= 360.0f ? 0.0f : angle;
}

// Every sample (i, j) combines the four boxes c(i, j), c(i+1, j), c(i, j+1), c(i+1, j+1) around
// it (top left, top right, bottom left, bottom right in the keypoint's frame):
// dx' = (tr + br) − (tl + bl), dy' = (bl + br) − (tl + tr) (sums: 2s² times the definition's
// means), weighted, and summed per 5 × 5 subregion into acc (4 bins per subregion). kLanes
// samples of a row at a time; the rows of a band of subregions accumulate per sample column and
// are summed per subregion at the band's end. `gaussian`: n rows of `paddedN` weights, zero
// beyond n (the padded samples read boxes of the next row or the padding and weigh nothing).
void accumulate(const float* box, int n, int m, const float* gaussian, int paddedN, double* acc) {
  const int g = n + 1;
  for (int band = 0; band < m; ++band) {
    v_float32x4 sdx[kMaxPaddedGrid / kLanes], sdy[kMaxPaddedGrid / kLanes], adx[kMaxPaddedGrid / kLanes],
        ady[kMaxPaddedGrid / kLanes];
    for (int k = 0; k < paddedN / kLanes; ++k) sdx[k] = sdy[k] = adx[k] = ady[k] = cv::v_setzero_f32();
    for (int j = band * kSamplesPerSubregion; j < (band + 1) * kSamplesPerSubregion; ++j) {
      const float* upper = box + j * g;
      const float* lower = upper + g;
      const float* w = gaussian + j * paddedN;
      for (int k = 0; k < paddedN / kLanes; ++k) {
        const int i = k * kLanes;
        const v_float32x4 tl = cv::v_load(upper + i), tr = cv::v_load(upper + i + 1);
        const v_float32x4 bl = cv::v_load(lower + i), br = cv::v_load(lower + i + 1);
        const v_float32x4 weight = cv::v_load(w + i);
        const v_float32x4 wdx = weight * ((tr + br) - (tl + bl));
        const v_float32x4 wdy = weight * ((bl + br) - (tl + tr));
        sdx[k] += wdx;
        sdy[k] += wdy;
        adx[k] += cv::v_abs(wdx);
        ady[k] += cv::v_abs(wdy);
      }
    }
    alignas(16) float column[4][kMaxPaddedGrid];
    for (int k = 0; k < paddedN / kLanes; ++k) {
      cv::v_store_aligned(column[0] + k * kLanes, sdx[k]);
      cv::v_store_aligned(column[1] + k * kLanes, sdy[k]);
      cv::v_store_aligned(column[2] + k * kLanes, adx[k]);
      cv::v_store_aligned(column[3] + k * kLanes, ady[k]);
    }
    double* bins = acc + 4 * band * m;
    for (int sx = 0; sx < m; ++sx)
      for (int q = 0; q < kSamplesPerSubregion; ++q)
        for (int k = 0; k < 4; ++k) bins[4 * sx + k] += column[k][sx * kSamplesPerSubregion + q];
  }
}

// Σ |values[i]| over `count` floats, in kLanes partial sums (one serial chain of double
// additions over the 441 boxes cost a tenth of a keypoint's time).
double absoluteSum(const float* values, int count) {
  v_float32x4 sum = cv::v_setzero_f32();
  int i = 0;
  for (; i + kLanes <= count; i += kLanes) sum += cv::v_abs(cv::v_load(values + i));
  double total = cv::v_reduce_sum(sum);
  for (; i < count; ++i) total += std::fabs(values[i]);
  return total;
}

}  // namespace

SurfCpu::SurfCpu(const SurfCpuOptions& options)
    : options_(options),
      gridSize_(gridSize(options.type)),
      subregions_(subregionsPerSide(options.type)),
      length_(descriptorLength(options.type)) {
  if (options.threads < 0) {
    throw std::invalid_argument("SurfCpuOptions::threads = " + std::to_string(options.threads) +
                                " (expected 0 for OpenCV's thread pool, 1 for serial, or k > 1)");
  }
  const int n = gridSize_;
  const double sigma = gaussianSigma(options.type);
  const double half = 0.5 * (n - 1);
  paddedGrid_ = roundUp(n, kLanes);
  gaussian_.assign(static_cast<size_t>(n * paddedGrid_), 0.0f);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double ti = i - half, tj = j - half;
      gaussian_[static_cast<size_t>(j * paddedGrid_ + i)] =
          static_cast<float>(std::exp(-(ti * ti + tj * tj) / (2.0 * sigma * sigma)));
    }
  }
  // The box lattice's (a − n/2, b − n/2), row-major, padded with the last box (any in-range box:
  // its sum is not read).
  const int g = n + 1;
  latticeBoxes_ = roundUp(g * g, kLanes);
  latticeA_.assign(static_cast<size_t>(latticeBoxes_), 0.0f);
  latticeB_.assign(static_cast<size_t>(latticeBoxes_), 0.0f);
  for (int k = 0; k < latticeBoxes_; ++k) {
    const int flat = std::min(k, g * g - 1);
    latticeA_[static_cast<size_t>(k)] = static_cast<float>(flat % g - 0.5 * n);
    latticeB_[static_cast<size_t>(k)] = static_cast<float>(flat / g - 0.5 * n);
  }
  discI_.assign(static_cast<size_t>(kDiscBoxes), 0.0f);
  discJ_.assign(static_cast<size_t>(kDiscBoxes), 0.0f);
  size_t next = 0;
  for (int j = -kOrientationRadius; j <= kOrientationRadius; ++j)
    for (int i = -kOrientationRadius; i <= kOrientationRadius; ++i)
      if (i * i + j * j <= kOrientationRadius * kOrientationRadius) {
        discI_[next] = static_cast<float>(i);
        discJ_[next] = static_cast<float>(j);
        ++next;
      }
}

const SurfCpuOptions& SurfCpu::options() const { return options_; }

cv::Mat SurfCpu::describe(const cv::Mat& image, std::vector<Keypoint>& keypoints) const {
  if (image.empty()) {
    throw std::invalid_argument("SurfCpu::describe: empty image (" + std::to_string(image.cols) + "x" +
                                std::to_string(image.rows) + ")");
  }
  if (image.type() != CV_8UC1 && image.type() != CV_8UC3) {
    throw std::invalid_argument("SurfCpu::describe: image type " + cv::typeToString(image.type()) +
                                " (expected CV_8UC1 gray or CV_8UC3 BGR)");
  }
  validateKeypoints(keypoints, image.size());
  const bool wide = static_cast<double>(image.cols) * image.rows > kMaxExactPixels;
  for (size_t i = 0; wide && i < keypoints.size(); ++i) {
    if (keypoints[i].scale > kMaxWideScale) {
      std::ostringstream msg;
      msg << "keypoint " << i << ": scale = " << keypoints[i].scale << " (expected at most " << kMaxWideScale
          << " in an image of more than " << static_cast<long>(kMaxExactPixels)
          << " pixels, where a larger box's sum would not fit the 32-bit integral image)";
      throw std::invalid_argument(msg.str());
    }
  }

  const int count = static_cast<int>(keypoints.size());
  cv::Mat descriptors(count, length_, CV_32F);
  if (count == 0) return descriptors;

  cv::Mat gray = image;
  if (image.type() == CV_8UC3) cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
  const cv::Mat sums = integral32(gray);
  const IntegralView view{reinterpret_cast<const unsigned*>(sums.data), sums.step1(), gray.cols, gray.rows};

  const int n = gridSize_;
  const int m = subregions_;
  const int length = length_;
  const bool oriented = options_.orientation == Orientation::Oriented;
  const double imageW = gray.cols, imageH = gray.rows;

  // Keypoints come strongest first, scattered over the frame; described in bands of kBandRows
  // rows, left to right, neighbours share most of their windows' integral-image lines (same
  // descriptors, rows written in the given order: 6-12 % faster on tmt_bookI's frames).
  std::vector<int> order(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) order[static_cast<size_t>(k)] = k;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Keypoint& p = keypoints[static_cast<size_t>(a)];
    const Keypoint& q = keypoints[static_cast<size_t>(b)];
    const int bp = static_cast<int>(p.y) / kBandRows, bq = static_cast<int>(q.y) / kBandRows;
    if (bp != bq) return bp < bq;
    if (p.x != q.x) return p.x < q.x;
    return a < b;
  });
  auto describeRange = [&](const cv::Range& range) {
    alignas(16) float box[kMaxLatticeBoxes + kLanes];  // + a row's padded samples' reads
    for (int j = range.start; j < range.end; ++j) {
      const int k = order[static_cast<size_t>(j)];
      Keypoint& kp = keypoints[static_cast<size_t>(k)];
      double angle = 0.0;
      if (oriented) {
        if (kp.angle < 0.0f) kp.angle = centroidAngle(view, kp, discI_.data(), discJ_.data());
        angle = static_cast<double>(kp.angle) / kDegPerRad;
      }
      latticeBoxes(view, kp, angle, latticeBoxes_, latticeA_.data(), latticeB_.data(), box);
      std::fill(box + latticeBoxes_, box + latticeBoxes_ + kLanes, 0.0f);
      double acc[kMaxLength] = {};
      accumulate(box, n, m, gaussian_.data(), paddedGrid_, acc);
      // A uniform patch has exactly zero responses in exact arithmetic; in float the box sums
      // carry rounding of a few ulps of their magnitude (the integer parts are exact, the
      // fractional weights are not). Treat norms at the level of that rounding as zero: each
      // response combines 4 boxes, a bin sums at most 25 weighted responses (weights <= 1), the
      // norm 64 bins — at most 800 boxes' errors, each about 8 ulps of its sum, against
      // Σ|box| over the (n+1)² lattice (441 boxes); a box beyond the image edge extrapolates by
      // t up to the window's reach outside it, which scales its rounding likewise.
      const double magnitude = absoluteSum(box, (n + 1) * (n + 1));
      const double reach = std::sqrt(2.0) * (0.5 * n + 1.0) * kp.scale + 2.0;
      const double outside = std::max({0.0, reach - kp.x, reach - kp.y, kp.x + reach - (imageW - 1.0),
                                       kp.y + reach - (imageH - 1.0)});
      const double noise = 32.0 * std::numeric_limits<float>::epsilon() * (1.0 + outside) * magnitude;
      double norm2 = 0.0;
      for (int b = 0; b < length; ++b) norm2 += acc[b] * acc[b];
      float* row = descriptors.ptr<float>(k);
      if (norm2 <= noise * noise) {
        std::fill(row, row + length, 0.0f);
      } else {
        const double inv = 1.0 / std::sqrt(norm2);
        for (int b = 0; b < length; ++b) row[b] = static_cast<float>(acc[b] * inv);
      }
    }
  };

  const int workers = cv::getNumThreads();
  if (options_.threads == 1 || workers <= 1 || count < kMinParallelKeypoints) {
    describeRange(cv::Range(0, count));
  } else {
    int stripes = std::min(count / kMinStripeKeypoints, workers * kStripesPerThread);
    if (options_.threads > 1) stripes = std::min(stripes, options_.threads);
    cv::parallel_for_(cv::Range(0, count), describeRange, std::max(stripes, 1));
  }
  return descriptors;
}

}  // namespace nft::detection
