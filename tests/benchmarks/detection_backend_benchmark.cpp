// The detection lane per frame with each backend (issue 22) against the OpenCV ORB baseline users
// would write (apps/eval/feature_baseline.h: 1000 features, Hamming k = 2, ratio 0.8, RANSAC 3 px),
// on the same frames in the same iteration, one core: cv::setNumThreads(1) and LP_NUM_THREADS=1
// (llvmpipe's raster threads; set before the context is made). The target is trained as nft_replay
// trains it (session::trainTargetImage with the default config: the descriptor backend the lane
// uses), the lane built from the default config's DetectionLaneOptions with the backend forced.
//
// Arguments: clip (0: tmt_bookI every 10th frame, 800 × 600; 1: cmu_book every 10th frame),
// backend (0: auto, 1: gpu, 2: cpu). Counters (medians over the iterations): lane_ms (detect()
// wall time), orb_ms, ratio = lane_ms / orb_ms (the goal: <= 1 with auto on llvmpipe), the lane's
// stages (detect_ms = FAST on the pyramid, describe_ms, match_ms, ransac_ms, pose_ms), found and
// orb_found (fractions of frames), cpu (1 when the lane's describer runs on the CPU),
// target_keypoints (the model's own, without its tilted views), frame_keypoints (keypoints
// described per frame, median over the frames with a detection).
// Run: LP_NUM_THREADS=1 build/<dir>/tests/benchmarks/nft_detection_backend_benchmark

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "apps/eval/feature_baseline.h"
#include "benchmark_gpu.h"
#include "config/config.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "support/test_data.h"
#include "tracker/detection_lane.h"

namespace {

using Clock = std::chrono::steady_clock;

// One core for llvmpipe too: read by Mesa when the context is made (benchmarkGpu(), later).
const bool kOneCore = [] {
  setenv("LP_NUM_THREADS", "1", 0);
  return true;
}();

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Clip {
  std::string target, video;
};

const Clip& clip(int64_t i) {
  static const Clip clips[] = {{"video/tmt_bookI/target.png", "video/tmt_bookI/video.mp4"},
                               {"video/cmu_book/cv_cover.jpg", "video/cmu_book/book.mp4"}};
  return clips[i];
}

std::vector<cv::Mat> loadFrames(const std::string& relative, int step) {
  cv::VideoCapture video((nft::testing::dataDir() / relative).string());
  std::vector<cv::Mat> frames;
  cv::Mat image;
  for (int i = 0; video.read(image); ++i)
    if (i % step == 0) frames.push_back(image.clone());
  return frames;
}

void BM_DetectionLaneVsOrb(benchmark::State& state) {
  (void)kOneCore;
  const Clip& c = clip(state.range(0));
  if (!std::filesystem::exists(nft::testing::dataDir() / c.video)) {
    state.SkipWithError("../shared/data missing");
    return;
  }
  cv::setNumThreads(1);
  auto& gpu = nft::benchmarks::benchmarkGpu();
  const nft::detection::Backend backend = state.range(1) == 0   ? nft::detection::Backend::Auto
                                          : state.range(1) == 1 ? nft::detection::Backend::Gpu
                                                                : nft::detection::Backend::Cpu;
  nft::session::PipelineOptions options = nft::session::pipelineOptions(nft::config::Config{});
  options.tracker.detection.descriptorBackend = backend;
  options.tracker.detection.matcherBackend = backend;
  options.trainingBackend = backend;
  const cv::Mat targetImage = cv::imread((nft::testing::dataDir() / c.target).string(), cv::IMREAD_GRAYSCALE);
  const nft::detection::TargetModel model =
      nft::session::trainTargetImage(targetImage, c.target, options, gpu.caps).model;
  const std::vector<cv::Mat> frames = loadFrames(c.video, 10);
  nft::tracker::DetectionLane lane(gpu.caps, model, nft::tracker::defaultCalibration(frames.front().size()),
                                   options.tracker.detection);
  nft::eval::FeatureBaseline orb(nft::eval::BaselineKind::Orb, cv::imread((nft::testing::dataDir() / c.target).string()));
  for (const cv::Mat& f : frames) {  // warm-up: llvmpipe's shader variants, OpenCV's buffers
    (void)lane.detect(f);
    (void)orb.find(f);
  }
  std::vector<double> laneMs, orbMs, detect, describe, match, ransac, pose, frameKeypoints;
  size_t next = 0, found = 0, orbFound = 0;
  for (auto _ : state) {
    const cv::Mat& f = frames[next];
    next = (next + 1) % frames.size();
    auto t = Clock::now();
    const auto d = lane.detect(f);
    laneMs.push_back(msSince(t));
    benchmark::DoNotOptimize(d);
    t = Clock::now();
    const nft::eval::FrameOutcome o = orb.find(f);
    orbMs.push_back(msSince(t));
    found += d ? 1 : 0;
    if (d) frameKeypoints.push_back(d->keypoints);
    orbFound += o.found ? 1 : 0;
    const nft::tracker::DetectionTimings& s = lane.lastTimings();
    detect.push_back(s.detect);
    describe.push_back(s.describe);
    match.push_back(s.match);
    ransac.push_back(s.ransac);
    pose.push_back(s.pose);
  }
  const double n = static_cast<double>(laneMs.size());
  state.counters["lane_ms"] = median(laneMs);
  state.counters["orb_ms"] = median(orbMs);
  state.counters["ratio"] = median(laneMs) / median(orbMs);
  state.counters["detect_ms"] = median(detect);
  state.counters["describe_ms"] = median(describe);
  state.counters["match_ms"] = median(match);
  state.counters["ransac_ms"] = median(ransac);
  state.counters["pose_ms"] = median(pose);
  state.counters["found"] = static_cast<double>(found) / n;
  state.counters["orb_found"] = static_cast<double>(orbFound) / n;
  state.counters["cpu"] = lane.descriptorBackend() == nft::detection::Backend::Cpu ? 1 : 0;
  state.counters["target_keypoints"] = static_cast<double>(model.frontalKeypoints());
  state.counters["frame_keypoints"] = median(frameKeypoints);
}
BENCHMARK(BM_DetectionLaneVsOrb)
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->ArgNames({"clip", "backend"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

}  // namespace
