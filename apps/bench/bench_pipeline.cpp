// nft_bench's pipeline cases: the tracking and detection lanes, the renderer, the whole replay
// (see bench_cases.h).

#include <GLES2/gl2.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "apps/bench/bench_cases.h"
#include "apps/eval/feature_baseline.h"
#include "apps/eval/opencv_threads.h"
#include "apps/replay/frame_source.h"
#include "apps/replay/replay_session.h"
#include "render/offscreen_target.h"
#include "session/frame_renderer.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "suite/ground_truth.h"
#include "tracker/detection_lane.h"
#include "tracker/tracker.h"

namespace nft::bench {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

/// Runs fn() with stdout and stderr sent to /dev/null (the replay's own summary and messages
/// would break the table); restores them even when fn throws.
template <typename Fn>
void silenced(Fn&& fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  const int savedOut = dup(STDOUT_FILENO), savedErr = dup(STDERR_FILENO);
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
  }
  auto restore = [&] {
    std::fflush(stdout);
    std::fflush(stderr);
    if (savedOut >= 0) dup2(savedOut, STDOUT_FILENO), close(savedOut);
    if (savedErr >= 0) dup2(savedErr, STDERR_FILENO), close(savedErr);
  };
  try {
    fn();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

}  // namespace

void benchLanes(const BenchEnv& env) {
  const std::string trackingName = "tracking_lane/tmt_bookI", detectionName = "detection_lane/tmt_bookI";
  const std::string backendsName = "detection_lane/tmt_bookI/gpu_backends";
  if (!env.run.wantsAny({trackingName, detectionName, backendsName})) return;
  const std::string folder = "video/tmt_bookI/";
  if (const std::string missing = env.missingData({folder + "video.mp4", folder + "gt.tsv", folder + "target.png"});
      !missing.empty()) {
    env.skipAll({trackingName, detectionName, backendsName}, "lanes", missing);
    return;
  }
  const eval::OpenCvThreads one(1);
  // The target and options as nft_replay makes them (default config).
  // (The lanes are measured below the Session, with the pieces it uses: session/.)
  const config::Config defaults;
  const session::PipelineOptions options = session::pipelineOptions(defaults);
  const session::LoadedTarget target = session::loadTarget((env.dataDir / folder / "target.png").string(),
                                                           options, env.caps);
  const std::vector<replay::QuadCorners> truth = replay::loadGroundTruth((env.dataDir / folder / "gt.tsv").string());
  std::unique_ptr<replay::FrameSource> video = replay::openFrameSource((env.dataDir / folder / "video.mp4").string());

  // The tracking lane over consecutive frames (timed per frame as they are decoded); every 10th
  // frame kept for the detection lane and the baselines.
  const int trackedFrames = env.run.quick() ? 30 : static_cast<int>(truth.size());
  std::vector<cv::Mat> sampled;
  std::vector<double> trackingMs;
  int trackingFound = 0;
  std::optional<tracker::Tracker> tracker;
  cv::Mat frame;
  for (int i = 0; i < trackedFrames && video->read(frame); ++i) {
    if (i % 10 == 0) sampled.push_back(frame.clone());
    if (!env.run.wants(trackingName)) continue;
    if (!tracker) {
      tracker::TrackerOptions trackingOnly = options.tracker;
      trackingOnly.detectionEnabled = false;
      tracker.emplace(env.caps, target.model, session::cameraCalibration(defaults.camera, frame.size()),
                      trackingOnly);
      const float w = static_cast<float>(target.model.image.cols), h = static_cast<float>(target.model.image.rows);
      const std::vector<cv::Point2f> corners = {{0, 0}, {w, 0}, {w, h}, {0, h}};
      const std::vector<cv::Point2f> gt(truth[0].begin(), truth[0].end());
      tracker->initialise(cv::Matx33d(cv::getPerspectiveTransform(corners, gt)));
    }
    const auto start = Clock::now();
    const tracker::TrackResult r = tracker->track(frame);
    trackingMs.push_back(msSince(start));
    trackingFound += r.found ? 1 : 0;
  }
  if (sampled.empty()) throw std::runtime_error("no frames in '" + video->description() + "'");

  // Baselines: OpenCV ORB and SIFT + ratio test + RANSAC on every sampled frame.
  std::vector<Baseline> baselines;
  for (eval::BaselineKind kind : {eval::BaselineKind::Orb, eval::BaselineKind::Sift}) {
    eval::FeatureBaseline baseline(kind, target.model.image);
    baseline.find(sampled[0]);  // warm-up
    std::vector<double> ms;
    for (const cv::Mat& f : sampled) ms.push_back(baseline.find(f).ms);
    baselines.push_back({std::string("OpenCV ") + (kind == eval::BaselineKind::Orb ? "ORB" : "SIFT") +
                             " + ratio + RANSAC, per frame",
                         summarize(ms)});
  }

  if (env.run.wants(trackingName)) {
    Result r = makeResult(trackingName, "tracking_lane",
                          "Tracker::track, tracking lane only (NCC patches, coarse-to-fine, robust pose), per 800x600 "
                          "frame, initialised from gt.tsv frame 1, 1 OpenCV thread",
                          summarize(trackingMs), baselines);
    r.extra["frames"] = trackingMs.size();
    r.extra["found_fraction"] = static_cast<double>(trackingFound) / static_cast<double>(std::max<size_t>(1, trackingMs.size()));
    r.extra["baseline_frames"] = sampled.size();
    env.run.add(std::move(r), env.out);
  }
  if (env.run.wants(detectionName)) {
    tracker::DetectionLane lane(env.caps, target.model,
                                session::cameraCalibration(defaults.camera, sampled[0].size()),
                                options.tracker.detection);
    (void)lane.detect(sampled[0]);  // warm-up: llvmpipe compiles its shader variants
    std::vector<double> total, detect, describe, match, ransac, pose;
    int found = 0;
    for (const cv::Mat& f : sampled) {
      const auto start = Clock::now();
      found += lane.detect(f) ? 1 : 0;
      total.push_back(msSince(start));
      const tracker::DetectionTimings& t = lane.lastTimings();
      detect.push_back(t.detect);
      describe.push_back(t.describe);
      match.push_back(t.match);
      ransac.push_back(t.ransac);
      pose.push_back(t.pose);
    }
    Result r = makeResult(detectionName, "detection_lane",
                          "DetectionLane::detect (FAST, SURF-ES, GpuMatcher, MAGSAC, pose), every 10th 800x600 frame, "
                          "1 OpenCV thread",
                          summarize(total), baselines);
    r.extra["frames"] = sampled.size();
    r.extra["found_fraction"] = static_cast<double>(found) / static_cast<double>(sampled.size());
    r.extra["stages_ms"] = {{"detect", summarize(detect).median},   {"describe", summarize(describe).median},
                            {"match", summarize(match).median},     {"ransac", summarize(ransac).median},
                            {"pose", summarize(pose).median}};
    env.run.add(std::move(r), env.out);
  }
  if (env.run.wants(backendsName)) {
    // The same lane with both backends forced: SURF-ES + GpuMatcher against SurfCpu +
    // CpuMatcher (what `auto` picks on a software renderer), frame by frame in turn.
    auto laneWith = [&](detection::Backend backend) {
      tracker::DetectionLaneOptions o = options.tracker.detection;
      o.descriptorBackend = o.matcherBackend = backend;
      return std::make_unique<tracker::DetectionLane>(
          env.caps, target.model, session::cameraCalibration(defaults.camera, sampled[0].size()), o);
    };
    const std::unique_ptr<tracker::DetectionLane> gpu = laneWith(detection::Backend::Gpu);
    const std::unique_ptr<tracker::DetectionLane> cpu = laneWith(detection::Backend::Cpu);
    (void)gpu->detect(sampled[0]);  // warm-up: llvmpipe compiles its shader variants
    (void)cpu->detect(sampled[0]);
    std::vector<double> gpuMs, cpuMs;
    int gpuFound = 0, cpuFound = 0;
    for (const cv::Mat& f : sampled) {
      auto start = Clock::now();
      gpuFound += gpu->detect(f) ? 1 : 0;
      gpuMs.push_back(msSince(start));
      start = Clock::now();
      cpuFound += cpu->detect(f) ? 1 : 0;
      cpuMs.push_back(msSince(start));
    }
    Result r = makeResult(backendsName, "detection_lane",
                          "DetectionLane::detect with the GPU backends (SURF-ES, GpuMatcher), every 10th 800x600 "
                          "frame, 1 OpenCV thread",
                          summarize(gpuMs), {{"the same lane with the CPU backends (SurfCpu, CpuMatcher)", summarize(cpuMs)}});
    r.extra["frames"] = sampled.size();
    r.extra["found_fraction"] = static_cast<double>(gpuFound) / static_cast<double>(sampled.size());
    r.extra["cpu_found_fraction"] = static_cast<double>(cpuFound) / static_cast<double>(sampled.size());
    env.run.add(std::move(r), env.out);
  }
}

void benchRender(const BenchEnv& env) {
  const std::string readbackName = "render/640x480/readback", drawName = "render/640x480/draw";
  if (!env.run.wantsAny({readbackName, drawName})) return;
  const cv::Size size(640, 480);
  cv::Mat frame(size, CV_8UC3);
  cv::randu(frame, 0, 256);
  cv::GaussianBlur(frame, frame, {0, 0}, 3.0);
  detection::TargetModel model;
  model.image.create(440, 350, CV_8UC1);
  cv::randu(model.image, 0, 256);
  model.widthMetres = 0.187;
  const tracker::CameraCalibration calibration = tracker::defaultCalibration(size);
  // A typical tracked frame: the target 0.5 m away, tilted, with 60 inlier patches.
  TargetResult result;
  result.state = TrackingState::Tracking;
  result.found = true;
  result.pose.rvec = cv::Vec3d(0.35, -0.25, 0.1);
  result.pose.t = cv::Vec3d(-0.09, -0.11, 0.5);
  result.inliers = 60;
  for (int i = 0; i < 60; ++i)
    result.inlierFramePoints.emplace_back(static_cast<float>(200 + (i % 10) * 25), static_cast<float>(150 + (i / 10) * 30));

  session::FrameRenderer renderer(env.caps, calibration, model, render::AugmentationStyle{}, true);
  render::OffscreenTarget offscreen(env.caps, size.width, size.height);

  // Baseline: the same outline, box and axes drawn with OpenCV on a copy of the frame.
  const cv::Size2d t = session::targetSizeOf(model);
  const double side = 0.4 * t.width, cx = t.width / 2, cy = t.height / 2, height = side;
  std::vector<cv::Point3d> points = {{0, 0, 0}, {t.width, 0, 0}, {t.width, t.height, 0}, {0, t.height, 0}};
  for (double z : {0.0, -height})
    for (const auto& [dx, dy] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}})
      points.emplace_back(cx + dx * side / 2, cy + dy * side / 2, z);
  const double axis = 0.3 * t.width;
  for (const cv::Point3d& p : {cv::Point3d(axis, 0, 0), cv::Point3d(0, axis, 0), cv::Point3d(0, 0, -axis)})
    points.push_back(p);
  auto opencvDraw = [&](cv::Mat& canvas) {
    frame.copyTo(canvas);
    std::vector<cv::Point2d> image;
    cv::projectPoints(points, result.pose.rvec, result.pose.t, calibration.K, calibration.distortion, image);
    std::vector<cv::Point> p(image.begin(), image.end());
    for (int i = 0; i < 4; ++i) cv::line(canvas, p[static_cast<size_t>(i)], p[static_cast<size_t>((i + 1) % 4)], {0, 255, 255}, 2);
    for (int i = 0; i < 4; ++i) {
      const size_t a = 4 + static_cast<size_t>(i), b = 4 + static_cast<size_t>((i + 1) % 4);
      cv::line(canvas, p[a], p[b], {255, 128, 0}, 2);
      cv::line(canvas, p[a + 4], p[b + 4], {255, 128, 0}, 2);
      cv::line(canvas, p[a], p[a + 4], {255, 128, 0}, 2);
    }
    cv::line(canvas, p[0], p[12], {0, 0, 255}, 3);
    cv::line(canvas, p[0], p[13], {0, 255, 0}, 3);
    cv::line(canvas, p[0], p[14], {255, 0, 0}, 3);
    for (const cv::Point2f& q : result.inlierFramePoints) cv::circle(canvas, q, 2, {0, 255, 0}, -1);
    cv::putText(canvas, "TRACKING  30.0 fps  60 inliers", {8, 20}, cv::FONT_HERSHEY_SIMPLEX, 0.5, {255, 255, 255});
  };
  cv::Mat canvas, rgb;
  const Baseline opencv{"OpenCV projectPoints + line on a frame copy",
                        timeCalls(env.run.reps() * 3, env.run.warmup(), [&] { opencvDraw(canvas); })};

  for (const bool readback : {true, false}) {
    const std::string name = readback ? readbackName : drawName;
    if (!env.run.wants(name)) continue;
    Result r = makeResult(name, "render",
                          std::string("FrameRenderer::draw (upload, background, outline, textured quad, cube, axes, "
                                      "overlay)") +
                              (readback ? " + OffscreenTarget::read, as nft_replay renders" : " + glFinish, no readback") +
                              ", 640x480",
                          {}, {opencv});
    double fps = 30.0;
    r.ours = timeCalls(env.run.reps() * 3, env.run.warmup() + 3, [&] {
      cv::cvtColor(frame, rgb, cv::COLOR_BGR2RGB);  // as Session::render converts the frame it draws
      renderer.draw(rgb, &result, fps, offscreen.drawTarget());
      fps += 0.1;  // the status line changes every frame, as in a replay
      if (readback)
        canvas = offscreen.read();
      else
        glFinish();
    });
    env.run.add(std::move(r), env.out);
  }
}

void benchReplay(const BenchEnv& env) {
  const std::string noRenderName = "replay/cmu_book/no_render", renderName = "replay/cmu_book/render";
  if (!env.run.wantsAny({noRenderName, renderName})) return;
  const std::string video = "video/cmu_book/book.mp4", cover = "video/cmu_book/cv_cover.jpg";
  if (const std::string missing = env.missingData({video, cover}); !missing.empty()) {
    env.skipAll({noRenderName, renderName}, "replay", missing);
    return;
  }
  const double inputFps = replay::openFrameSource((env.dataDir / video).string())->fps();
  const std::filesystem::path report =
      std::filesystem::temp_directory_path() / ("nft_bench_" + std::to_string(getpid()) + "_replay.json");
  const int reps = env.run.quick() ? 1 : 3;
  struct Runs {
    std::vector<double> tracker, withRender, wall;
    int frames = 0;
    double found = 0;
  };
  auto replayRuns = [&](bool render) {
    Runs runs;
    for (int i = 0; i < reps; ++i) {
      replay::ReplayRequest request;
      request.target = (env.dataDir / cover).string();
      request.video = (env.dataDir / video).string();
      request.reportJson = report.string();
      request.noRender = !render;
      request.progressEvery = 0;
      if (env.run.quick()) request.maxFrames = 60;
      int status = 1;
      silenced([&] { status = replay::runReplay(request); });
      nlohmann::json j;
      std::ifstream in(report);
      if (in) j = nlohmann::json::parse(in, nullptr, false);
      std::filesystem::remove(report);
      if (status != 0 || j.is_discarded() || !j.value("completed", false))
        throw std::runtime_error("the replay of '" + request.video + "' failed: " +
                                 (j.is_object() && j["error"].is_string() ? j["error"].get<std::string>()
                                                                          : std::string("no report")));
      runs.tracker.push_back(j["fps"]["tracker"].get<double>());
      if (render) runs.withRender.push_back(j["fps"]["with_render"].get<double>());
      runs.wall.push_back(j["wall_fps"].get<double>());
      runs.frames = j["frames"].get<int>();
      runs.found = j["found_fraction"].get<double>();
    }
    return runs;
  };
  const Baseline realTime{"the input's frame rate (real time)", Timing{inputFps, inputFps, inputFps, 1}};
  const Runs noRender = replayRuns(false);
  const Timing noRenderFps = summarize(noRender.tracker);
  auto add = [&](const std::string& name, const std::string& what, const Runs& runs, const Timing& ours,
                 std::vector<Baseline> baselines) {
    Result r = makeResult(name, "replay", what, ours, std::move(baselines));
    r.unit = "fps";
    r.extra["frames"] = runs.frames;
    r.extra["found_fraction"] = runs.found;
    r.extra["tracker_fps"] = summarize(runs.tracker).median;
    r.extra["wall_fps"] = summarize(runs.wall).median;
    r.extra["replays"] = reps;
    env.run.add(std::move(r), env.out);
  };
  if (env.run.wants(noRenderName))
    add(noRenderName, "nft_replay --no-render of cmu_book (640x480): frames / the tracker's time", noRender,
        noRenderFps, {realTime});
  if (env.run.wants(renderName)) {
    const Runs rendering = replayRuns(true);
    add(renderName, "nft_replay of cmu_book rendering offscreen: frames / (tracker + rendering time)", rendering,
        summarize(rendering.withRender), {{"the same replay --no-render (tracker fps)", noRenderFps}, realTime});
  }
}

}  // namespace nft::bench
