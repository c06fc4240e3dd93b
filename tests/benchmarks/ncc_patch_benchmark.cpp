// The tracking lane's two kernels (tracker/ncc_patch.h) against what a user would write from
// OpenCV for the same job, in the same run, on a synthetic texture (no data needed):
// - BM_WarpPatch: one iteration = 64 templates of 8 × 8 level pixels warped from the target into
//   the frame by a mild perspective homography (warpPatchInto, level 0, no streak);
//   BM_OpenCvWarpPatch: the same 64 patches by cv::warpPerspective (WARP_INVERSE_MAP, bilinear)
//   into an 8 × 8 image each, then their mean and deviation (cv::meanStdDev).
// - BM_SearchNcc/R: one iteration = those 64 templates searched by searchNcc within ±R pixels
//   (clipped to the image, as the lane calls it); BM_OpenCvMatchTemplate/R: cv::matchTemplate (TM_CCOEFF_NORMED) of the
//   same 8-bit patches over the same windows, then cv::minMaxLoc.
// The ratio ours / OpenCV is what to read (these machines are noisy); run on one core:
//   taskset -c 1 build/release/tests/benchmarks/nft_tracker_benchmark --benchmark_filter='Warp|Ncc|Match'

#include <benchmark/benchmark.h>

#include <vector>

#include <opencv2/imgproc.hpp>

#include "tracker/ncc_patch.h"

namespace {

using nft::tracker::PatchTemplate;

constexpr int kPatch = 8;

/// The target (a blurred uniform-noise texture, 640 × 480), its pyramid, the frame (the target
/// seen through H), H⁻¹ and the 64 patch centres (an 8 × 8 grid over the frame's middle).
struct Scene {
  cv::Mat target, frame;
  std::vector<cv::Mat> pyramid;
  cv::Matx33d H, Hinv;
  std::vector<cv::Point> centres;
  std::vector<cv::Mat> patches8u;  // the frame's own 8 × 8 window at each centre, for OpenCV
  Scene() {
    target.create(480, 640, CV_8UC1);
    cv::RNG rng(7);
    rng.fill(target, cv::RNG::UNIFORM, 0, 256);
    cv::GaussianBlur(target, target, cv::Size(), 1.5);
    cv::buildPyramid(target, pyramid, 3);
    H = cv::Matx33d(0.9, 0.05, 30, -0.04, 0.92, 20, 5e-5, 2e-5, 1);
    Hinv = H.inv();
    cv::warpPerspective(target, frame, cv::Mat(H), target.size());
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) {
        const cv::Point c(160 + 40 * i, 120 + 30 * j);
        centres.push_back(c);
        patches8u.push_back(frame(cv::Rect(c.x - kPatch / 2, c.y - kPatch / 2, kPatch, kPatch)).clone());
      }
  }
};

const Scene& scene() {
  static const Scene s;
  return s;
}

void BM_WarpPatch(benchmark::State& state) {
  const Scene& s = scene();
  PatchTemplate patch;
  int valid = 0;
  for (auto _ : state)
    for (const cv::Point& c : s.centres) {
      nft::tracker::warpPatchInto(s.pyramid, s.Hinv, c, 0, kPatch, cv::Point2d(0, 0), patch);
      valid += patch.valid ? 1 : 0;
      benchmark::DoNotOptimize(patch.values.data());
    }
  state.counters["valid_per_iteration"] = static_cast<double>(valid) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_WarpPatch)->Unit(benchmark::kMicrosecond);

void BM_OpenCvWarpPatch(benchmark::State& state) {
  const Scene& s = scene();
  cv::Mat out;
  cv::Scalar mean, deviation;
  for (auto _ : state)
    for (const cv::Point& c : s.centres) {
      // Destination pixel (i, j) is frame pixel c − size/2 + (i, j): shift, then into the target.
      const cv::Matx33d shift(1, 0, c.x - kPatch / 2, 0, 1, c.y - kPatch / 2, 0, 0, 1);
      cv::warpPerspective(s.target, out, cv::Mat(s.Hinv * shift), cv::Size(kPatch, kPatch),
                          cv::INTER_LINEAR | cv::WARP_INVERSE_MAP);
      cv::meanStdDev(out, mean, deviation);
      benchmark::DoNotOptimize(deviation[0]);
    }
}
BENCHMARK(BM_OpenCvWarpPatch)->Unit(benchmark::kMicrosecond);

void BM_SearchNcc(benchmark::State& state) {
  const Scene& s = scene();
  const int radius = static_cast<int>(state.range(0));
  std::vector<PatchTemplate> templates;
  for (const cv::Point& c : s.centres) templates.push_back(nft::tracker::warpPatch(s.pyramid, s.Hinv, c, 0, kPatch));
  int found = 0;
  for (auto _ : state)
    for (size_t k = 0; k < templates.size(); ++k) {
      if (!templates[k].valid) continue;
      const nft::tracker::NccPeak peak = nft::tracker::searchNcc(s.frame, templates[k], s.centres[k], radius, true);
      found += peak.found ? 1 : 0;
      benchmark::DoNotOptimize(peak);
    }
  state.counters["found_per_iteration"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SearchNcc)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

void BM_OpenCvMatchTemplate(benchmark::State& state) {
  const Scene& s = scene();
  const int radius = static_cast<int>(state.range(0));
  cv::Mat scores;
  for (auto _ : state)
    for (size_t k = 0; k < s.centres.size(); ++k) {
      const cv::Point c = s.centres[k];
      const int side = kPatch + 2 * radius;
      const cv::Mat window = s.frame(cv::Rect(c.x - kPatch / 2 - radius, c.y - kPatch / 2 - radius, side, side));
      cv::matchTemplate(window, s.patches8u[k], scores, cv::TM_CCOEFF_NORMED);
      double best = 0;
      cv::Point at;
      cv::minMaxLoc(scores, nullptr, &best, nullptr, &at);
      benchmark::DoNotOptimize(best);
    }
}
BENCHMARK(BM_OpenCvMatchTemplate)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

}  // namespace
