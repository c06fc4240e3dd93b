// The Session's overhead (issue goal: ≤ 2 % of the tracker's per-frame time): all 531 frames of
// tmt_bookI (800×600 grey) through nft::Session::process() and through tracker::Tracker::track()
// called directly, with the same target model, options and GL context, in the same process.
// One iteration = one pass of each, in alternating order (the first pass of an iteration runs on
// colder caches); only the per-frame calls are timed.
// Counters: tracker_ms, session_ms (mean per frame), overhead_pct = 100 · (session / tracker − 1).
// Run: build/release/tests/benchmarks/nft_session_benchmark --benchmark_repetitions=5
//      --benchmark_report_aggregates_only=true   (needs ../shared/data)

#include <benchmark/benchmark.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "benchmark_gpu.h"
#include "tmt_gray_frames.h"
#include "gpu/capabilities.h"
#include "nft/session.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "support/test_data.h"
#include "tracker/tracker.h"

namespace {

using Clock = std::chrono::steady_clock;

const std::vector<cv::Mat>& grayFrames() { return nft::benchmarks::tmtGrayFrames(); }

std::string targetPath() { return (nft::testing::dataDir() / "video/tmt_bookI/target.png").string(); }

/// Seconds of the per-frame calls of one pass over every frame.
double trackerPass(const nft::gpu::Capabilities& caps, const nft::session::LoadedTarget& target,
                   const nft::session::PipelineOptions& options) {
  const std::vector<cv::Mat>& frames = grayFrames();
  nft::tracker::Tracker tracker(caps, target.model,
                                nft::session::cameraCalibration(nft::config::Config{}.camera, frames[0].size()),
                                options.tracker);
  double seconds = 0;
  for (const cv::Mat& f : frames) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(tracker.track(f));
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
  return seconds;
}

double sessionPass() {
  nft::SessionOptions o;
  o.adoptCurrentContext = true;  // the same context as the direct tracker
  nft::Session session(o);
  session.addTarget(targetPath(), "book");
  double seconds = 0;
  long long t = 0;
  for (const cv::Mat& f : grayFrames()) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(session.process(f, t += 33'333'333));
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
  return seconds;
}

void BM_SessionOverhead(benchmark::State& state) {
  nft::benchmarks::benchmarkGpu();
  cv::setNumThreads(1);
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  const nft::session::PipelineOptions options = nft::session::pipelineOptions(nft::config::Config{});
  const nft::session::LoadedTarget target = nft::session::loadTarget(targetPath(), options, caps);
  (void)trackerPass(caps, target, options);  // warm-up: llvmpipe compiles its shader variants
  double trackerSeconds = 0, sessionSeconds = 0;
  bool sessionFirst = false;
  for (auto _ : state) {
    double tr = 0, se = 0;
    if (sessionFirst) {
      se = sessionPass();
      tr = trackerPass(caps, target, options);
    } else {
      tr = trackerPass(caps, target, options);
      se = sessionPass();
    }
    sessionFirst = !sessionFirst;
    trackerSeconds += tr;
    sessionSeconds += se;
    state.SetIterationTime(tr + se);
  }
  const double frames = static_cast<double>(grayFrames().size()) * static_cast<double>(state.iterations());
  state.counters["tracker_ms"] = 1000.0 * trackerSeconds / frames;
  state.counters["session_ms"] = 1000.0 * sessionSeconds / frames;
  state.counters["overhead_pct"] = 100.0 * (sessionSeconds / trackerSeconds - 1.0);
}
BENCHMARK(BM_SessionOverhead)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(4);

}  // namespace
