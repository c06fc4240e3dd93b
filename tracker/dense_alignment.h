#pragma once
// The pieces both final refinements share (tracker/homography_refiner.h for a flat target's
// homography, tracker/curved_refiner.h for a curved label's pose): bilinear sampling of the grey
// frame with its gradient, the robust photometric fit of the samples (gain and offset between
// the target image and the frame, Tukey's biweight on the residuals, the scale from their median
// absolute deviation: an iteratively reweighted least squares that occluders and glare do not
// pull) and the weighted correlation that decides whether a fit is accepted.
#include <cstddef>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::tracker::alignment {

/// Iterations stop once no check point of the target moves more than this in one step (frame
/// pixels, at the level matching the frame's; twice that a level up).
constexpr double kConvergedPx = 0.05;
/// A start the alignment at the frame's own level brings to convergence within kQuickIterations,
/// moving the target in view at most kQuickShiftPx, needs no coarser level (the tracking lane's
/// estimate, about a pixel off, nearly always): the coarse levels cost the final refinement 5×
/// its time on tmt_bookI otherwise.
constexpr int kQuickIterations = 4;
constexpr double kQuickShiftPx = 2.0;
/// Template levels above the frame's that the alignment starts from when the quick one does not
/// converge (coarse to fine: a start 10 px off is 2.5 level pixels there).
constexpr int kCoarseLevels = 2;
/// Streaks shorter than this (template pixels) are not modelled: they blur less than the
/// bilinear sampling does.
constexpr double kMinStreakPx = 1.5;
/// A template pyramid level needs this many pixels on its shorter side.
constexpr int kMinLevelSide = 24;
/// Cells per side of the grid over the target whose corners in view measure an alignment's moves.
constexpr int kCheckGrid = 8;
/// Tukey's biweight constant (95 % efficiency under Gaussian noise), in robust standard deviations.
constexpr double kTukey = 4.685;
/// The robust scale never goes under this (grey levels): an exact fit must not turn every
/// sample's noise into an outlier.
constexpr double kMinScaleGrey = 1.0;

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

/// Bilinear value of a CV_32F image at (u, v), clamped to its border.
float floatAt(const cv::Mat& image, double u, double v);

/// Σ a_i · b_i over n floats, in OpenCV's universal intrinsics (float lanes, two accumulators).
float dot(const float* a, const float* b, size_t n);

/// The normal equations of P weighted steepest-descent rows and their weighted residuals over n
/// samples, stored row after row (row r of sample i at rows[r · n + i], the residual at
/// rows[P · n + i]): A = Σ jᵀ·j (P × P), g = Σ jᵀ·r, by dot() over each pair of rows.
template <int P>
void normalEquations(const float* rows, size_t n, cv::Matx<double, P, P>& A, cv::Vec<double, P>& g) {
  for (int r = 0; r < P; ++r) {
    g[r] = dot(rows + static_cast<size_t>(r) * n, rows + static_cast<size_t>(P) * n, n);
    for (int k = r; k < P; ++k)
      A(r, k) = A(k, r) = dot(rows + static_cast<size_t>(r) * n, rows + static_cast<size_t>(k) * n, n);
  }
}

/// The median (the element of rank size / 2) of non-empty `v`, which it reorders: exactly
/// std::nth_element's, in about a third of its time on the refiners' 512 values.
float medianOf(std::vector<float>& v);

/// One alignment's per-sample values, n of each, kept by the caller (per thread) from call to call
/// so that a refinement allocates nothing once warm.
struct RobustSamples {
  std::vector<float> templateGrey;  ///< the target image's value of each sample (its template)
  std::vector<float> frameGrey;     ///< the frame's value where the sample is seen now
  std::vector<unsigned char> valid; ///< 1 where the sample is seen (in the frame, facing it)
  std::vector<float> residual;      ///< (frame − offset) / gain − template, where valid
  std::vector<float> weight;        ///< Tukey's weight, 1 − (r/c)² squared, 0 beyond c
  std::vector<float> scratch, moreScratch;  ///< for the medians

  /// Sizes every buffer for n samples: weights 1, nothing valid, values 0; templateGrey is the
  /// caller's to fill.
  void reset(size_t n);

  /// The gain and offset of the frame against the template (frame ≈ gain · template + offset) and
  /// the residuals' Tukey weights, twice: the gain from the current weights (`firstIteration`:
  /// from medians and median absolute deviations instead, which an occluder over part of the
  /// target barely moves), the weights from its residuals, then the gain again from those weights.
  /// The scale is kTukey × max(kMinScaleGrey, 1.4826 × the median absolute residual).
  /// @return false when no gain above 0.05 fits (the frame there does not look like the target)
  ///   or no sample is valid; `gain` and `offset` are set when true.
  bool fitGainAndWeights(bool firstIteration, double& gain, double& offset);
};

/// The weighted normalised cross-correlation of template and frame values: add() each sample with
/// its weight, value() in [-1, 1] (0 when either side has no variance).
class WeightedCorrelation {
 public:
  void add(double weight, double templateValue, double frameValue) {
    sw_ += weight, st_ += weight * templateValue, sg_ += weight * frameValue;
    stt_ += weight * templateValue * templateValue, sgg_ += weight * frameValue * frameValue;
    stg_ += weight * templateValue * frameValue;
  }
  double value() const;

 private:
  double sw_ = 0, st_ = 0, sg_ = 0, stt_ = 0, sgg_ = 0, stg_ = 0;
};

/// The strongest-gradient pixel of each cell of a grid of about `cells` cells over `image`
/// (CV_32F), skipping pixels whose gradient is under `minGradient` grey levels per pixel and a
/// one-pixel border: where a dense alignment's samples come from. `gradientX` / `gradientY` get
/// the image's Sobel gradients (grey levels per pixel) for the caller to read at those pixels.
std::vector<cv::Point> strongestGradientPerCell(const cv::Mat& image, int cells, double minGradient,
                                                cv::Mat& gradientX, cv::Mat& gradientY);

}  // namespace nft::tracker::alignment
