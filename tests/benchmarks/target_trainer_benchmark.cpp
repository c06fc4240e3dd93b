// Training a 1000×1000 target (the goal: <= 1 s): oxford/graf img1 resized to 1000×1000
// (INTER_AREA), trained at a working size of 1000 (nothing scaled away), with SURF-ES on the
// GPU EGL gives (llvmpipe without one) and with the CPU lane; file writing excluded.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "detection/surf_cpu.h"
#include "detection/surf_es.h"
#include "detection/target_trainer.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "support/test_data.h"

namespace {

using namespace nft::detection;

std::optional<cv::Mat> target() {
  const std::filesystem::path path = nft::testing::dataDir() / "oxford/graf/img1.png";
  if (!std::filesystem::exists(path)) return std::nullopt;
  cv::Mat image;
  cv::resize(nft::testing::loadGray("oxford/graf/img1.png"), image, cv::Size(1000, 1000), 0, 0, cv::INTER_AREA);
  return image;
}

TargetTrainerOptions options() {
  TargetTrainerOptions o;
  o.workingSize = 1000;
  return o;
}

void BM_TrainTarget1000_SurfEs(benchmark::State& state) {
  const std::optional<cv::Mat> image = target();
  if (!image) {
    state.SkipWithError("real data missing: oxford/graf/img1.png (set NFT_DATA_DIR)");
    return;
  }
  const nft::gpu::Context context = nft::gpu::Context::createHeadless();
  SurfEsOptions surfOptions;
  surfOptions.maxWidth = surfOptions.maxHeight = 1000;
  SurfEs surfEs(nft::gpu::probeCapabilities(), surfOptions);  // programs built once, as in nft_train
  const TargetTrainerOptions o = options();
  for (auto _ : state) {
    TargetModel m = trainTarget(*image, o, [&](const cv::Mat& gray, std::vector<Keypoint>& kps) {
      return surfEs.describe(gray, kps);
    });
    benchmark::DoNotOptimize(m.descriptors.data);
    state.counters["keypoints"] = static_cast<double>(m.keypoints.size());
  }
}

void BM_TrainTarget1000_Cpu(benchmark::State& state) {
  const std::optional<cv::Mat> image = target();
  if (!image) {
    state.SkipWithError("real data missing: oxford/graf/img1.png (set NFT_DATA_DIR)");
    return;
  }
  const SurfCpu surf;
  const TargetTrainerOptions o = options();
  for (auto _ : state) {
    TargetModel m = trainTarget(*image, o, [&](const cv::Mat& gray, std::vector<Keypoint>& kps) {
      return surf.describe(gray, kps);
    });
    benchmark::DoNotOptimize(m.descriptors.data);
    state.counters["keypoints"] = static_cast<double>(m.keypoints.size());
  }
}

BENCHMARK(BM_TrainTarget1000_SurfEs)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_TrainTarget1000_Cpu)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace
