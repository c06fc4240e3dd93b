#pragma once
// Runs the public nft::Session over the first frames of a synthetic sequence (POT presets of
// synthetic/synthetic_presets.h, exact ground truth) and scores it as nft_eval does: the
// alignment error of ../shared/data/README.md against the true corners, success at 5 / 10 px, the
// share of frames the tracking lane produced and of frames where the detection lane ran.

#include <algorithm>
#include <cmath>
#include <vector>

#include "nft/session.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::testing {

/// The scores of one run.
struct PresetScore {
  int frames = 0;
  int within5 = 0, within10 = 0, found = 0;
  int tracking = 0;        ///< frames whose result came from the tracking lane
  int detectionRuns = 0;   ///< frames where the detection lane ran (FAST time > 0)
  double at5() const { return frames ? static_cast<double>(within5) / frames : 0.0; }
  double at10() const { return frames ? static_cast<double>(within10) / frames : 0.0; }
  double trackedShare() const { return frames ? static_cast<double>(tracking) / frames : 0.0; }
  double detectionShare() const { return frames ? static_cast<double>(detectionRuns) / frames : 0.0; }
};

/// Alignment error (data README): sqrt of the mean over the 4 corners of the squared distance.
inline double cornerAlignmentError(const std::vector<cv::Point2f>& corners, const replay::QuadCorners& truth) {
  double sum = 0;
  for (size_t i = 0; i < 4; ++i) {
    const cv::Point2f d = corners[i] - truth[i];
    sum += static_cast<double>(d.x) * d.x + static_cast<double>(d.y) * d.y;
  }
  return std::sqrt(sum / 4.0);
}

/// The Session with the default configuration over frames 0..frames−1 of `preset` (seed 8, as
/// nft_eval --preset), its target added as nft_eval adds it. Detection runs in process(), as in
/// nft_eval (tracking.async_detection off): with the default (auto: a worker on 2 or more cores)
/// the frames before the worker's first search comes back depend on the machine's load, and a
/// loaded sanitizer build lost 7 of 120 frames to it (perspective: 94.2 % tracked).
inline PresetScore runPreset(replay::SyntheticPreset preset, int frames) {
  replay::SyntheticSequenceOptions o;
  o.preset = preset;
  o.frames = frames;
  const replay::SyntheticSequence sequence(o);
  SessionOptions options;
  options.config.tracking.asyncDetection = config::AsyncDetection::Off;
  Session session(options);
  session.addTarget(sequence.targetImage(), o.targetPath);
  PresetScore s;
  for (int i = 0; i < frames; ++i) {
    const FrameResult r = session.process(sequence.render(i));
    const TargetResult& t = r.targets.front();
    const double e = t.found && t.corners.size() == 4 ? cornerAlignmentError(t.corners, sequence.corners(i)) : 1e9;
    ++s.frames;
    s.within5 += e <= 5 ? 1 : 0;
    s.within10 += e <= 10 ? 1 : 0;
    s.found += t.found ? 1 : 0;
    s.tracking += t.state == TrackingState::Tracking ? 1 : 0;
    s.detectionRuns += r.timings.fast > 0 ? 1 : 0;
  }
  return s;
}

}  // namespace nft::testing
