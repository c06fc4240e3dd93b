// DetectionLane::detect() (tracker/detection_lane.h) on tmt_bookI frames (800×600, every 10th of
// the 531), against target.png's model (639 or 1000 keypoints, tests/tracker/tmt_target.h), on whatever GPU EGL gives (llvmpipe on
// machines without one). Each iteration is one detect() on the next frame of the cycle. Counters:
// median_ms (median wall time per detect() over the iterations) and the median of each stage
// (detect, describe, match, ransac, pose; describe + match is the GPU part, see DetectionTimings),
// and found (fraction of calls that returned a detection).
// Run: build/<preset>/tests/benchmarks/nft_tracker_benchmark (needs ../shared/data).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "benchmark_gpu.h"
#include "tracker/detection_lane.h"
#include "tracker/tmt_ground_truth.h"
#include "tracker/tmt_target.h"

namespace {

using nft::benchmarks::benchmarkGpu;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void BM_DetectionLaneTmtBookI(benchmark::State& state) {
  auto& gpu = benchmarkGpu();
  const std::vector<nft::testing::TmtVideoFrame> frames = nft::testing::loadTmtFrames(10);
  // Argument: the training FAST threshold: 20 (the tests' model, 639 keypoints) or 10 (1000, the
  // cap: the "1000-descriptor target").
  const nft::detection::TargetModel model =
      nft::testing::trainTmtTarget(gpu.caps, 1, 0.20, static_cast<int>(state.range(0)));
  nft::tracker::DetectionLane lane(gpu.caps, model, nft::tracker::defaultCalibration(nft::testing::kTmtFrameSize));
  for (const auto& f : frames) (void)lane.detect(f.image);  // warm-up: llvmpipe's shader variants
  std::vector<double> total, detect, describe, match, ransac, pose;
  size_t next = 0, found = 0;
  for (auto _ : state) {
    const auto d = lane.detect(frames[next].image);
    benchmark::DoNotOptimize(d);
    next = (next + 1) % frames.size();
    found += d ? 1 : 0;
    const nft::tracker::DetectionTimings& t = lane.lastTimings();
    total.push_back(t.total());
    detect.push_back(t.detect);
    describe.push_back(t.describe);
    match.push_back(t.match);
    ransac.push_back(t.ransac);
    pose.push_back(t.pose);
  }
  state.counters["median_ms"] = median(total);
  state.counters["detect_ms"] = median(detect);
  state.counters["describe_ms"] = median(describe);
  state.counters["match_ms"] = median(match);
  state.counters["ransac_ms"] = median(ransac);
  state.counters["pose_ms"] = median(pose);
  state.counters["found"] = static_cast<double>(found) / static_cast<double>(total.size());
  state.counters["target_keypoints"] = static_cast<double>(model.keypoints.size());
}
BENCHMARK(BM_DetectionLaneTmtBookI)->Arg(20)->Arg(10)->Unit(benchmark::kMillisecond)->MinTime(3.0);

}  // namespace
