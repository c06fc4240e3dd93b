// Timings of FastDetector::detect on the detection lane's frame: frame 100 of
// ../shared/data/video/cmu_book/book.mp4 (640×480, a real hand-held video), 1000 keypoints,
// one thread (cv::setNumThreads(1)). Goal: <= 2 ms for the defaults. The other cases split the
// cost: single-scale (no pyramid), no spread (cellSize 0), a higher FAST threshold, BGR input
// (with the grey conversion), and plain cv::FAST on the full frame as the floor.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "detection/fast_detector.h"
#include "support/test_data.h"

namespace {

using nft::detection::FastDetector;
using nft::detection::FastDetectorOptions;
using nft::detection::Keypoint;

constexpr const char* kVideo = "video/cmu_book/book.mp4";
constexpr int kFrame = 100;

struct Frame {
  cv::Mat bgr;        // CV_8UC3, 640×480
  cv::Mat gray;       // CV_8UC1
  std::string error;  // non-empty when the video is missing or unreadable
};

const Frame& frame() {
  static const Frame f = [] {
    Frame out;
    const std::filesystem::path path = nft::testing::dataDir() / kVideo;
    if (!std::filesystem::exists(path)) {
      out.error = "real data missing: " + path.string() + " (check out shared/ beside the repository or set NFT_DATA_DIR)";
      return out;
    }
    cv::VideoCapture capture(path.string());
    for (int i = 0; i <= kFrame && capture.read(out.bgr); ++i) {
    }
    if (out.bgr.empty()) {
      out.error = "cannot read frame " + std::to_string(kFrame) + " of " + path.string();
      return out;
    }
    cv::cvtColor(out.bgr, out.gray, cv::COLOR_BGR2GRAY);
    return out;
  }();
  return f;
}

void BM_FastDetector(benchmark::State& state, FastDetectorOptions options, bool bgr) {
  const Frame& f = frame();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  cv::setNumThreads(1);  // the goal is per core
  const FastDetector detector(options);
  const cv::Mat& image = bgr ? f.bgr : f.gray;
  size_t count = 0;
  for (auto _ : state) {
    std::vector<Keypoint> kps = detector.detect(image);
    count = kps.size();
    benchmark::DoNotOptimize(kps.data());
  }
  state.counters["keypoints"] = static_cast<double>(count);
  state.counters["width"] = image.cols;
  state.counters["height"] = image.rows;
}

void BM_PlainFastLevel0(benchmark::State& state) {
  const Frame& f = frame();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  cv::setNumThreads(1);
  std::vector<cv::KeyPoint> corners;
  for (auto _ : state) {
    cv::FAST(f.gray, corners, FastDetectorOptions{}.threshold, true, cv::FastFeatureDetector::TYPE_9_16);
    benchmark::DoNotOptimize(corners.data());
  }
  state.counters["keypoints"] = static_cast<double>(corners.size());
}

FastDetectorOptions with(void (*change)(FastDetectorOptions&)) {
  FastDetectorOptions o;
  change(o);
  return o;
}

// Wall time (UseRealTime); the warm-up keeps the first case from paying for cold caches and
// the CPU's clock ramp-up.
constexpr double kMinTime = 0.5;
constexpr double kWarmUpTime = 0.2;

#define NFT_FAST_CASE(name, options, bgr)                      \
  BENCHMARK_CAPTURE(BM_FastDetector, name, options, bgr)       \
      ->Unit(benchmark::kMillisecond)                          \
      ->MinWarmUpTime(kWarmUpTime)                             \
      ->MinTime(kMinTime)                                      \
      ->UseRealTime()

// The goal: defaults, 1000 keypoints, grey 640×480 frame, one thread, <= 2 ms.
NFT_FAST_CASE(defaults_gray, FastDetectorOptions{}, false);
NFT_FAST_CASE(defaults_bgr, FastDetectorOptions{}, true);
NFT_FAST_CASE(single_scale, with([](FastDetectorOptions& o) { o.levels = 1; }), false);
NFT_FAST_CASE(no_spread, with([](FastDetectorOptions& o) { o.cellSize = 0; }), false);
NFT_FAST_CASE(threshold_40, with([](FastDetectorOptions& o) { o.threshold = 40; }), false);
BENCHMARK(BM_PlainFastLevel0)->Unit(benchmark::kMillisecond)->MinWarmUpTime(kWarmUpTime)->MinTime(kMinTime)->UseRealTime();

}  // namespace
