// Curved targets (issue 47, goal "tracker time per frame for a curved target <= 1.5x a planar
// target of the same image size"), timed as a same-run ratio (../shared/DESIGN.md, "Measuring"):
//
// - BM_CurvedAgainstPlanar/<preset>/<width>/<shape>: two public nft::Sessions with the default
//   configuration, in one process on one thread, frame by frame in turn: one follows opencv-doc's
//   graf1.png printed flat on the k-th POT preset's path (synthetic/synthetic_presets.h: 0 scale,
//   1 rotation, 2 perspective, 3 motion_blur, 4 occlusion, 5 out_of_view, 6 unconstrained), the
//   other the same image as a label around a can (shape 0, a cylinder of 3.3 cm) or a cup (shape 1,
//   a cone) on the same preset's path (synthetic/curved_sequence.h), trained on its surface. Both
//   at <width> × (480 or 720). Because the two alternate frame by frame, a machine that slows down
//   or speeds up slows both alike (these machines drift by ±40 % within minutes).
//   Counters: planar_ms and curved_ms (FrameTimings::total, the whole process() call, median over
//   the frames), ratio = curved_ms / planar_ms (the goal: <= 1.5), ratio_of_means (the same of
//   the means), planar_refine_ms / curved_refine_ms (FrameTimings::refine, the final refinement)
//   and planar_lane_ms / curved_lane_ms (the tracking lane: pyramid, coarse, fine, pose), medians;
//   planar_5px (share of the planar frames whose corners are within 5 px) and
//   curved_vis5px (share of the curved sequence's scored frames whose visible error is within
//   5 px, apps/eval/curved_eval.h): a ratio is worth reading only while both are tracked. The
//   default configuration detects on a worker thread where the machine has 2 cores, so these two
//   depend a little on the load; nft_eval with tracking.async_detection: off gives the exact ones.
// - BM_RefinePose/<n>: the curved lane's pose fit, tracker::refinePose, against
//   cv::solvePnPRefineLM on the same n points of a can (0.5 px of noise, the start 1° and 5 mm
//   off), alternating. Counters: ours_us, opencv_us (medians), ratio = ours_us / opencv_us.
// Run: build/<preset>/tests/benchmarks/nft_curved_benchmark [--benchmark_filter=preset:3/width:640/shape:0]
//   (no data folder needed: the sequences are synthesised from opencv-doc's images; 120 frames
//   each; one OpenCV thread: run it with taskset -c N on a shared machine).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include <chrono>
#include <cmath>
#include <random>

#include <opencv2/calib3d.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "apps/eval/curved_eval.h"
#include "nft/session.h"
#include "session/target_loader.h"
#include "synthetic/curved_sequence.h"
#include "synthetic/synthetic_sequence.h"
#include "tracker/camera_calibration.h"
#include "tracker/pose.h"
#include "tracker/preset_run.h"

namespace {

constexpr int kFrames = 120;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

void BM_CurvedAgainstPlanar(benchmark::State& state) {
  cv::setNumThreads(1);
  const nft::replay::SyntheticPreset preset = nft::replay::potPresets()[static_cast<size_t>(state.range(0))];
  const cv::Size size(static_cast<int>(state.range(1)), state.range(1) >= 1280 ? 720 : 480);
  const bool cup = state.range(2) == 1;

  nft::replay::SyntheticSequenceOptions po;
  po.preset = preset;
  po.frameSize = size;
  po.frames = kFrames;
  const nft::replay::SyntheticSequence planar(po);
  nft::replay::CurvedSequenceOptions co;
  co.shape = cup ? nft::replay::CurvedShape::Cup : nft::replay::CurvedShape::Can;
  co.motion = nft::replay::toString(preset);
  co.frameSize = size;
  co.frames = kFrames;
  const nft::replay::CurvedSequence curved(co);
  std::vector<cv::Mat> planarFrames, curvedFrames;  // rendered before timing anything
  for (int i = 0; i < kFrames; ++i) {
    planarFrames.push_back(planar.render(i));
    curvedFrames.push_back(curved.render(i));
  }

  nft::SessionOptions options;
  nft::Calibration calibration;  // both sequences' camera (tracker::defaultCalibration of the size)
  calibration.K = curved.cameraMatrix();
  calibration.imageSize = size;
  options.calibration = calibration;

  std::vector<double> planarMs, curvedMs, planarRefine, curvedRefine, planarLane, curvedLane;
  const auto lane = [](const nft::FrameTimings& t) { return t.pyramid + t.coarse + t.fine + t.trackingPose; };
  int planarWithin5 = 0, curvedWithin5 = 0, curvedScored = 0;
  for (auto _ : state) {
    nft::Session planarSession(options);
    planarSession.addTarget(planar.targetImage(), po.targetPath);
    nft::Session curvedSession(options);
    cv::Mat labelGrey;
    cv::cvtColor(curved.labelImage(), labelGrey, cv::COLOR_BGR2GRAY);
    nft::TargetOptions label;
    label.name = "label";
    label.widthMetres = curved.labelWidthM();
    label.geometry = nft::session::publicGeometry(curved.geometry());
    curvedSession.addTarget(labelGrey, label);
    const nft::detection::LabelSurface surface(curved.geometry(), curved.labelWidthM(), labelGrey.size());
    for (int i = 0; i < kFrames; ++i) {
      const nft::FrameResult p = planarSession.process(planarFrames[static_cast<size_t>(i)]);
      const nft::TargetResult& pt = p.targets.front();
      planarWithin5 += pt.found && nft::testing::cornerAlignmentError(pt.corners, planar.corners(i)) <= 5 ? 1 : 0;
      planarMs.push_back(p.timings.total);
      planarRefine.push_back(p.timings.refine);
      planarLane.push_back(lane(p.timings));
      const nft::FrameResult c = curvedSession.process(curvedFrames[static_cast<size_t>(i)]);
      const nft::TargetResult& ct = c.targets.front();
      const nft::eval::CurvedFrameScore score = nft::eval::scoreCurvedFrame(curved, i, surface, ct.found, ct.pose);
      curvedScored += score.scored ? 1 : 0;
      curvedWithin5 += score.scored && score.visibleErrorPx <= 5 ? 1 : 0;
      curvedMs.push_back(c.timings.total);
      curvedRefine.push_back(c.timings.refine);
      curvedLane.push_back(lane(c.timings));
    }
  }
  state.SetLabel(nft::replay::toString(preset) + (cup ? " cup " : " can ") + std::to_string(size.width) + "x" +
                 std::to_string(size.height));
  state.counters["planar_ms"] = median(planarMs);
  state.counters["curved_ms"] = median(curvedMs);
  state.counters["ratio"] = median(planarMs) > 0 ? median(curvedMs) / median(planarMs) : 0;
  state.counters["ratio_of_means"] = mean(planarMs) > 0 ? mean(curvedMs) / mean(planarMs) : 0;
  state.counters["planar_refine_ms"] = median(planarRefine);
  state.counters["curved_refine_ms"] = median(curvedRefine);
  state.counters["planar_lane_ms"] = median(planarLane);
  state.counters["curved_lane_ms"] = median(curvedLane);
  state.counters["planar_5px"] = static_cast<double>(planarWithin5) / static_cast<double>(planarMs.size());
  state.counters["curved_vis5px"] = curvedScored > 0 ? static_cast<double>(curvedWithin5) / curvedScored : 0;
  cv::setNumThreads(-1);
}
BENCHMARK(BM_CurvedAgainstPlanar)
    ->ArgsProduct({benchmark::CreateDenseRange(0, 6, 1), {640, 1280}, {0, 1}})
    ->ArgNames({"preset", "width", "shape"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

void BM_RefinePose(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const nft::tracker::CameraCalibration cal = nft::tracker::defaultCalibration({640, 480});
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.5);
  const cv::Vec3d rvec(0.1, 0.3, -0.05), tvec(0.004, -0.002, 0.2);
  std::vector<cv::Point3d> object;
  for (int i = 0; i < n; ++i) {
    const double a = CV_PI * (u(rng) - 0.5);
    object.emplace_back(0.033 * std::sin(a), 0.1 * (u(rng) - 0.5), 0.033 - 0.033 * std::cos(a));
  }
  std::vector<cv::Point2d> image;
  cv::projectPoints(object, rvec, tvec, cal.K, cal.distortion, image);
  for (cv::Point2d& p : image) p += cv::Point2d(noise(rng), noise(rng));
  const cv::Vec3d startR = rvec + cv::Vec3d(0, CV_PI / 180, 0), startT = tvec + cv::Vec3d(0.005, 0, 0);
  using Clock = std::chrono::steady_clock;
  std::vector<double> ours, opencv;
  for (auto _ : state) {
    cv::Vec3d r = startR, t = startT;
    auto start = Clock::now();
    nft::tracker::refinePose(cal, object, image, nullptr, r, t);
    ours.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    benchmark::DoNotOptimize(r);
    cv::Mat cr(startR), ct(startT);
    start = Clock::now();
    cv::solvePnPRefineLM(object, image, cal.K, cal.distortion, cr, ct);
    opencv.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    benchmark::DoNotOptimize(cr);
  }
  state.counters["ours_us"] = median(ours);
  state.counters["opencv_us"] = median(opencv);
  state.counters["ratio"] = median(opencv) > 0 ? median(ours) / median(opencv) : 0;
}
BENCHMARK(BM_RefinePose)->Arg(30)->Arg(100)->Arg(300)->Unit(benchmark::kMicrosecond);

}  // namespace
