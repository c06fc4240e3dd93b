// The dense alignments' shared kernels (see dense_alignment.h).
#include "tracker/dense_alignment.h"

#include <algorithm>
#include <cmath>

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/imgproc.hpp>

namespace nft::tracker::alignment {

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

// A histogram of 64 bins over [min, max] finds the bin holding the median's rank; nth_element then
// runs on that bin's values only.
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

void RobustSamples::reset(size_t n) {
  templateGrey.resize(n);
  frameGrey.assign(n, 0.f);
  valid.assign(n, 0);
  residual.assign(n, 0.f);
  weight.assign(n, 1.f);
}

bool RobustSamples::fitGainAndWeights(bool firstIteration, double& gain, double& offset) {
  const size_t n = templateGrey.size();
  for (int pass = 0; pass < 2; ++pass) {
    double a = 0, b = 0;
    if (firstIteration && pass == 0) {
      std::vector<float>& frameValues = scratch;
      std::vector<float>& templateValues = moreScratch;
      frameValues.clear();
      templateValues.clear();
      for (size_t i = 0; i < n; ++i)
        if (valid[i]) frameValues.push_back(frameGrey[i]), templateValues.push_back(templateGrey[i]);
      if (frameValues.empty()) return false;
      const float mf = medianOf(frameValues), mt = medianOf(templateValues);
      for (float& v : frameValues) v = std::abs(v - mf);
      for (float& v : templateValues) v = std::abs(v - mt);
      const double sf = medianOf(frameValues), st = medianOf(templateValues);
      a = st > 0 ? sf / st : 0;
      b = mf - a * mt;
    } else {
      double sw = 0, st = 0, si = 0, stt = 0, sti = 0;
      for (size_t i = 0; i < n; ++i)
        if (valid[i]) {
          const double wi = weight[i], t = templateGrey[i], g = frameGrey[i];
          sw += wi, st += wi * t, si += wi * g, stt += wi * t * t, sti += wi * t * g;
        }
      if (sw <= 0) return false;
      const double mt = st / sw, mi = si / sw, vt = stt / sw - mt * mt, cti = sti / sw - mt * mi;
      a = vt > 0 ? cti / vt : 0;
      b = mi - a * mt;
    }
    if (!(a > 0.05)) return false;  // the frame there does not look like the target
    gain = a;
    offset = b;
    std::vector<float>& magnitudes = scratch;
    magnitudes.clear();
    const float inverseGain = static_cast<float>(1.0 / a), off = static_cast<float>(b);
    for (size_t i = 0; i < n; ++i)
      if (valid[i]) {
        residual[i] = (frameGrey[i] - off) * inverseGain - templateGrey[i];
        magnitudes.push_back(std::abs(residual[i]));
      }
    if (magnitudes.empty()) return false;
    const double c = kTukey * std::max(kMinScaleGrey, 1.4826 * medianOf(magnitudes));
    const float inverseScale = static_cast<float>(1.0 / c);
    for (size_t i = 0; i < n; ++i) {
      const float u = valid[i] ? residual[i] * inverseScale : 1.0f;
      weight[i] = std::abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0.0f;
    }
  }
  return true;
}

double WeightedCorrelation::value() const {
  if (!(sw_ > 0)) return 0;
  const double vt = stt_ - st_ * st_ / sw_, vg = sgg_ - sg_ * sg_ / sw_;
  return vt > 0 && vg > 0 ? (stg_ - st_ * sg_ / sw_) / std::sqrt(vt * vg) : 0;
}

std::vector<cv::Point> strongestGradientPerCell(const cv::Mat& image, int cells, double minGradient,
                                                cv::Mat& gradientX, cv::Mat& gradientY) {
  cv::Sobel(image, gradientX, CV_32F, 1, 0, 3, 1.0 / 8);
  cv::Sobel(image, gradientY, CV_32F, 0, 1, 3, 1.0 / 8);
  const int cell = std::max(2, static_cast<int>(std::sqrt(static_cast<double>(image.cols) * image.rows / cells)));
  const double min2 = minGradient * minGradient;
  std::vector<cv::Point> points;
  for (int y0 = 1; y0 < image.rows - 1; y0 += cell)
    for (int x0 = 1; x0 < image.cols - 1; x0 += cell) {
      int bx = -1, by = -1;
      double best = min2;
      for (int y = y0; y < std::min(y0 + cell, image.rows - 1); ++y)
        for (int x = x0; x < std::min(x0 + cell, image.cols - 1); ++x) {
          const double gx = gradientX.at<float>(y, x), gy = gradientY.at<float>(y, x);
          const double g2 = gx * gx + gy * gy;
          if (g2 >= best) best = g2, bx = x, by = y;
        }
      if (bx >= 0) points.emplace_back(bx, by);
    }
  return points;
}

}  // namespace nft::tracker::alignment
