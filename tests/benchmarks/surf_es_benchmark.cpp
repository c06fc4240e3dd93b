// Timings of SurfEs on the thesis's test (seeds/000 section 5.1): oxford/graf img1 at
// 512×384, 1020 keypoints, upload included, readback excluded (extract()), on whatever GPU
// EGL gives (llvmpipe on machines without one). Per-pass GPU times come as counters from a
// profiled call (gpu::GpuTimer: timer queries on a GPU, glFinish + clock on llvmpipe). Cases:
// both storage paths, SURF-36 vs SURF-64, upright vs oriented, 256-4096 keypoints, images
// from 256×256 to 1024×1024, and describe() (with readback) for comparison.

#include <GLES2/gl2.h>
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "detection/surf_es.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "benchmark_gpu.h"
#include "surf_workload.h"

namespace {

using nft::benchmarks::benchmarkGpu;

using nft::benchmarks::keypoints;
using nft::benchmarks::workload;
using nft::detection::DescriptorStorage;
using nft::detection::DescriptorType;
using nft::detection::Keypoint;
using nft::detection::Orientation;
using nft::detection::SurfEs;
using nft::detection::SurfEsOptions;


// How a box mean is read (SurfEsOptions::boxTaps, quarterBoxes).
enum class Boxes {
  OneLookup,   // boxTaps 1: one trilinear lookup per box (the thesis's)
  FourLookups, // boxTaps 2, QuarterBoxes::Lookups: four quarter-box lookups (issue 22)
  BoxPyramid,  // boxTaps 2, QuarterBoxes::BoxPyramid: one lookup in the box pyramid (the default)
};

struct Config {
  DescriptorStorage storage;
  DescriptorType type;
  Orientation orientation;
  bool readback;
  Boxes boxes = Boxes::BoxPyramid;
};

// Adds the per-pass GPU times of one profiled call as counters (ms).
void addStageCounters(benchmark::State& state, SurfEs& surfEs, const cv::Mat& image,
                      const std::vector<Keypoint>& kps) {
  surfEs.setProfiling(true);
  std::vector<Keypoint> work = kps;
  surfEs.describe(image, work);
  const nft::detection::SurfEsTimings& t = surfEs.lastTimings();
  const std::pair<const char*, double> stages[] = {
      {"pyramid_ms", t.pyramid}, {"orientation_ms", t.orientation}, {"lattice_ms", t.lattice},
      {"sums_ms", t.sums},       {"norm_ms", t.norm},               {"normalize_ms", t.normalize},
      {"readback_ms", t.readback}};
  for (const auto& [name, ms] : stages)
    if (std::isfinite(ms)) state.counters[name] = ms;
  surfEs.setProfiling(false);
}

void run(benchmark::State& state, const Config& config, const cv::Mat& image, const std::vector<Keypoint>& kps) {
  SurfEsOptions options;
  options.storage = config.storage;
  options.type = config.type;
  options.orientation = config.orientation;
  options.boxTaps = config.boxes == Boxes::OneLookup ? 1 : 2;
  options.quarterBoxes = config.boxes == Boxes::FourLookups ? nft::detection::QuarterBoxes::Lookups
                                                           : nft::detection::QuarterBoxes::BoxPyramid;
  options.maxWidth = options.maxHeight = 1024;
  options.maxKeypoints = std::max(4096, static_cast<int>(kps.size()));
  SurfEs surfEs(benchmarkGpu().caps, options);
  std::vector<Keypoint> work = kps;
  surfEs.extract(image, work);  // compiles llvmpipe's shader variants outside the timing
  glFinish();
  for (auto _ : state) {
    if (config.readback) {
      std::copy(kps.begin(), kps.end(), work.begin());
      cv::Mat d = surfEs.describe(image, work);
      benchmark::DoNotOptimize(d.data);
    } else {
      surfEs.extract(image, work);
      glFinish();  // the GPU's work is what is timed
    }
  }
  state.counters["keypoints"] = static_cast<double>(kps.size());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kps.size()));
  state.SetLabel(std::string(surfEs.storage() == DescriptorStorage::Float ? "float" : "rgba8") + ", " +
                 benchmarkGpu().caps.glRenderer);
  addStageCounters(state, surfEs, image, kps);
}

void BM_SurfEs(benchmark::State& state, Config config) {
  if (!workload().error.empty()) {
    state.SkipWithError(workload().error.c_str());
    return;
  }
  run(state, config, workload().image, keypoints(static_cast<int>(state.range(0))));
}

// The 1020 keypoints on the image resized to range(0) × range(0), positions scaled with it.
void BM_SurfEsImageSize(benchmark::State& state, Config config) {
  if (!workload().error.empty()) {
    state.SkipWithError(workload().error.c_str());
    return;
  }
  const int side = static_cast<int>(state.range(0));
  cv::Mat image;
  cv::resize(workload().image, image, cv::Size(side, side), 0, 0, cv::INTER_LINEAR);
  std::vector<Keypoint> kps = keypoints(1020);
  const float sx = static_cast<float>(side) / static_cast<float>(workload().image.cols);
  const float sy = static_cast<float>(side) / static_cast<float>(workload().image.rows);
  for (Keypoint& k : kps) {
    k.x = std::min(k.x * sx, static_cast<float>(side - 1));
    k.y = std::min(k.y * sy, static_cast<float>(side - 1));
  }
  run(state, config, image, kps);
}

constexpr double kMinTime = 0.5;

#define NFT_SURF_ES(fn, name, storage, type, orientation, readback)                                        \
  BENCHMARK_CAPTURE(fn, name, Config{DescriptorStorage::storage, DescriptorType::type, Orientation::orientation, \
                                     readback})                                                             \
      ->Unit(benchmark::kMillisecond)                                                                       \
      ->MinTime(kMinTime)                                                                                   \
      ->UseRealTime()

#define NFT_SURF_ES_BOXES(name, storage, orientation, boxes)                                                  \
  BENCHMARK_CAPTURE(BM_SurfEs, name, Config{DescriptorStorage::storage, DescriptorType::Surf64,                \
                                            Orientation::orientation, false, Boxes::boxes})                   \
      ->Unit(benchmark::kMillisecond)                                                                       \
      ->MinTime(kMinTime)                                                                                   \
      ->UseRealTime()                                                                                       \
      ->Arg(1020)

// The box reads side by side (issue 36's goal: the default, BoxPyramid, at <= 1.3 times the time
// of one lookup per box, with the four lookups' recall): SURF-64, 1020 keypoints.
NFT_SURF_ES_BOXES(float_upright_taps1, Float, Upright, OneLookup);
NFT_SURF_ES_BOXES(float_upright_taps2_lookups, Float, Upright, FourLookups);
NFT_SURF_ES_BOXES(float_upright_taps2_boxpyramid, Float, Upright, BoxPyramid);
NFT_SURF_ES_BOXES(float_oriented_taps1, Float, Oriented, OneLookup);
NFT_SURF_ES_BOXES(float_oriented_taps2_lookups, Float, Oriented, FourLookups);
NFT_SURF_ES_BOXES(float_oriented_taps2_boxpyramid, Float, Oriented, BoxPyramid);
NFT_SURF_ES_BOXES(rgba8_upright_taps1, Rgba8, Upright, OneLookup);
NFT_SURF_ES_BOXES(rgba8_upright_taps2_lookups, Rgba8, Upright, FourLookups);
NFT_SURF_ES_BOXES(rgba8_upright_taps2_boxpyramid, Rgba8, Upright, BoxPyramid);
NFT_SURF_ES_BOXES(rgba8_oriented_taps1, Rgba8, Oriented, OneLookup);
NFT_SURF_ES_BOXES(rgba8_oriented_taps2_lookups, Rgba8, Oriented, FourLookups);
NFT_SURF_ES_BOXES(rgba8_oriented_taps2_boxpyramid, Rgba8, Oriented, BoxPyramid);

// The speed goal: 1020 keypoints, 512×384, upload included.
NFT_SURF_ES(BM_SurfEs, float_surf64_upright, Float, Surf64, Upright, false)->Arg(1020);
NFT_SURF_ES(BM_SurfEs, rgba8_surf64_upright, Rgba8, Surf64, Upright, false)->Arg(1020);
NFT_SURF_ES(BM_SurfEs, float_surf36_upright, Float, Surf36, Upright, false)->Arg(1020);
NFT_SURF_ES(BM_SurfEs, rgba8_surf36_upright, Rgba8, Surf36, Upright, false)->Arg(1020);
NFT_SURF_ES(BM_SurfEs, float_surf64_oriented, Float, Surf64, Oriented, false)->Arg(1020);
NFT_SURF_ES(BM_SurfEs, rgba8_surf64_oriented, Rgba8, Surf64, Oriented, false)->Arg(1020);
NFT_SURF_ES(BM_SurfEs, float_surf64_upright_readback, Float, Surf64, Upright, true)->Arg(1020);
// Scaling with the keypoint count and the image size.
NFT_SURF_ES(BM_SurfEs, float_surf64_upright_count, Float, Surf64, Upright, false)->RangeMultiplier(2)->Range(256, 4096);
NFT_SURF_ES(BM_SurfEsImageSize, float_surf64_upright_side, Float, Surf64, Upright, false)
    ->RangeMultiplier(2)
    ->Range(256, 1024);

}  // namespace
