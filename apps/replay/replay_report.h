#pragma once
// The replay's statistics and its JSON summary (nft_replay --report): frames, found fraction,
// counts per tracker state, the lanes' frame rates, per-stage median times, and with ground
// truth the alignment errors (the corner error) and the visible errors (suite/ground_truth.h
// visibleError()) with their success rates at 5 and 10 px.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nft/types.h"

namespace nft::replay {

/// Percentiles of the time process() took over a replay's frames (FrameTimings::total), ms: a user
/// judges a tracker by its worst frames (../shared/DESIGN.md, "Threads and frame time").
struct FrameTimePercentiles {
  double p50 = 0, p90 = 0, p99 = 0, max = 0;  ///< nearest-rank percentiles and the largest; NaN without frames
};

/// The nearest-rank percentiles p50, p90, p99 and the largest of `ms`, NaN each when empty.
FrameTimePercentiles frameTimePercentiles(std::vector<double> ms);

/// Accumulates per-frame outcomes. Not thread-safe.
class ReplayStats {
 public:
  /// Records one frame: its Session result (the first target's state and found flag; the
  /// frame's timings), the time spent rendering it (upload, draw,
  /// readback; ms, 0 without rendering), and its alignment error against ground truth (pixels;
  /// std::nullopt when the frame has no ground truth, +infinity when the target was not found
  /// although ground truth exists: a failure), and its visible error (the same, and NaN when no
  /// point of the visible error's grid is inside the frame: not scored by it).
  void add(const FrameResult& frame, double renderMs, std::optional<double> alignmentErrorPx,
           std::optional<double> visibleErrorPx = std::nullopt);
  /// Makes room for `frames` frames at once (the input's length, when known): the per-frame
  /// records (~130 bytes a frame, what the medians need) then grow without reallocating, so a long
  /// run's memory rises by just those records (scripts/soak.sh).
  void reserve(int frames);

  int frames() const { return static_cast<int>(states_.size()); }
  int found() const { return found_; }
  int count(TrackingState state) const;
  /// Frames with ground truth, and those within `thresholdPx` (found and e ≤ threshold).
  int groundTruthFrames() const { return static_cast<int>(errors_.size()); }
  double successRate(double thresholdPx) const;  ///< in [0, 1]; 0 without ground truth
  /// Median of the alignment errors of the found frames with ground truth; NaN when none.
  double medianErrorPx() const;
  /// Frames scored by the visible error, the share of them within `thresholdPx` (found and
  /// visible error ≤ threshold; 0 without any), and the median over the found ones (NaN: none).
  int visibleFrames() const { return static_cast<int>(visibleErrors_.size()); }
  double visibleSuccessRate(double thresholdPx) const;
  double medianVisibleErrorPx() const;
  /// Frames per second of the tracker alone: frames / Σ TrackerTimings::total.
  double trackerFps() const;
  /// Frames per second of tracker + rendering: frames / Σ (total + render); NaN when nothing
  /// was rendered.
  double pipelineFps() const;
  /// Percentiles of process()'s time over the frames (FrameTimings::total).
  FrameTimePercentiles processMs() const;

  /// The summary:
  /// { "frames", "found", "found_fraction", "states": {detecting, tracking, lost},
  ///   "fps": {"tracker", "with_render", "detecting", "tracking", "lost"} (frames / s of the
  ///   tracker's time over the frames in that state; null when none),
  ///   "median_ms": {convert, detect, describe, match, ransac, pose, tracking_pyramid,
  ///   tracking_coarse, tracking_fine, tracking_pose, total, render} (medians over the frames in
  ///   which the stage ran, null when it never did), "mean_ms_total",
  ///   "process_ms": {"p50", "p90", "p99", "max"} (processMs(); null without frames),
  ///   "ground_truth": null | {"frames", "success_5px", "success_10px", "median_error_px",
  ///   "mean_error_px" (found frames), "failed_not_found", and by the visible error
  ///   "visible_frames" (those it scores), "visible_success_5px", "visible_success_10px",
  ///   "median_visible_error_px", "mean_visible_error_px" (found frames; null when none)} }.
  nlohmann::json toJson() const;

 private:
  std::vector<TrackingState> states_;
  std::vector<FrameTimings> timings_;
  std::vector<double> renderMs_;
  std::vector<double> errors_;  // +inf for not found
  std::vector<double> visibleErrors_;  // the frames the visible error scores; +inf for not found
  int found_ = 0;
};

/// Writes `json` (indented) to `path` through a temporary file renamed into place, so a failed
/// run never leaves a half-written report. @throws std::runtime_error naming the file.
void writeJsonAtomically(const nlohmann::json& json, const std::string& path);

}  // namespace nft::replay
