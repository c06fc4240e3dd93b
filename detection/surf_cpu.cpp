#include "detection/surf_cpu.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

namespace nft::detection {
namespace {

constexpr int kMaxGrid = 20;                      // n of SURF-64
constexpr int kMaxLattice = kMaxGrid + 2;         // corner lattice of the upright path
constexpr int kMaxBoxes = kMaxGrid + 1;           // box lattice of the oriented path
constexpr int kMaxLength = 64;                    // bins of SURF-64
constexpr int kCentroidLattice = 2 * kOrientationRadius + 2;  // s×s box edges of the disc
constexpr double kDegPerRad = 57.295779513082320876798;
// Below this many keypoints the thread pool costs more than it saves.
constexpr int kMinParallelKeypoints = 32;
// Keypoints per parallel stripe at least, and stripes per worker at most (load balance vs. the
// per-stripe overhead).
constexpr int kMinStripeKeypoints = 16;
constexpr int kStripesPerThread = 8;

// Integral image in 8-bit units (sum(r, c) = Σ of pixels with row < r and column < c), viewed as
// a function of continuous position: bilinear inside each pixel cell, and outside the image the
// edge cells' bilinear forms continued (exact for the replicate border, where every row/column
// beyond the edge repeats the edge pixels, so the integral grows linearly there).
// This replaces a replicate-padded copy: padding is exact only while every box corner stays
// inside the margin, and the largest allowed window (s up to max(W, H)) would need a margin of
// ~16 image sizes; continuing the edge cells is exact at any distance and needs no copy.
struct IntegralView {
  const double* data = nullptr;
  size_t stride = 0;  // doubles per row of the integral image
  int width = 0;      // pixel columns of the image (cells per row)
  int height = 0;     // pixel rows
};

// A continuous coordinate resolved against the integral image: the cell whose bilinear form
// holds there (an edge cell when the coordinate lies outside the image) and the position t in
// that cell (outside [0, 1] when extrapolating).
struct AxisSample {
  int cell;
  double t;
};

inline AxisSample axisSample(double coord, int cells) {
  // Pixel c covers [c - 0.5, c + 0.5], so integral-image index k sits at coordinate k - 0.5.
  // Clamping before truncating gives floor(u) clamped to [0, cells - 1] without a libm floor()
  // call (not inlined without SSE4.1), which the oriented path needs 4·(n+1)² = 1764 times per
  // keypoint.
  const double u = coord + 0.5;
  const int cell = static_cast<int>(std::min(std::max(u, 0.0), static_cast<double>(cells - 1)));
  return {cell, u - cell};
}

// Bilinear lookup of the integral image at (x, y): the exact area integral of the
// piecewise-constant, replicate-bordered image over (-0.5, -0.5)..(x, y) (signed).
inline double lookup(const IntegralView& in, const AxisSample& x, const AxisSample& y) {
  const double* r0 = in.data + static_cast<size_t>(y.cell) * in.stride + static_cast<size_t>(x.cell);
  const double* r1 = r0 + in.stride;
  const double a = r0[0] + x.t * (r0[1] - r0[0]);
  const double b = r1[0] + x.t * (r1[1] - r1[0]);
  return a + y.t * (b - a);
}

// lookup(x1, y) − lookup(x0, y) for two corners in the same row: the difference of the two
// points is taken on each of the two integral-image rows before the y weight is applied once.
inline double rowDifference(const IntegralView& in, const AxisSample& x0, const AxisSample& x1,
                            const AxisSample& y) {
  const double* r0 = in.data + static_cast<size_t>(y.cell) * in.stride;
  const double* r1 = r0 + in.stride;
  const size_t c0 = static_cast<size_t>(x0.cell), c1 = static_cast<size_t>(x1.cell);
  const double a = (r0[c1] + x1.t * (r0[c1 + 1] - r0[c1])) - (r0[c0] + x0.t * (r0[c0 + 1] - r0[c0]));
  const double b = (r1[c1] + x1.t * (r1[c1 + 1] - r1[c1])) - (r1[c0] + x0.t * (r1[c0 + 1] - r1[c0]));
  return a + y.t * (b - a);
}

// Integral values on a count × count lattice with spacing `step` starting at (x0, y0), row-major
// into `out`. The x and y cells/weights are resolved once per column/row, not per point.
inline void fillLattice(const IntegralView& in, double x0, double y0, double step, int count,
                        double* out) {
  AxisSample xs[kMaxLattice];
  AxisSample ys[kMaxLattice];
  for (int k = 0; k < count; ++k) {
    xs[k] = axisSample(x0 + step * k, in.width);
    ys[k] = axisSample(y0 + step * k, in.height);
  }
  for (int r = 0; r < count; ++r) {
    for (int c = 0; c < count; ++c) out[r * count + c] = lookup(in, xs[c], ys[r]);
  }
}

// Haar responses (box sums, not means: every box has area 2s², a common factor that the final
// normalisation removes) from the 3 × 3 corner values around a sample: rows top/mid/bot at
// p.y - s, p.y, p.y + s, each with columns p.x - s, p.x, p.x + s.
inline void haar(const double* top, const double* mid, const double* bot, double& dx, double& dy) {
  dx = (bot[2] - 2.0 * bot[1] + bot[0]) - (top[2] - 2.0 * top[1] + top[0]);
  dy = (bot[2] - bot[0]) - 2.0 * (mid[2] - mid[0]) + (top[2] - top[0]);
}

// Upright: every Haar box corner of every sample lies on the (n+2)×(n+2) lattice of spacing s
// centred on the keypoint (sample centres and centres ± s), so each corner is looked up once
// instead of up to four times per sample neighbourhood.
void accumulateUpright(const IntegralView& in, const Keypoint& kp, int n, int m,
                       const double* gaussian, double* acc) {
  const double s = kp.scale;
  const int g = n + 2;
  const double half = 0.5 * (g - 1);
  double lattice[kMaxLattice * kMaxLattice];
  fillLattice(in, kp.x - half * s, kp.y - half * s, s, g, lattice);
  for (int j = 0; j < n; ++j) {
    const double* top = lattice + j * g;
    const double* mid = top + g;
    const double* bot = mid + g;
    const double* w = gaussian + j * n;
    double* rowBins = acc + 4 * (j / kSamplesPerSubregion) * m;
    for (int sx = 0; sx < m; ++sx) {
      double sdx = 0.0, sdy = 0.0, adx = 0.0, ady = 0.0;
      for (int q = 0; q < kSamplesPerSubregion; ++q) {
        const int i = sx * kSamplesPerSubregion + q;
        double dx, dy;
        haar(top + i, mid + i, bot + i, dx, dy);
        const double wdx = w[i] * dx;
        const double wdy = w[i] * dy;
        sdx += wdx;
        sdy += wdy;
        adx += std::fabs(wdx);
        ady += std::fabs(wdy);
      }
      double* bin = rowBins + 4 * sx;
      bin[0] += sdx;
      bin[1] += sdy;
      bin[2] += adx;
      bin[3] += ady;
    }
  }
}

// Oriented: the Haar wavelets are formed in the keypoint's frame from the (n+1) × (n+1) box
// lattice of surf_descriptor.h, c(a, b) = (x, y) + (a − n/2)·s·u + (b − n/2)·s·v. The lattice is
// rotated, so box corners are not shared between boxes: each of the (n+1)² axis-aligned s × s
// boxes costs its own 4 corner lookups (1764 for SURF-64, against 8 per sample, 3200, when every
// sample had its own wavelet), and then every sample (i, j) combines the four boxes c(i, j),
// c(i+1, j), c(i, j+1), c(i+1, j+1) around it. Box sums instead of means, as upright: every
// response is 2s² times the definition's dx', dy', a common factor that normalisation removes.
void accumulateOriented(const IntegralView& in, const Keypoint& kp, int n, int m,
                        const double* gaussian, double* acc) {
  const double s = kp.scale;
  const double a = static_cast<double>(kp.angle) / kDegPerRad;
  const double ca = std::cos(a);
  const double sa = std::sin(a);
  const int g = n + 1;
  const double half = 0.5 * n;
  const double r = 0.5 * s;  // box half-size
  // Box sums, row-major: box[b·g + k] is the box at lattice point c(k, b) (k along u, b along v).
  double box[kMaxBoxes * kMaxBoxes];
  for (int b = 0; b < g; ++b) {
    const double tb = (b - half) * s;
    for (int k = 0; k < g; ++k) {
      const double ta = (k - half) * s;
      const double cx = kp.x + ta * ca - tb * sa;
      const double cy = kp.y + ta * sa + tb * ca;
      const AxisSample left = axisSample(cx - r, in.width);
      const AxisSample right = axisSample(cx + r, in.width);
      const AxisSample top = axisSample(cy - r, in.height);
      const AxisSample bottom = axisSample(cy + r, in.height);
      box[b * g + k] = rowDifference(in, left, right, bottom) - rowDifference(in, left, right, top);
    }
  }
  for (int j = 0; j < n; ++j) {
    const double* upper = box + j * g;  // c(·, j): the top quadrants of row j's samples
    const double* lower = upper + g;    // c(·, j + 1): the bottom quadrants
    const double* w = gaussian + j * n;
    double* rowBins = acc + 4 * (j / kSamplesPerSubregion) * m;
    for (int sx = 0; sx < m; ++sx) {
      double sdx = 0.0, sdy = 0.0, adx = 0.0, ady = 0.0;
      for (int q = 0; q < kSamplesPerSubregion; ++q) {
        const int i = sx * kSamplesPerSubregion + q;
        // Quadrants top left, top right, bottom left, bottom right in the keypoint's frame.
        const double tl = upper[i], tr = upper[i + 1], bl = lower[i], br = lower[i + 1];
        const double wdx = w[i] * ((tr + br) - (tl + bl));
        const double wdy = w[i] * ((bl + br) - (tl + tr));
        sdx += wdx;
        sdy += wdy;
        adx += std::fabs(wdx);
        ady += std::fabs(wdy);
      }
      double* bin = rowBins + 4 * sx;
      bin[0] += sdx;
      bin[1] += sdy;
      bin[2] += adx;
      bin[3] += ady;
    }
  }
}

// Intensity-centroid orientation (surf_descriptor.h): the s×s boxes centred at (x, y) + s·(i, j)
// tile a 14 × 14 corner lattice of spacing s, so 196 lookups serve all 113 boxes. Box sums
// instead of means: the common factor s² does not change atan2.
float centroidAngle(const IntegralView& in, const Keypoint& kp) {
  constexpr int r = kOrientationRadius;
  constexpr int g = kCentroidLattice;
  const double s = kp.scale;
  double lattice[g * g];
  fillLattice(in, kp.x - (r + 0.5) * s, kp.y - (r + 0.5) * s, s, g, lattice);
  double m10 = 0.0, m01 = 0.0;
  for (int j = -r; j <= r; ++j) {
    for (int i = -r; i <= r; ++i) {
      if (i * i + j * j > r * r) continue;
      const double* top = lattice + (j + r) * g + (i + r);
      const double* bot = top + g;
      const double box = bot[1] - bot[0] - top[1] + top[0];
      m10 += i * box;
      m01 += j * box;
    }
  }
  double degrees = std::atan2(m01, m10) * kDegPerRad;
  if (degrees < 0.0) degrees += 360.0;
  const float angle = static_cast<float>(degrees);
  // Rounding to float can turn 359.99999999 into 360, outside [0, 360); that is angle 0.
  return angle >= 360.0f ? 0.0f : angle;
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
  gaussian_.resize(static_cast<size_t>(n * n));
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double ti = i - half, tj = j - half;
      gaussian_[static_cast<size_t>(j * n + i)] = std::exp(-(ti * ti + tj * tj) / (2.0 * sigma * sigma));
    }
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

  const int count = static_cast<int>(keypoints.size());
  cv::Mat descriptors(count, length_, CV_32F);
  if (count == 0) return descriptors;

  cv::Mat gray = image;
  if (image.type() == CV_8UC3) cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
  cv::Mat sums;
  cv::integral(gray, sums, CV_64F);
  const IntegralView view{sums.ptr<double>(), sums.step1(), gray.cols, gray.rows};

  const int n = gridSize_;
  const int m = subregions_;
  const int length = length_;
  const bool oriented = options_.orientation == Orientation::Oriented;
  const double* gaussian = gaussian_.data();
  const double imageW = gray.cols, imageH = gray.rows;

  auto describeRange = [&](const cv::Range& range) {
    for (int k = range.start; k < range.end; ++k) {
      Keypoint& kp = keypoints[static_cast<size_t>(k)];
      double acc[kMaxLength] = {};
      if (oriented) {
        if (kp.angle < 0.0f) kp.angle = centroidAngle(view, kp);
        accumulateOriented(view, kp, n, m, gaussian, acc);
      } else {
        accumulateUpright(view, kp, n, m, gaussian, acc);
      }
      // A uniform patch has exactly zero responses in exact arithmetic, but the lookups cancel
      // large integral values; treat norms at the level of that rounding noise as zero. The
      // bound: integral magnitudes up to 255·(W + reach)·(H + reach), a few ulps per lookup,
      // 8 lookups per response upright and 16 oriented (4 box sums of 4 lookups, each box
      // shared by up to 4 samples), at most 400 weighted samples (weights <= 1) — 1e4 ulps
      // covers it with margin (about 1e-4 for a 512×384 image; on uniform images up to 700×700
      // with s up to 450 both paths stay below 1% of it), while a one-gray-level step under a
      // sample at s >= 1 already gives a raw response of 2s² >= 2.
      const double reach = std::sqrt(2.0) * (0.5 * n + 1.0) * kp.scale + 2.0;
      const double noise = 1e4 * std::numeric_limits<double>::epsilon() * 255.0 * (imageW + reach) *
                           (imageH + reach);
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
