// The camera thread's frame time (issue 33; ../shared/DESIGN.md, "Threads and frame time"): the
// time nft::Session::process() takes per frame — p50, p90, p99 and the worst — with the detection
// lane in process() (tracking.async_detection off) and on the worker (on), on real clips given at
// their 30 frames/s as a camera gives them (the worker then has the time between frames, as in an
// app; unpaced, it would only compete with the camera thread):
//   tmt_bookI (800×600, 531 frames), cmu_book (640×480, 641), opencv-doc's box.mp4 (640×480, 455,
//   fast hand-held motion; the box's top face, tests/tracker/box_video.h), and cmu_book with four
//   more targets (the other targets searched for every tracking.search_every frames).
// Counters: p50_ms, p90_ms, p99_ms, max_ms of process() (nearest rank), found_pct (frames where
// the clip's target was reported found) and searches (frames with a search in flight, async).
// Run: build/release/tests/benchmarks/nft_frame_time_benchmark   (needs ../shared/data and
//      opencv-doc; about 2 minutes: every clip is played at 30 frames/s, twice)

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "benchmark_gpu.h"
#include "nft/nft.h"
#include "support/test_data.h"
#include "tracker/box_video.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

enum Clip { kTmtBook, kCmuBook, kBox, kCmuBookAmongFive };
const char* const kClipNames[] = {"tmt_bookI", "cmu_book", "box", "cmu_book_among_five"};

struct ClipData {
  std::vector<cv::Mat> frames;
  std::vector<std::pair<cv::Mat, std::string>> targets;  // the first is the one scored
};

std::vector<cv::Mat> readVideo(const fs::path& path) {
  cv::VideoCapture video(path.string());
  if (!video.isOpened()) throw std::runtime_error("cannot open " + path.string());
  std::vector<cv::Mat> frames;
  cv::Mat f;
  while (video.read(f)) frames.push_back(f.clone());
  return frames;
}

cv::Mat readImage(const fs::path& path) {
  cv::Mat m = cv::imread(path.string());
  if (m.empty()) throw std::runtime_error("cannot read " + path.string());
  return m;
}

const ClipData& clip(Clip c) {
  static std::map<Clip, ClipData> cache;
  auto it = cache.find(c);
  if (it != cache.end()) return it->second;
  ClipData d;
  const fs::path data = nft::testing::dataDir();
  const fs::path opencvData = "/usr/share/doc/opencv-doc/examples/data";
  switch (c) {
    case kTmtBook:
      d.frames = readVideo(data / "video/tmt_bookI/video.mp4");
      d.targets.emplace_back(readImage(data / "video/tmt_bookI/target.png"), "book");
      break;
    case kCmuBook:
    case kCmuBookAmongFive:
      d.frames = readVideo(data / "video/cmu_book/book.mp4");
      d.targets.emplace_back(readImage(data / "video/cmu_book/cv_cover.jpg"), "cover");
      if (c == kCmuBookAmongFive) {
        d.targets.emplace_back(readImage(data / "video/tmt_bookI/target.png"), "book");
        d.targets.emplace_back(readImage(data / "oxford/graf/img1.png"), "graf");
        d.targets.emplace_back(readImage(opencvData / "baboon.jpg"), "baboon");
        d.targets.emplace_back(readImage(opencvData / "fruits.jpg"), "fruits");
      }
      break;
    case kBox: {
      const fs::path video = nft::testing::unpackBoxVideo(fs::temp_directory_path() / "nft_frame_time_benchmark");
      d.frames = readVideo(video);
      d.targets.emplace_back(nft::testing::boxTopFaceTemplate(video), "box top face");
      break;
    }
  }
  return cache.emplace(c, std::move(d)).first->second;
}

double rank(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t r = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(r, 1, v.size()) - 1];
}

void BM_FrameTime(benchmark::State& state) {
  nft::benchmarks::benchmarkGpu();
  const Clip c = static_cast<Clip>(state.range(0));
  const bool async = state.range(1) != 0;
  const ClipData& data = clip(c);
  state.SetLabel(std::string(kClipNames[c]) + (async ? ", async" : ", in process()"));
  std::vector<double> ms;
  int found = 0, searching = 0;
  for (auto _ : state) {
    nft::SessionOptions o;
    o.config.tracking.asyncDetection = async ? nft::config::AsyncDetection::On : nft::config::AsyncDetection::Off;
    nft::Session session(o);
    for (const auto& [image, name] : data.targets) session.addTarget(image, name);
    const nft::TargetId scored = session.targets().front().id;
    const auto start = Clock::now();
    double seconds = 0;
    for (size_t i = 0; i < data.frames.size(); ++i) {
      std::this_thread::sleep_until(start + std::chrono::microseconds(static_cast<long long>(i) * 33'333));
      const auto t0 = Clock::now();
      const nft::FrameResult r = session.process(data.frames[i], static_cast<long long>(i) * 33'333'333);
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      seconds += s;
      ms.push_back(1000.0 * s);
      for (const nft::TargetResult& t : r.targets) found += t.id == scored && t.found ? 1 : 0;
      searching += r.searchInFlight ? 1 : 0;
    }
    state.SetIterationTime(seconds);
  }
  state.counters["p50_ms"] = rank(ms, 0.50);
  state.counters["p90_ms"] = rank(ms, 0.90);
  state.counters["p99_ms"] = rank(ms, 0.99);
  state.counters["max_ms"] = rank(ms, 1.0);
  state.counters["found_pct"] = 100.0 * found / static_cast<double>(ms.size());
  state.counters["searches"] = searching;
}
BENCHMARK(BM_FrameTime)
    ->ArgsProduct({{kTmtBook, kCmuBook, kBox, kCmuBookAmongFive}, {0, 1}})
    ->ArgNames({"clip", "async"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
