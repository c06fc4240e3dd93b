// Camera sizes (issue 32; ../shared/DESIGN.md, "Camera sizes"), timed as same-run ratios:
//
// - BM_DetectionAtSize/<w>/<h>: one frame's search, the public nft::Session with the default
//   configuration and tracking off (every process() a detection: the working frame, FAST, the
//   descriptors and matching in passes, RANSAC, pose, the final refinement), on a real photograph
//   (plasma-workspace-wallpapers' "Path", a forest) with opencv-doc's graf1.png printed on it
//   covering 1/16 of the frame, at 640×480, 1280×720 and 1920×1080. Counters: median_ms, found
//   (share of the frames), vs_640x480 (median_ms over the 640×480 case's, measured in the same
//   run when the filter lets it run first): the goal is <= 2 at 1280×720; orb_ms, orb_found
//   and vs_orb = median_ms / orb_ms: OpenCV's per-frame ORB baseline (apps/eval/feature_baseline.h,
//   1000 features, ratio 0.8, RANSAC 3 px) on the same frames, alternating with ours (issue 46
//   item 2: vs_orb <= 0.5). One OpenCV thread: run it with taskset -c N on a shared machine.
// - BM_TrackingAtSize/<w>/<h>: the Session, default configuration, following the scale preset
//   (synthetic/synthetic_presets.h) at that size with the target covering 1/16 of the frame,
//   over 60 frames played forwards then backwards (no jump). Counters: median_ms
//   (FrameTimings::total), refine_ms (its final-refinement part), success_5px: the goal is
//   median_ms <= 3 at 1280×720.
// Run: build/<preset>/tests/benchmarks/nft_hd_frames_benchmark (no data folder needed).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "apps/eval/feature_baseline.h"
#include "nft/session.h"
#include "synthetic/synthetic_sequence.h"
#include "tracker/preset_run.h"

namespace {

const char* kPhoto = "/usr/share/wallpapers/Path/contents/images/1920x1080.jpg";
const char* kPoster = "/usr/share/doc/opencv-doc/examples/data/graf1.png";

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

cv::Mat readImage(const char* path) {
  cv::Mat m = cv::imread(path);
  if (m.empty()) throw std::runtime_error(std::string(path) + " is missing (scripts/install-deps.sh installs it)");
  return m;
}

/// Frames of a size: the photograph cropped to the size's aspect and scaled, the poster printed on
/// it at 1/16 of the frame's area, slightly tilted, at 8 places.
std::vector<cv::Mat> detectionFrames(cv::Size size) {
  const cv::Mat photo = readImage(kPhoto), poster = readImage(kPoster);
  const double aspect = static_cast<double>(size.width) / size.height;
  cv::Rect crop(0, 0, photo.cols, photo.rows);
  if (static_cast<double>(photo.cols) / photo.rows > aspect)
    crop.width = static_cast<int>(photo.rows * aspect), crop.x = (photo.cols - crop.width) / 2;
  else
    crop.height = static_cast<int>(photo.cols / aspect), crop.y = (photo.rows - crop.height) / 2;
  cv::Mat background;
  cv::resize(photo(crop), background, size, 0, 0, cv::INTER_AREA);
  const double side = std::sqrt(size.area() / 16.0);
  const double w = side * std::sqrt(1.25), h = side / std::sqrt(1.25);  // graf1 is 800 × 640
  std::vector<cv::Mat> frames;
  for (int k = 0; k < 8; ++k) {
    const double cx = w / 2 + (0.1 + 0.1 * k) * (size.width - w), cy = h / 2 + (0.8 - 0.09 * k) * (size.height - h);
    const cv::Point2f from[4] = {{0, 0}, {800, 0}, {800, 640}, {0, 640}};
    const float tilt = static_cast<float>(0.06 * w);
    const cv::Point2f to[4] = {{static_cast<float>(cx - w / 2 + tilt), static_cast<float>(cy - h / 2)},
                               {static_cast<float>(cx + w / 2 - tilt), static_cast<float>(cy - h / 2)},
                               {static_cast<float>(cx + w / 2), static_cast<float>(cy + h / 2)},
                               {static_cast<float>(cx - w / 2), static_cast<float>(cy + h / 2)}};
    cv::Mat frame = background.clone(), warped, mask;
    const cv::Mat H = cv::getPerspectiveTransform(from, to);
    cv::warpPerspective(poster, warped, H, size, cv::INTER_AREA);
    cv::warpPerspective(cv::Mat(poster.size(), CV_8UC1, cv::Scalar(255)), mask, H, size, cv::INTER_NEAREST);
    warped.copyTo(frame, mask);
    frames.push_back(frame);
  }
  return frames;
}

std::map<int, double> detectionMedians;  // by frame width, this run

void BM_DetectionAtSize(benchmark::State& state) {
  const cv::Size size(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const std::vector<cv::Mat> frames = detectionFrames(size);
  cv::setNumThreads(1);  // per core, as nft_eval --threads 1 and the ORB baseline
  nft::SessionOptions options;
  options.config.tracking.enabled = false;
  nft::Session session(options);
  session.addTarget(readImage(kPoster), "graf1");
  nft::eval::FeatureBaseline orb(nft::eval::BaselineKind::Orb, readImage(kPoster));
  std::vector<double> ms, orbMs;
  int found = 0, orbFound = 0, runs = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < frames.size(); ++i) {  // ours and ORB alternate which goes first
      nft::FrameResult r;
      nft::eval::FrameOutcome o;
      if (i % 2 == 0) {
        r = session.process(frames[i]);
        o = orb.find(frames[i]);
      } else {
        o = orb.find(frames[i]);
        r = session.process(frames[i]);
      }
      ms.push_back(r.timings.total);
      orbMs.push_back(o.ms);
      found += r.targets.front().found ? 1 : 0;
      orbFound += o.found ? 1 : 0;
      ++runs;
    }
  }
  const double m = median(ms);
  detectionMedians[size.width] = m;
  state.counters["median_ms"] = m;
  state.counters["found"] = static_cast<double>(found) / runs;
  state.counters["orb_ms"] = median(orbMs);
  state.counters["orb_found"] = static_cast<double>(orbFound) / runs;
  state.counters["vs_orb"] = m / median(orbMs);
  if (detectionMedians.count(640) && size.width != 640) state.counters["vs_640x480"] = m / detectionMedians[640];
}
BENCHMARK(BM_DetectionAtSize)->Args({640, 480})->Args({1280, 720})->Args({1920, 1080})->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_TrackingAtSize(benchmark::State& state) {
  nft::replay::SyntheticSequenceOptions o;
  o.preset = nft::replay::SyntheticPreset::Scale;
  o.frames = 60;
  o.frameSize = cv::Size(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  o.targetFraction = 1.0 / 16;
  const nft::replay::SyntheticSequence sequence(o);
  std::vector<cv::Mat> frames;
  for (int i = 0; i < o.frames; ++i) frames.push_back(sequence.render(i));
  std::vector<double> ms, refine;
  int within5 = 0, runs = 0;
  for (auto _ : state) {
    nft::Session session;
    session.addTarget(sequence.targetImage(), o.targetPath);
    for (int k = 0; k < 2 * o.frames; ++k) {  // forwards, then backwards
      const int i = k < o.frames ? k : 2 * o.frames - 1 - k;
      const nft::FrameResult r = session.process(frames[static_cast<size_t>(i)]);
      const nft::TargetResult& t = r.targets.front();
      if (t.state == nft::TrackingState::Tracking) ms.push_back(r.timings.total), refine.push_back(r.timings.refine);
      within5 += t.found && nft::testing::cornerAlignmentError(t.corners, sequence.corners(i)) <= 5 ? 1 : 0;
      ++runs;
    }
  }
  state.counters["median_ms"] = median(ms);
  state.counters["refine_ms"] = median(refine);
  state.counters["success_5px"] = static_cast<double>(within5) / runs;
}
BENCHMARK(BM_TrackingAtSize)->Args({640, 480})->Args({1280, 720})->Args({1920, 1080})->Iterations(2)->Unit(benchmark::kMillisecond);

}  // namespace
