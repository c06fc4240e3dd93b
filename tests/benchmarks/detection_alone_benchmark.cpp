// Detection alone against per-frame ORB (issue 46, item 2: the lane at <= 0.5 × ORB's time per
// frame, >= 84 % within 5 px), as `nft_eval tracking --config notrack.yaml --baselines orb
// --threads 1` measures it, in one process: every frame of tmt_bookI (800 × 600, decoded BGR as
// nft_eval gives them) through nft::Session::process() with the default configuration and
// tracking.enabled false (each frame a detection: the region around the last detection first,
// then the whole frame; each detection refined in its own frame), and through the OpenCV ORB
// baseline users would write (apps/eval/feature_baseline.h: 1000 features, ratio 0.8, RANSAC
// 3 px). One iteration = one pass over all 531 frames with a new Session, ours and ORB alternating
// which goes first on each frame; one OpenCV thread, llvmpipe on one thread.
// Counters (the last iteration's per-frame medians, ms): ours_ms (FrameTimings::total), orb_ms,
// ratio = ours_ms / orb_ms (the goal: <= 0.5), within5 / within10 (ours: share of frames with the
// corners within 5 / 10 px of gt.tsv, the data README's alignment error), orb_within5, and the
// medians of ours's stages (FrameTimings: convert, fast, describe, match, ransac, pose = the
// detection's pose, tracking = the tracking lane's refinement of the detection, refine = the
// final refinement).
// Run: build/release/tests/benchmarks/nft_detection_alone_benchmark --benchmark_repetitions=3
//      (needs ../shared/data; on a shared machine pin it: taskset -c 0)

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
#include "nft/session.h"
#include "suite/ground_truth.h"
#include "support/test_data.h"

namespace {

// One core for llvmpipe too: read by Mesa when the Session's context is made.
const bool kOneCore = [] {
  setenv("LP_NUM_THREADS", "1", 0);
  return true;
}();

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string data(const char* relative) { return (nft::testing::dataDir() / relative).string(); }

const std::vector<cv::Mat>& bgrFrames() {
  static const std::vector<cv::Mat> frames = [] {
    cv::VideoCapture video(data("video/tmt_bookI/video.mp4"));
    std::vector<cv::Mat> out;
    cv::Mat frame;
    while (video.read(frame)) out.push_back(frame.clone());
    return out;
  }();
  return frames;
}

void BM_DetectionAloneVsOrb(benchmark::State& state) {
  (void)kOneCore;
  if (!std::filesystem::exists(nft::testing::dataDir() / "video/tmt_bookI/video.mp4")) {
    state.SkipWithError("../shared/data/video/tmt_bookI missing");
    return;
  }
  cv::setNumThreads(1);
  const std::vector<cv::Mat>& frames = bgrFrames();
  const std::vector<nft::replay::QuadCorners> truth = nft::replay::loadGroundTruth(data("video/tmt_bookI/gt.tsv"));
  nft::eval::FeatureBaseline orb(nft::eval::BaselineKind::Orb, cv::imread(data("video/tmt_bookI/target.png")));
  nft::SessionOptions options;
  options.config.tracking.enabled = false;
  std::vector<double> ours, theirs;
  std::vector<std::vector<double>> stages(8);
  int within5 = 0, within10 = 0, orbWithin5 = 0;
  for (auto _ : state) {
    nft::Session session(options);
    const nft::TargetId id = session.addTarget(data("video/tmt_bookI/target.png"), "book");
    ours.clear();
    theirs.clear();
    for (std::vector<double>& v : stages) v.clear();
    within5 = within10 = orbWithin5 = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
      nft::FrameResult r;
      nft::eval::FrameOutcome o;
      if (i % 2 == 0) {
        r = session.process(frames[i]);
        o = orb.find(frames[i]);
      } else {
        o = orb.find(frames[i]);
        r = session.process(frames[i]);
      }
      ours.push_back(r.timings.total);
      const nft::FrameTimings& ft = r.timings;
      const double values[] = {ft.convert, ft.fast, ft.describe, ft.match, ft.ransac, ft.detectionPose,
                               ft.pyramid + ft.coarse + ft.fine + ft.trackingPose, ft.refine};
      for (size_t k = 0; k < stages.size(); ++k) stages[k].push_back(values[k]);
      theirs.push_back(o.ms);
      const nft::TargetResult* mine = nullptr;
      for (const nft::TargetResult& t : r.targets)
        if (t.id == id) mine = &t;
      const double e = mine != nullptr && mine->found ? nft::replay::alignmentError(truth.at(i), mine->corners) : 1e9;
      within5 += e <= 5 ? 1 : 0;
      within10 += e <= 10 ? 1 : 0;
      orbWithin5 += o.found && nft::replay::alignmentError(truth.at(i), o.corners) <= 5 ? 1 : 0;
    }
  }
  const double n = static_cast<double>(frames.size());
  state.counters["ours_ms"] = median(ours);
  state.counters["orb_ms"] = median(theirs);
  state.counters["ratio"] = median(ours) / median(theirs);
  state.counters["within5"] = within5 / n;
  state.counters["within10"] = within10 / n;
  state.counters["orb_within5"] = orbWithin5 / n;
  const char* names[] = {"convert_ms", "fast_ms", "describe_ms", "match_ms", "ransac_ms", "pose_ms", "tracking_ms",
                         "refine_ms"};
  for (size_t k = 0; k < stages.size(); ++k) state.counters[names[k]] = median(stages[k]);
}
BENCHMARK(BM_DetectionAloneVsOrb)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
