// Several targets tracked at once (issue 20's goal: 8 targets at >= 100 frames/s of tracker time,
// each as accurate as alone): the grid of the multi-target synthetic sequence
// (synthetic/multi_target_sequence.h, 8 prints in view, 640×480), its first 180 frames
// rendered once, then processed by a Session that knows all 8 prints and, in the same
// iteration, by a Session that knows one of them (graf1) — the single-target baseline of the
// same run. Each pass starts a fresh Session; its first 60 frames (the searches that find the
// prints) are counted apart from the 120 after them (tracking, and a search every
// tracking.search_every frames for the prints not found).
// Counters: multi_ms / single_ms (mean tracker time per frame of the last 120 frames,
// FrameTimings::total), multi_fps = 1000 / multi_ms, ratio = multi / single, tracked (mean
// targets reported found per frame there, multi), acquire_ms (multi, mean of the first 60).
// Run: build/release/tests/benchmarks/nft_multi_target_benchmark   (needs opencv-doc)

#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

#include <opencv2/core/utility.hpp>

#include "benchmark_gpu.h"
#include "nft/session.h"
#include "synthetic/multi_target_sequence.h"

namespace {

constexpr int kAcquireFrames = 60, kSteadyFrames = 120;

const nft::replay::MultiTargetSequence& grid() {
  static const nft::replay::MultiTargetSequence sequence = [] {
    nft::replay::MultiTargetSequenceOptions o;
    o.layout = nft::replay::MultiTargetLayout::Grid;
    o.frames = kAcquireFrames + kSteadyFrames;
    return nft::replay::MultiTargetSequence(o);
  }();
  return sequence;
}

const std::vector<cv::Mat>& frames() {
  static const std::vector<cv::Mat> rendered = [] {
    std::vector<cv::Mat> v;
    for (int i = 0; i < grid().frameCount(); ++i) v.push_back(grid().render(i));
    return v;
  }();
  return rendered;
}

struct Pass {
  double acquireMs = 0;  // sum of FrameTimings::total over the first kAcquireFrames frames
  double ms = 0;         // ... over the kSteadyFrames after them
  double found = 0;      // targets reported found, summed over those
};

Pass pass(int targets) {
  nft::SessionOptions o;
  o.adoptCurrentContext = true;
  nft::Session session(o);
  for (int p = 0; p < targets; ++p) {
    const nft::replay::MultiTargetPrint& print = grid().prints()[static_cast<size_t>(p)];
    session.addTarget(print.image, print.name, print.widthM);
  }
  Pass r;
  for (size_t i = 0; i < frames().size(); ++i) {
    const nft::FrameResult result = session.process(frames()[i]);
    if (static_cast<int>(i) < kAcquireFrames) {
      r.acquireMs += result.timings.total;
      continue;
    }
    r.ms += result.timings.total;
    for (const nft::TargetResult& t : result.targets) r.found += t.found ? 1 : 0;
  }
  return r;
}

void BM_EightTargetsAgainstOne(benchmark::State& state) {
  nft::benchmarks::benchmarkGpu();
  cv::setNumThreads(1);
  (void)frames();
  (void)pass(1);  // warm-up: llvmpipe compiles its shader variants
  Pass multi, single;
  for (auto _ : state) {
    const Pass m = pass(8), s = pass(1);
    multi.ms += m.ms, multi.found += m.found, multi.acquireMs += m.acquireMs;
    single.ms += s.ms, single.found += s.found;
    state.SetIterationTime((m.ms + s.ms) / 1000.0);
  }
  const double n = kSteadyFrames * static_cast<double>(state.iterations());
  state.counters["acquire_ms"] = multi.acquireMs / (kAcquireFrames * static_cast<double>(state.iterations()));
  state.counters["multi_ms"] = multi.ms / n;
  state.counters["single_ms"] = single.ms / n;
  state.counters["multi_fps"] = 1000.0 * n / multi.ms;
  state.counters["ratio"] = multi.ms / single.ms;
  state.counters["tracked"] = multi.found / n;
}
BENCHMARK(BM_EightTargetsAgainstOne)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
