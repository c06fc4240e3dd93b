// The tracker (tracker/tracker.h) on all 531 frames of tmt_bookI (800×600) against target.png's
// model, next to the baseline users would write from OpenCV's samples — SIFT + ratio test (0.75)
// + RANSAC homography on every frame — measured in the same run, with the same scoring
// (alignment error ≤ 5 / 10 px against gt.tsv, see ../shared/data/README.md). OpenCV runs on one
// thread (cv::setNumThreads(1)): the goals are per core.
//
// - BM_TrackingLane: one iteration = one frame tracked by the tracking lane alone (initialised
//   from gt.tsv's first frame; the sequence restarts from the ground truth when it wraps).
//   median_ms is the tracker's time per frame.
// - BM_TrackerFullPass / BM_SiftBaselineFullPass: one iteration = the whole video; counters
//   success_5px, success_10px (fractions of frames), tilted_10px (frames 214–375 within 10 px, of
//   162) and ms_per_frame (mean).
// Run: build/<preset>/tests/benchmarks/nft_tracker_benchmark --benchmark_filter=Pass (needs
// ../shared/data; the SIFT pass takes about a minute).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "benchmark_gpu.h"
#include "tmt_gray_frames.h"
#include "tracker/tmt_ground_truth.h"
#include "tracker/tmt_target.h"
#include "tracker/tracker.h"

namespace {

using nft::benchmarks::benchmarkGpu;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

const std::vector<cv::Mat>& grayFrames() { return nft::benchmarks::tmtGrayFrames(); }

/// Success counts of one pass.
struct PassScore {
  int frames = 0, within5 = 0, within10 = 0, tilted10 = 0;
  double ms = 0;
  void add(int index, const std::vector<cv::Point2f>* corners, const std::vector<nft::testing::TmtFrame>& truth,
           double frameMs) {
    ++frames;
    ms += frameMs;
    if (corners == nullptr) return;
    const double e = nft::testing::alignmentError(*corners, truth[static_cast<size_t>(index)].corners);
    within5 += e <= 5 ? 1 : 0;
    within10 += e <= 10 ? 1 : 0;
    tilted10 += (e <= 10 && index + 1 >= 214 && index + 1 <= 375) ? 1 : 0;
  }
  void report(benchmark::State& state) const {
    state.counters["success_5px"] = static_cast<double>(within5) / frames;
    state.counters["success_10px"] = static_cast<double>(within10) / frames;
    state.counters["tilted_10px"] = tilted10;
    state.counters["ms_per_frame"] = ms / frames;
  }
};

void BM_TrackingLane(benchmark::State& state) {
  cv::setNumThreads(1);
  auto& gpu = benchmarkGpu();
  const auto& frames = grayFrames();
  const auto truth = nft::testing::loadTmtGroundTruth();
  const nft::detection::TargetModel model = nft::testing::trainTmtTarget(gpu.caps);
  nft::tracker::TrackerOptions options;
  options.detectionEnabled = false;
  nft::tracker::Tracker tracker(gpu.caps, model, nft::tracker::defaultCalibration(nft::testing::kTmtFrameSize), options);
  std::vector<double> ms;
  size_t next = 0, found = 0;
  for (auto _ : state) {
    if (next == 0) tracker.initialise(nft::testing::tmtHomography(truth[0]));
    const nft::tracker::TrackResult r = tracker.track(frames[next]);
    next = (next + 1) % frames.size();
    found += r.found ? 1 : 0;
    ms.push_back(r.timings.total);
  }
  state.counters["median_ms"] = median(ms);
  state.counters["found"] = static_cast<double>(found) / static_cast<double>(ms.size());
  cv::setNumThreads(-1);
}
BENCHMARK(BM_TrackingLane)->Unit(benchmark::kMillisecond)->MinTime(3.0);

void BM_TrackerFullPass(benchmark::State& state) {
  cv::setNumThreads(1);
  auto& gpu = benchmarkGpu();
  const auto& frames = grayFrames();
  const auto truth = nft::testing::loadTmtGroundTruth();
  const nft::detection::TargetModel model = nft::testing::trainTmtTarget(gpu.caps);
  PassScore score;
  for (auto _ : state) {
    nft::tracker::Tracker tracker(gpu.caps, model, nft::tracker::defaultCalibration(nft::testing::kTmtFrameSize));
    score = {};
    for (size_t i = 0; i < frames.size() && i < truth.size(); ++i) {
      const nft::tracker::TrackResult r = tracker.track(frames[i]);
      score.add(static_cast<int>(i), r.found ? &r.corners : nullptr, truth, r.timings.total);
    }
  }
  score.report(state);
  cv::setNumThreads(-1);
}
BENCHMARK(BM_TrackerFullPass)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_SiftBaselineFullPass(benchmark::State& state) {
  cv::setNumThreads(1);
  const auto& frames = grayFrames();
  const auto truth = nft::testing::loadTmtGroundTruth();
  const cv::Mat target = nft::testing::loadGray("video/tmt_bookI/target.png");
  cv::Ptr<cv::SIFT> sift = cv::SIFT::create();
  std::vector<cv::KeyPoint> targetKeypoints;
  cv::Mat targetDescriptors;
  sift->detectAndCompute(target, cv::noArray(), targetKeypoints, targetDescriptors);
  cv::BFMatcher matcher(cv::NORM_L2);
  const float w = static_cast<float>(target.cols), h = static_cast<float>(target.rows);
  const std::vector<cv::Point2f> targetCorners = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  PassScore score;
  for (auto _ : state) {
    score = {};
    for (size_t i = 0; i < frames.size() && i < truth.size(); ++i) {
      const auto start = Clock::now();
      std::vector<cv::KeyPoint> keypoints;
      cv::Mat descriptors;
      sift->detectAndCompute(frames[i], cv::noArray(), keypoints, descriptors);
      std::vector<cv::Point2f> src, dst, corners;
      if (!descriptors.empty()) {
        std::vector<std::vector<cv::DMatch>> knn;
        matcher.knnMatch(targetDescriptors, descriptors, knn, 2);
        for (const auto& m : knn)
          if (m.size() == 2 && m[0].distance < 0.75f * m[1].distance) {
            src.push_back(targetKeypoints[static_cast<size_t>(m[0].queryIdx)].pt);
            dst.push_back(keypoints[static_cast<size_t>(m[0].trainIdx)].pt);
          }
      }
      bool found = false;
      if (src.size() >= 4) {
        const cv::Mat H = cv::findHomography(src, dst, cv::RANSAC, 3.0);
        if (!H.empty()) {
          cv::perspectiveTransform(targetCorners, corners, H);
          found = true;
        }
      }
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      score.add(static_cast<int>(i), found ? &corners : nullptr, truth, ms);
    }
  }
  score.report(state);
  cv::setNumThreads(-1);
}
BENCHMARK(BM_SiftBaselineFullPass)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
