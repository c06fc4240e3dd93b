#pragma once
// The One Euro filter (Casiez, Roussel, Vogel, "1 € Filter: A Simple Speed-based Low-pass Filter
// for Noisy Input in Interactive Systems", CHI 2012): an exponential low-pass filter whose cutoff
// frequency rises with the signal's speed, so a still target's corners stop jittering (a low
// cutoff) while a moving one is followed with little lag (a high cutoff). Section 3 of the paper:
//   dx̂_i = α(d_cutoff) · (x_i − x̂_{i−1}) / T_e + (1 − α(d_cutoff)) · dx̂_{i−1}
//   f_c   = min_cutoff + β · |dx̂_i|
//   x̂_i  = α(f_c) · x_i + (1 − α(f_c)) · x̂_{i−1},   α(f) = 1 / (1 + τ / T_e),  τ = 1 / (2π f)
// with T_e the time since the last sample. CornerFilter applies it to the four corners of a
// target's quad (8 coordinates, one filter each), what the Session's pose filter smooths
// (config tracking.pose_filter) before it recomputes the homography and the pose from them.

#include <array>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::tracker {

/// The filter's parameters (the paper's names); units for a signal in pixels and time in seconds.
struct OneEuroOptions {
  /// min_cutoff: the cutoff at rest, Hz, > 0. Lower: less jitter at rest, more lag when starting.
  double minCutoffHz = 1.0;
  /// β: how fast the cutoff rises with the speed, Hz per (pixel / s), >= 0. Higher: less lag
  /// when moving.
  double beta = 0.3;
  /// d_cutoff: the cutoff of the speed's own low-pass filter, Hz, > 0 (the paper's 1 Hz).
  double derivativeCutoffHz = 1.0;
};

/// One scalar signal. Not thread-safe.
class OneEuroFilter {
 public:
  /// @throws std::invalid_argument naming a cutoff <= 0 or a negative beta (or one not finite).
  explicit OneEuroFilter(const OneEuroOptions& options = {});
  /// Filters sample `x` taken `dtSeconds` after the previous one (> 0; ignored for the first
  /// sample, which passes through unchanged). Returns the filtered value.
  /// @throws std::invalid_argument for dt <= 0 or not finite (after the first sample).
  double filter(double x, double dtSeconds);
  /// Forgets the signal: the next sample passes through.
  void reset();
  bool started() const { return started_; }

 private:
  OneEuroOptions options_;
  bool started_ = false;
  double x_ = 0, dx_ = 0;
};

/// A target's four corners (frame pixels), each coordinate through its own OneEuroFilter.
class CornerFilter {
 public:
  /// @throws what OneEuroFilter's constructor throws.
  explicit CornerFilter(const OneEuroOptions& options = {});
  /// The filtered corners of `corners` (exactly 4, frame pixels), `dtSeconds` after the last call.
  /// @throws std::invalid_argument for another number of corners, or dt as OneEuroFilter::filter.
  std::vector<cv::Point2f> filter(const std::vector<cv::Point2f>& corners, double dtSeconds);
  /// Forgets the corners (the target was lost): the next quad passes through.
  void reset();
  bool started() const { return filters_[0].started(); }

 private:
  std::array<OneEuroFilter, 8> filters_;
};

}  // namespace nft::tracker
