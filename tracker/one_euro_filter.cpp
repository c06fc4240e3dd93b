#include "tracker/one_euro_filter.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace nft::tracker {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// α(f) = 1 / (1 + τ / T_e), τ = 1 / (2π f) (the paper's smoothing factor).
double alpha(double cutoffHz, double dtSeconds) {
  const double tau = 1.0 / (2.0 * kPi * cutoffHz);
  return 1.0 / (1.0 + tau / dtSeconds);
}

void checkPositive(double v, const char* name) {
  if (!(v > 0) || !std::isfinite(v))
    throw std::invalid_argument(std::string("OneEuroOptions::") + name + " = " + std::to_string(v) +
                                ": expected a finite number > 0");
}

}  // namespace

OneEuroFilter::OneEuroFilter(const OneEuroOptions& options) : options_(options) {
  checkPositive(options.minCutoffHz, "minCutoffHz");
  checkPositive(options.derivativeCutoffHz, "derivativeCutoffHz");
  if (!(options.beta >= 0) || !std::isfinite(options.beta))
    throw std::invalid_argument("OneEuroOptions::beta = " + std::to_string(options.beta) +
                                ": expected a finite number >= 0");
}

double OneEuroFilter::filter(double x, double dtSeconds) {
  if (!started_) {
    started_ = true;
    x_ = x;
    dx_ = 0;
    return x;
  }
  if (!(dtSeconds > 0) || !std::isfinite(dtSeconds))
    throw std::invalid_argument("OneEuroFilter::filter: time step " + std::to_string(dtSeconds) +
                                " s: expected a finite number > 0");
  const double rawSpeed = (x - x_) / dtSeconds;
  const double ad = alpha(options_.derivativeCutoffHz, dtSeconds);
  dx_ = ad * rawSpeed + (1.0 - ad) * dx_;
  const double cutoff = options_.minCutoffHz + options_.beta * std::abs(dx_);
  const double a = alpha(cutoff, dtSeconds);
  x_ = a * x + (1.0 - a) * x_;
  return x_;
}

void OneEuroFilter::reset() { started_ = false; }

CornerFilter::CornerFilter(const OneEuroOptions& options)
    : filters_{OneEuroFilter(options), OneEuroFilter(options), OneEuroFilter(options), OneEuroFilter(options),
               OneEuroFilter(options), OneEuroFilter(options), OneEuroFilter(options), OneEuroFilter(options)} {}

std::vector<cv::Point2f> CornerFilter::filter(const std::vector<cv::Point2f>& corners, double dtSeconds) {
  if (corners.size() != 4)
    throw std::invalid_argument("CornerFilter::filter: " + std::to_string(corners.size()) +
                                " corners: expected 4");
  std::vector<cv::Point2f> out(4);
  for (size_t i = 0; i < 4; ++i) {
    out[i].x = static_cast<float>(filters_[2 * i].filter(corners[i].x, dtSeconds));
    out[i].y = static_cast<float>(filters_[2 * i + 1].filter(corners[i].y, dtSeconds));
  }
  return out;
}

void CornerFilter::reset() {
  for (OneEuroFilter& f : filters_) f.reset();
}

}  // namespace nft::tracker
