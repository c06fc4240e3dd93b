// Fast hand-held motion (issue 21), timed as same-run ratios (../shared/DESIGN.md, "Measuring"):
//
// - BM_TrackerOnPreset/<k>: the public nft::Session, default configuration, over the first 120
//   frames of the k-th POT preset (synthetic/synthetic_presets.h: 0 scale, 1 rotation,
//   2 perspective, 3 motion_blur, 4 occlusion, 5 out_of_view, 6 unconstrained) and, in the same
//   run, of the built-in default sequence (slow hand-held motion). Counters: success_5px,
//   tracked (share of frames the tracking lane produced), median_ms (FrameTimings::total, the
//   whole process() call, median over the frames) and vs_default (that median over the default
//   sequence's): the goal is median_ms <= 3 on every preset.
// - BM_RegionDetection: DetectionLane::detect() restricted to the target's region (its bounding
//   box plus half its size on every side, as the tracker's recovery near the last pose uses it)
//   against the whole frame, alternating on the same frames of the default sequence. Counters:
//   region_ms, full_ms (medians), region_over_full (their ratio), region_found, full_found.
// Run: build/<preset>/tests/benchmarks/nft_fast_motion_benchmark (no data folder needed: the
// sequences are synthesised from opencv-doc's images).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include <opencv2/core/utility.hpp>

#include "benchmark_gpu.h"
#include "nft/session.h"
#include "synthetic/synthetic_sequence.h"
#include "tracker/detection_lane.h"
#include "tracker/preset_run.h"
#include "tracker/train_image.h"

namespace {

using nft::replay::SyntheticPreset;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Rendered frames of a preset, made once per program.
const std::vector<cv::Mat>& framesOf(SyntheticPreset preset, int count) {
  static std::vector<std::pair<SyntheticPreset, std::vector<cv::Mat>>> cache;
  for (const auto& [p, frames] : cache)
    if (p == preset) return frames;
  nft::replay::SyntheticSequenceOptions o;
  o.preset = preset;
  o.frames = count;
  const nft::replay::SyntheticSequence sequence(o);
  std::vector<cv::Mat> frames;
  for (int i = 0; i < count; ++i) frames.push_back(sequence.render(i));
  cache.emplace_back(preset, std::move(frames));
  return cache.back().second;
}

struct PresetPass {
  double success5 = 0, tracked = 0, medianMs = 0;
};

PresetPass runPass(SyntheticPreset preset, int count) {
  nft::replay::SyntheticSequenceOptions o;
  o.preset = preset;
  o.frames = count;
  const nft::replay::SyntheticSequence sequence(o);
  const std::vector<cv::Mat>& frames = framesOf(preset, count);
  nft::Session session;
  session.addTarget(sequence.targetImage(), o.targetPath);
  std::vector<double> ms;
  int within5 = 0, tracked = 0;
  for (int i = 0; i < count; ++i) {
    const nft::FrameResult r = session.process(frames[static_cast<size_t>(i)]);
    const nft::TargetResult& t = r.targets.front();
    within5 += t.found && nft::testing::cornerAlignmentError(t.corners, sequence.corners(i)) <= 5 ? 1 : 0;
    tracked += t.state == nft::TrackingState::Tracking ? 1 : 0;
    ms.push_back(r.timings.total);
  }
  return {static_cast<double>(within5) / count, static_cast<double>(tracked) / count, median(ms)};
}

void BM_TrackerOnPreset(benchmark::State& state) {
  cv::setNumThreads(1);
  const SyntheticPreset preset = nft::replay::potPresets()[static_cast<size_t>(state.range(0))];
  const int count = 120;
  PresetPass pass, slow;
  for (auto _ : state) {
    pass = runPass(preset, count);
    slow = runPass(SyntheticPreset::Default, count);
  }
  state.SetLabel(nft::replay::toString(preset));
  state.counters["success_5px"] = pass.success5;
  state.counters["tracked"] = pass.tracked;
  state.counters["median_ms"] = pass.medianMs;
  state.counters["vs_default"] = slow.medianMs > 0 ? pass.medianMs / slow.medianMs : 0;
  cv::setNumThreads(-1);
}
BENCHMARK(BM_TrackerOnPreset)->DenseRange(0, 6)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_RegionDetection(benchmark::State& state) {
  cv::setNumThreads(1);
  auto& gpu = nft::benchmarks::benchmarkGpu();
  nft::replay::SyntheticSequenceOptions o;
  o.frames = 16;
  const nft::replay::SyntheticSequence sequence(o);
  const nft::detection::TargetModel model = nft::testing::trainImage(gpu.caps, sequence.targetImage());
  nft::tracker::DetectionLane lane(gpu.caps, model, nft::tracker::defaultCalibration(sequence.frameSize()));
  std::vector<cv::Mat> frames;
  std::vector<cv::Rect> regions;
  for (int i = 0; i < o.frames; ++i) {
    frames.push_back(sequence.render(i));
    const auto q = sequence.corners(i);
    const cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(q.begin(), q.end()));
    regions.push_back(cv::Rect(box.x - box.width / 2, box.y - box.height / 2, 2 * box.width, 2 * box.height) &
                      cv::Rect(0, 0, sequence.frameSize().width, sequence.frameSize().height));
  }
  for (const cv::Mat& f : frames) (void)lane.detect(f);  // warm-up: llvmpipe's shader variants
  std::vector<double> region, full;
  int regionFound = 0, fullFound = 0;
  size_t next = 0;
  for (auto _ : state) {
    regionFound += lane.detect(frames[next], regions[next]) ? 1 : 0;
    region.push_back(lane.lastTimings().total());
    fullFound += lane.detect(frames[next]) ? 1 : 0;
    full.push_back(lane.lastTimings().total());
    next = (next + 1) % frames.size();
  }
  state.counters["region_ms"] = median(region);
  state.counters["full_ms"] = median(full);
  state.counters["region_over_full"] = median(full) > 0 ? median(region) / median(full) : 0;
  state.counters["region_found"] = static_cast<double>(regionFound) / static_cast<double>(region.size());
  state.counters["full_found"] = static_cast<double>(fullFound) / static_cast<double>(full.size());
  cv::setNumThreads(-1);
}
BENCHMARK(BM_RegionDetection)->Unit(benchmark::kMillisecond)->MinTime(3.0);

}  // namespace
