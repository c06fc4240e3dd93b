#pragma once
// nft_bench's cases, one function per part of the pipeline. Each measures the library's own code
// path (the APIs nft_replay runs, not the Google Benchmark programs of tests/benchmarks) and the
// baseline users would otherwise pick, in the same run, and records a bench::Result per case
// name that --filter selects. A case whose real data (../shared/data) is missing is recorded as
// skipped, naming the missing file.

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "apps/bench/bench_run.h"
#include "gpu/capabilities.h"

namespace nft::bench {

/// What every case needs. The GL context is current on the calling thread.
struct BenchEnv {
  const gpu::Capabilities& caps;
  std::filesystem::path dataDir;  ///< ../shared/data or --data / $NFT_DATA_DIR
  BenchRun& run;
  std::ostream& out;              ///< the text table

  /// "" when every file (relative to dataDir) exists, else "real data missing: <path> ...".
  std::string missingData(const std::vector<std::string>& relatives) const;
  /// Records every name of `names` that --filter selects as skipped with `reason`.
  void skipAll(const std::vector<std::string>& names, const std::string& group, const std::string& reason) const;
};

/// SurfEs (extract(), upload included, readback excluded; per pass from a profiled call) on
/// oxford/graf img1 at 512×384 (the thesis's test), both storage paths, SURF-64 and SURF-36,
/// 256–4096 scale-aware FAST keypoints; baseline SurfCpu on the same keypoints, 1 thread and all
/// threads. Cases "surf_es/<rgba8|float>/<surf64|surf36>/n<count>"; and the CPU lane alone,
/// "surf_cpu/<surf64|surf36>/n<count>/all_threads" against one thread.
void benchSurf(const BenchEnv& env);

/// The box reads of SurfEs (issue 36), SURF-64 of graf img1 at 512×384 with 1020 scale-aware
/// FAST keypoints, extract() with upload and glFinish: the default (boxTaps 2, quarter boxes from
/// the box pyramid) against boxTaps 1 (one lookup per box), boxTaps 2 with four quarter-box
/// lookups, and SurfCpu on one thread, timed in interleaved rounds (each round runs all four).
/// Cases "surf_es_boxes/<float|rgba8>/<upright|oriented>/n1020"; a storage the GPU lacks is
/// skipped, naming why.
void benchSurfBoxes(const BenchEnv& env);

/// GpuMatcher (SurfEs queries left on the GPU, ratio test 0.8, compact readback, glFinish)
/// against cv::BFMatcher(NORM_L2).knnMatch k = 2 + the ratio test on 1 and 2 threads, SURF-64 of
/// oxford/graf: 1000 queries (img3) × 1000 targets (img1) and × 8192 targets (img1, 2, 4, 5, 6).
/// Cases "matcher/1000x1000", "matcher/1000x8192".
void benchMatcher(const BenchEnv& env);

/// FastDetector::detect (scale-aware FAST, 4 levels, 1000 keypoints, one thread) on frame 100 of
/// video/cmu_book/book.mp4 (640×480 grey); baselines cv::FAST on the full frame (one level) and
/// cv::ORB's detector (1000 keypoints, 8 levels). Case "fast/cmu_book_640x480".
void benchFast(const BenchEnv& env);

/// The lanes on video/tmt_bookI (800×600, target.png trained as nft_replay trains it): the
/// tracking lane per frame (Tracker without detection, initialised from gt.tsv's first frame)
/// and DetectionLane::detect per frame (every 10th frame, per-stage medians); baselines the
/// OpenCV ORB and SIFT + ratio + RANSAC detectors of apps/eval/feature_baseline.h on every 10th
/// frame. One OpenCV thread. Cases "tracking_lane/tmt_bookI", "detection_lane/tmt_bookI"; and
/// "detection_lane/tmt_bookI/gpu_backends": the lane with both backends forced to the GPU
/// (SURF-ES, GpuMatcher) against both forced to the CPU (SurfCpu, CpuMatcher), alternating per
/// frame (issue 36: on a real GPU the GPU backends should win).
void benchLanes(const BenchEnv& env);

/// The replay's rendering of one 640×480 frame (apps/replay/frame_renderer.h: upload, background,
/// outline, textured quad, cube, axes, overlay; then OffscreenTarget::read, and without the
/// readback) against drawing the outline, cube and axes with OpenCV (projectPoints + line) on a
/// copy of the frame. Needs no data. Cases "render/640x480/readback", "render/640x480/draw".
void benchRender(const BenchEnv& env);

/// The whole replay (apps/replay/replay_session.h, as nft_replay runs it) of video/cmu_book,
/// --no-render and rendering: frames/s of the tracker (and wall frames/s, decoding included, as
/// extra), against the input's own frame rate (real time) and, rendering, against the
/// --no-render replay of the same run. Cases "replay/cmu_book/no_render", "replay/cmu_book/render".
void benchReplay(const BenchEnv& env);

}  // namespace nft::bench
