// Timings of SurfCpu::describe on the workload of the project's speed goal: oxford/graf img1
// resized to 512×384 (INTER_AREA) with SIFT keypoints (tests/support/test_keypoints.h).
// Upright SURF-64 on 1 thread and on all threads is the headline; SURF-36, oriented SURF-64
// (angles recomputed every iteration) and keypoint counts 256..4096 show how the cost scales.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/surf_cpu.h"
#include "surf_workload.h"

namespace {

using nft::benchmarks::keypoints;
using nft::benchmarks::workload;
using nft::benchmarks::Workload;
using nft::detection::DescriptorType;
using nft::detection::Keypoint;
using nft::detection::Orientation;
using nft::detection::SurfCpu;

void BM_SurfCpu(benchmark::State& state, DescriptorType type, Orientation orientation, bool allThreads) {
  const Workload& w = workload();
  if (!w.error.empty()) {
    state.SkipWithError(w.error.c_str());
    return;
  }
  const int count = static_cast<int>(state.range(0));
  const std::vector<Keypoint>& kps = keypoints(count);
  // Both OpenCV's pool and the option: 1 thread means no worker anywhere.
  const int threads = allThreads ? cv::getNumberOfCPUs() : 1;
  cv::setNumThreads(threads);
  const SurfCpu surf({type, orientation, allThreads ? 0 : 1});
  std::vector<Keypoint> work = kps;
  for (auto _ : state) {
    std::copy(kps.begin(), kps.end(), work.begin());  // fresh angles: oriented recomputes them
    cv::Mat descriptors = surf.describe(w.image, work);
    benchmark::DoNotOptimize(descriptors.data);
  }
  state.counters["keypoints"] = static_cast<double>(kps.size());
  state.counters["threads"] = threads;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kps.size()));
}

// Wall-clock time: with the thread pool, the calling thread's CPU time would undercount. The
// warm-up keeps the first case from paying for cold caches and CPU clock ramp-up.
constexpr double kMinTime = 0.5;
constexpr double kWarmUpTime = 0.2;

#define NFT_SURF_CASE(name, type, orientation, all)                                     \
  BENCHMARK_CAPTURE(BM_SurfCpu, name, DescriptorType::type, Orientation::orientation, all) \
      ->Unit(benchmark::kMillisecond)                                                   \
      ->MinWarmUpTime(kWarmUpTime)                                                      \
      ->MinTime(kMinTime)                                                               \
      ->UseRealTime()

// The speed goal: 1020 keypoints, upright SURF-64.
NFT_SURF_CASE(surf64_upright_1thread, Surf64, Upright, false)->Arg(1020);
NFT_SURF_CASE(surf64_upright_allthreads, Surf64, Upright, true)->Arg(1020);
NFT_SURF_CASE(surf36_upright_1thread, Surf36, Upright, false)->Arg(1020);
NFT_SURF_CASE(surf36_upright_allthreads, Surf36, Upright, true)->Arg(1020);
NFT_SURF_CASE(surf64_oriented_1thread, Surf64, Oriented, false)->Arg(1020);
NFT_SURF_CASE(surf64_oriented_allthreads, Surf64, Oriented, true)->Arg(1020);
// Scaling with the keypoint count.
NFT_SURF_CASE(surf64_upright_1thread_count, Surf64, Upright, false)->RangeMultiplier(2)->Range(256, 4096);
NFT_SURF_CASE(surf64_upright_allthreads_count, Surf64, Upright, true)->RangeMultiplier(2)->Range(256, 4096);

}  // namespace
