// Timings of SurfCpu::describe on the workload of the project's speed goal: oxford/graf img1
// resized to 512×384 (INTER_AREA) with SIFT keypoints (tests/support/test_keypoints.h).
// Upright SURF-64 on 1 thread and on all threads is the headline; SURF-36, oriented SURF-64
// (angles recomputed every iteration) and keypoint counts 256..4096 show how the cost scales.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/surf_cpu.h"
#include "support/test_data.h"
#include "support/test_keypoints.h"

namespace {

using nft::detection::DescriptorType;
using nft::detection::Keypoint;
using nft::detection::Orientation;
using nft::detection::SurfCpu;

constexpr const char* kImage = "oxford/graf/img1.png";
const cv::Size kSize(512, 384);

struct Workload {
  cv::Mat image;      // CV_8UC1, kSize
  std::string error;  // non-empty when the data folder is missing
};

const Workload& workload() {
  static const Workload w = [] {
    Workload out;
    const std::filesystem::path path = nft::testing::dataDir() / kImage;
    if (!std::filesystem::exists(path)) {
      out.error = "real data missing: " + path.string() + " (data folder " + nft::testing::dataDir().string() +
                  "; check out shared/ beside the repository or set NFT_DATA_DIR)";
      return out;
    }
    cv::resize(nft::testing::loadGray(kImage), out.image, kSize, 0, 0, cv::INTER_AREA);
    return out;
  }();
  return w;
}

// The `count` strongest SIFT keypoints; where SIFT finds fewer, the list is repeated with a
// deterministic sub-pixel jitter so that every requested count is a distinct workload.
const std::vector<Keypoint>& keypoints(int count) {
  static std::map<int, std::vector<Keypoint>> cache;  // benchmarks run one at a time
  auto found = cache.find(count);
  if (found != cache.end()) return found->second;
  const cv::Mat& image = workload().image;
  std::vector<Keypoint> kps = nft::testing::siftKeypoints(image, count);
  const size_t detected = kps.size();
  for (size_t e = 0; detected > 0 && kps.size() < static_cast<size_t>(count); ++e) {
    Keypoint kp = kps[e % detected];
    const float jitter = static_cast<float>(std::fmod(static_cast<double>(e) * 0.6180339887, 1.0) - 0.5);
    kp.x = std::clamp(kp.x + jitter, 0.0f, static_cast<float>(image.cols - 1));
    kp.y = std::clamp(kp.y - jitter, 0.0f, static_cast<float>(image.rows - 1));
    kps.push_back(kp);
  }
  return cache.emplace(count, std::move(kps)).first->second;
}

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
