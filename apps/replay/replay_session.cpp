#include "apps/replay/replay_session.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "apps/replay/progress.h"
#include "apps/replay/replay_report.h"
#include "apps/replay/synthetic_frame_source.h"
#include "session/target_loader.h"
#include "apps/replay/video_output.h"
#include "detection/backend.h"
#include "gpu/capabilities.h"
#include "gpu/gpu_error.h"
#include "suite/ground_truth.h"
#include "suite/pose_csv.h"

namespace nft::replay {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

nlohmann::json finiteOrNull(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

/// Everything the report says besides the statistics; filled as the run gets there.
struct RunInfo {
  std::string input, target, calibrationSource, renderer, glVersion, eglPlatform, configSource, configYaml;
  /// The detection lane's backends as configured (gpu | cpu | auto) and as resolved on this
  /// device (gpu | cpu), and whether the renderer is a software one (what `auto` looks at).
  std::string descriptorBackendRequested, descriptorBackend, matcherBackendRequested, matcherBackend;
  bool softwareRenderer = false;
  cv::Size frameSize, targetSize, targetOriginalSize;
  int targetKeypoints = 0, targetPatches = 0;
  double targetWidthM = 0, targetSeconds = 0;
  bool targetTrained = false;
  cv::Matx33d K = cv::Matx33d::eye();
  std::vector<std::string> warnings;
  double decodeMs = 0, encodeMs = 0, wallSeconds = 0;
  bool rendered = false;
  int glErrors = 0;          ///< GL error checks that found one (checkGlErrors)
  int targetCount = 1;       ///< targets looked for
  std::string scoredTarget;  ///< with several: the one statistics and ground truth follow
  std::map<std::string, int> foundFrames;  ///< with several: frames each target was found in
  std::string firstGlError;  ///< the first of them, with the frame
};

/// glGetError() is checked every this many frames and at the end of the run.
constexpr int kGlCheckEvery = 30;

/// Drains the GL error flags (gpu::checkGl): an error means a GL call of the frames since the last
/// check failed. Counted for the report; the first is printed. Not fatal: the run goes on.
void checkGlErrors(int frame, RunInfo& info) {
  try {
    gpu::checkGl(("GL error by frame " + std::to_string(frame)).c_str());
  } catch (const gpu::GpuError& e) {
    if (info.glErrors++ == 0) {
      info.firstGlError = e.what();
      std::fprintf(stderr, "nft_replay: warning: %s\n", e.what());
    }
  }
}

nlohmann::json reportJson(const ReplayStats& stats, const RunInfo& info, bool completed, const std::string& error) {
  nlohmann::json j = stats.toJson();
  j["completed"] = completed;
  j["error"] = error.empty() ? nlohmann::json(nullptr) : nlohmann::json(error);
  j["input"] = info.input;
  j["frame_size"] = {info.frameSize.width, info.frameSize.height};
  j["target"] = {{"source", info.target},
                 {"trained_here", info.targetTrained},
                 {"original_size", {info.targetOriginalSize.width, info.targetOriginalSize.height}},
                 {"model_size", {info.targetSize.width, info.targetSize.height}},
                 {"keypoints", info.targetKeypoints},
                 {"tracking_patches", info.targetPatches},
                 {"width_m", info.targetWidthM},
                 {"load_s", info.targetSeconds}};
  j["calibration"] = {{"source", info.calibrationSource},
                      {"fx", info.K(0, 0)},
                      {"fy", info.K(1, 1)},
                      {"cx", info.K(0, 2)},
                      {"cy", info.K(1, 2)}};
  if (info.targetCount > 1 || !info.scoredTarget.empty()) {
    j["target"]["name"] = info.scoredTarget;
    nlohmann::json all = nlohmann::json::object();
    for (const auto& [name, frames] : info.foundFrames) all[name] = {{"found_frames", frames}};
    j["targets"] = {{"count", info.targetCount}, {"found", all}};
  }
  j["renderer"] = info.renderer;
  j["detection_backends"] = {{"descriptor", info.descriptorBackend},
                             {"descriptor_requested", info.descriptorBackendRequested},
                             {"matcher", info.matcherBackend},
                             {"matcher_requested", info.matcherBackendRequested},
                             {"software_renderer", info.softwareRenderer}};
  j["gl_version"] = info.glVersion;
  j["egl_platform"] = info.eglPlatform;
  j["rendered"] = info.rendered;
  j["gl_errors"] = info.glErrors;
  j["gl_first_error"] = info.firstGlError.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.firstGlError);
  const int n = stats.frames();
  j["io_mean_ms"] = {{"decode", finiteOrNull(n > 0 ? info.decodeMs / n : NAN)},
                     {"encode", finiteOrNull(n > 0 ? info.encodeMs / n : NAN)}};
  j["wall_s"] = info.wallSeconds;
  j["wall_fps"] = finiteOrNull(info.wallSeconds > 0 ? n / info.wallSeconds : NAN);
  j["config_source"] = info.configSource;
  j["config"] = info.configYaml;
  j["warnings"] = info.warnings;
  return j;
}

void printSummary(const ReplayStats& stats, const RunInfo& info) {
  using TrackerState = TrackingState;
  const int n = stats.frames();
  // With several targets the statistics follow one (--gt-target, else the first): named here,
  // and every target found listed after, so that a database's first entry is not taken for all.
  const std::string scored = info.scoredTarget.empty() ? "target" : "target '" + info.scoredTarget + "'";
  std::printf("nft_replay: %d frames of %s, %s found in %.1f%% (detecting %d, tracking %d, lost %d); "
              "tracker %.1f fps",
              n, info.input.c_str(), scored.c_str(), n > 0 ? 100.0 * stats.found() / n : 0.0,
              stats.count(TrackerState::Detecting),
              stats.count(TrackerState::Tracking), stats.count(TrackerState::Lost),
              std::isfinite(stats.trackerFps()) ? stats.trackerFps() : 0.0);
  if (info.rendered) std::printf(", with rendering %.1f fps", std::isfinite(stats.pipelineFps()) ? stats.pipelineFps() : 0.0);
  std::printf(" (decode/encode excluded); wall %.1f s\n", info.wallSeconds);
  if (n > 0) {
    const FrameTimePercentiles p = stats.processMs();
    std::printf("nft_replay: process() time p50 %.2f, p90 %.2f, p99 %.2f, max %.2f ms\n", p.p50, p.p90, p.p99, p.max);
  }
  if (!info.scoredTarget.empty()) {
    std::vector<std::pair<std::string, int>> found(info.foundFrames.begin(), info.foundFrames.end());
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    constexpr size_t kListed = 5;
    std::string list;
    for (size_t i = 0; i < std::min(found.size(), kListed); ++i)
      list += (i > 0 ? ", " : "") + found[i].first + " " + std::to_string(found[i].second);
    if (found.size() > kListed) list += ", and " + std::to_string(found.size() - kListed) + " more";
    std::printf("nft_replay: frames each target was found in: %s\n", found.empty() ? "none found" : list.c_str());
  }
  if (stats.groundTruthFrames() > 0)
    std::printf("nft_replay: accuracy over %d ground-truth frames: success %.1f%% at 5 px, %.1f%% at 10 px, "
                "median alignment error %.2f px; by the visible error (%d frames): %.1f%% at 5 px, %.1f%% at 10 px, "
                "median %.2f px\n",
                stats.groundTruthFrames(), 100.0 * stats.successRate(5.0), 100.0 * stats.successRate(10.0),
                stats.medianErrorPx(), stats.visibleFrames(), 100.0 * stats.visibleSuccessRate(5.0),
                100.0 * stats.visibleSuccessRate(10.0), stats.medianVisibleErrorPx());
  std::fflush(stdout);
}

}  // namespace

SessionOptions sessionOptions(const std::string& configPath, const std::string& calibrationPath, bool liveCamera) {
  SessionOptions o = configPath.empty() ? SessionOptions{} : sessionOptionsFromFile(configPath);
  if (!calibrationPath.empty()) {
    if (!std::filesystem::is_regular_file(calibrationPath))
      throw std::runtime_error("calibration file '" + calibrationPath + "' does not exist");
    o.config.camera.calibration = calibrationPath;
  }
  if (o.config.tracking.asyncDetection == config::AsyncDetection::Auto && !liveCamera)
    o.config.tracking.asyncDetection = config::AsyncDetection::Off;
  return o;
}

void checkWritable(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec))
    throw std::runtime_error(what + " '" + path + "' is a folder: expected a file name");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(what + " '" + path + "': folder '" + dir.string() + "' does not exist");
  if (fs::exists(p, ec) ? ::access(path.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK) != 0)
    throw std::runtime_error(what + " '" + path + "' cannot be written: " +
                             (fs::exists(p, ec) ? "the file is read-only" : "folder '" + dir.string() + "' is not writable"));
}

int runReplay(const ReplayRequest& request) {
  const auto start = Clock::now();
  ReplayStats stats;
  RunInfo info;
  std::optional<PoseCsvWriter> csv;
  bool severalTargets = false;
  std::string error;
  bool completed = false;
  bool reportable = false;  // the report is written once the run got as far as its first frame
  try {
    const bool anyTarget = !request.target.empty() || !request.targetDatabase.empty();
    const bool initQuad = !request.initQuad.empty();
    if (initQuad && (anyTarget || !request.moreTargets.empty()))
      throw std::runtime_error("--init-quad makes the target from the first frame's quad: give no --target or --targets");
    if (initQuad && request.initQuad.size() != 8)
      throw std::runtime_error("--init-quad has " + std::to_string(request.initQuad.size()) +
                               " numbers: expected 8, x1,y1,x2,y2,x3,y3,x4,y4 (upper-left, upper-right, lower-right, "
                               "lower-left corners in frame pixels)");
    if (!initQuad && anyTarget != !request.video.empty())
      throw std::runtime_error("--target (or --targets) and --video go together (give both, or neither for the "
                               "built-in synthetic sequence)");
    if (request.target.empty() && !request.moreTargets.empty())
      throw std::runtime_error("the first --target is empty");
    // Every output is checked before the first frame: a typo in --report must not cost a whole run.
    if (!request.outVideo.empty()) checkWritable(request.outVideo, "--out");
    if (!request.posesCsv.empty()) checkWritable(request.posesCsv, "--poses");
    if (!request.reportJson.empty()) checkWritable(request.reportJson, "--report");
    SessionOptions sessionOptions = replay::sessionOptions(request.configPath, request.calibrationPath);
    if (request.asyncDelayFrames >= 0) sessionOptions.config.tracking.asyncDelayFrames = request.asyncDelayFrames;
    if (request.realtime) sessionOptions.config.tracking.asyncDetection = config::AsyncDetection::On;
    info.configSource = sessionOptions.configSource;
    info.configYaml = config::toYaml(sessionOptions.config);

    // Input first (cheap, and the most common mistake), then the GPU and the target.
    std::shared_ptr<const SyntheticSequence> synthetic;
    std::shared_ptr<const CurvedSequence> curved;
    std::unique_ptr<FrameSource> source;
    if (request.loops < 1) throw std::runtime_error("--loop must be at least 1, got " + std::to_string(request.loops));
    if (!request.syntheticGeometry.empty() && (!request.video.empty() || initQuad))
      throw std::runtime_error("--synthetic-geometry is the built-in sequence's: give no --video or --init-quad");
    if (request.video.empty() && !request.syntheticGeometry.empty()) {
      if (request.syntheticGeometry != "cylinder" && request.syntheticGeometry != "cone")
        throw std::runtime_error("--synthetic-geometry '" + request.syntheticGeometry + "': expected cylinder or cone");
      CurvedSequenceOptions o;
      o.shape = request.syntheticGeometry == "cone" ? CurvedShape::Cup : CurvedShape::Can;
      o.motion = request.syntheticMotion;
      o.frames = request.synthetic.frames;
      o.seed = request.synthetic.seed;
      o.frameSize = request.synthetic.frameSize;
      curved = std::make_shared<const CurvedSequence>(o);
      source = loopFrameSource([curved] { return std::make_unique<CurvedFrameSource>(curved); }, request.loops);
    } else if (request.video.empty()) {
      synthetic = std::make_shared<const SyntheticSequence>(request.synthetic);
      source = loopFrameSource([synthetic] { return std::make_unique<SyntheticFrameSource>(synthetic); }, request.loops);
    } else {
      source = loopFrameSource([&] { return openFrameSource(request.video); }, request.loops);
    }
    info.input = source->description();
    std::vector<QuadCorners> groundTruth;
    if (!request.groundTruth.empty())
      groundTruth = loadGroundTruth(request.groundTruth);
    else if (synthetic)
      groundTruth = synthetic->groundTruth();
    else if (curved)
      groundTruth = curvedGroundTruth(*curved);
    if (request.loops > 1) {  // the same frames again: the same ground truth
      const std::vector<QuadCorners> pass = groundTruth;
      for (int i = 1; i < request.loops; ++i) groundTruth.insert(groundTruth.end(), pass.begin(), pass.end());
    }

    Session session(sessionOptions);
    info.warnings = session.warnings();
    for (const std::string& w : info.warnings) std::fprintf(stderr, "nft_replay: warning: %s\n", w.c_str());
    info.renderer = session.gpuRenderer();
    {  // The detection backends: `auto` resolved as the detection lane resolves it.
      namespace det = nft::detection;
      const config::Config& c = session.config();
      info.softwareRenderer = gpu::isSoftwareRenderer(info.renderer);
      info.descriptorBackendRequested = std::string(config::toString(c.descriptor.backend));
      info.matcherBackendRequested = std::string(config::toString(c.matcher.backend));
      const auto resolved = [&](const std::string& requested) {
        return std::string(det::toString(det::resolveBackend(*det::parseBackend(requested), info.softwareRenderer)));
      };
      info.descriptorBackend = resolved(info.descriptorBackendRequested);
      info.matcherBackend = resolved(info.matcherBackendRequested);
      std::fprintf(stderr, "nft_replay: detection backends: descriptor %s (%s), matcher %s (%s) on %s\n",
                   info.descriptorBackend.c_str(), info.descriptorBackendRequested.c_str(),
                   info.matcherBackend.c_str(), info.matcherBackendRequested.c_str(), info.renderer.c_str());
    }
    info.glVersion = session.glVersion();
    info.eglPlatform = session.contextDescription();

    // The first frame fixes the frame size (the calibration is scaled to it); read after the
    // targets (a bad target file is the likelier mistake), but before them with --init-quad,
    // whose target it holds.
    cv::Mat frame;
    auto decodeStart = Clock::now();
    const auto readFirstFrame = [&] {
      decodeStart = Clock::now();
      if (!source->read(frame)) throw std::runtime_error("input '" + source->description() + "' has no frames");
      info.decodeMs += msSince(decodeStart);
      info.frameSize = frame.size();
    };
    if (initQuad) readFirstFrame();

    std::vector<TargetId> ids;
    double databaseSeconds = 0;
    if (initQuad) {
      std::vector<cv::Point2f> quad;
      for (size_t i = 0; i < 8; i += 2)
        quad.emplace_back(static_cast<float>(request.initQuad[i]), static_cast<float>(request.initQuad[i + 1]));
      ids.push_back(session.addTargetFromFrame(frame, quad, "init-quad"));
    } else if (synthetic) {
      ids.push_back(session.addTarget(synthetic->targetImage(), synthetic->options().targetPath));
    } else if (curved) {
      TargetOptions label;
      label.name = curved->options().labelPath;
      label.widthMetres = curved->labelWidthM();
      label.geometry = session::publicGeometry(curved->geometry());
      ids.push_back(session.addTarget(curved->labelImage(), label));
    } else {
      if (!request.target.empty()) ids.push_back(session.addTarget(request.target));
      for (const std::string& t : request.moreTargets) ids.push_back(session.addTarget(t));
      if (!request.targetDatabase.empty()) {
        const auto loadStart = Clock::now();
        for (TargetId id : session.loadDatabase(request.targetDatabase)) ids.push_back(id);
        databaseSeconds = std::chrono::duration<double>(Clock::now() - loadStart).count();
        std::fprintf(stderr, "nft_replay: target database %s: %zu targets loaded in %.2f s\n",
                     request.targetDatabase.c_str(), ids.size(), databaseSeconds);
      }
    }
    severalTargets = ids.size() > 1 || !request.targetDatabase.empty();
    TargetId scoredId = ids.front();
    if (!request.groundTruthTarget.empty()) {
      const auto named = std::find_if(ids.begin(), ids.end(),
                                      [&](TargetId id) { return session.target(id).name == request.groundTruthTarget; });
      if (named == ids.end())
        throw std::runtime_error("--gt-target '" + request.groundTruthTarget + "' names none of the targets");
      scoredId = *named;
    }
    const TargetInfo target = session.target(scoredId);
    info.target = initQuad ? "the first frame's quad (--init-quad)"
                  : synthetic ? synthetic->options().targetPath
                  : curved    ? curved->options().labelPath
                  : target.source == "<image>" ? target.name
                                               : target.source;
    if (severalTargets) {
      info.targetCount = static_cast<int>(ids.size());
      info.scoredTarget = target.name;
    }
    info.targetSize = target.imageSize;
    info.targetOriginalSize = target.originalSize;
    info.targetKeypoints = target.quality.keypoints;
    info.targetPatches = target.trackingPatches;
    info.targetWidthM = target.widthMetres;
    info.targetSeconds = databaseSeconds > 0 ? databaseSeconds : target.loadSeconds;
    info.targetTrained = target.trained;
    std::fprintf(stderr, "nft_replay: target %s: %dx%d, %d keypoints, %d tracking patches (%s in %.2f s)\n",
                 info.target.c_str(), info.targetSize.width, info.targetSize.height, info.targetKeypoints,
                 info.targetPatches, target.trained ? "trained" : "loaded", info.targetSeconds);
    if (!initQuad) readFirstFrame();

    if (!request.posesCsv.empty()) csv.emplace(request.posesCsv, severalTargets);
    const bool render = !request.noRender && session.config().render.enabled;
    info.rendered = render;
    std::optional<VideoOutput> video;
    if (!request.outVideo.empty()) {
      const config::OutputConfig& out = session.config().output;
      const double fps = out.videoFps > 0 ? out.videoFps : source->fps() > 0 ? source->fps() : 30.0;
      video.emplace(request.outVideo, out.codec, fps, frame.size());
    }
    reportable = true;

    ProgressLine progress(request.maxFrames > 0 && (source->frameCount() < 0 || request.maxFrames < source->frameCount())
                              ? request.maxFrames
                              : source->frameCount(),
                          request.progressEvery);
    stats.reserve(request.maxFrames > 0 && (source->frameCount() < 0 || request.maxFrames < source->frameCount())
                      ? request.maxFrames
                      : source->frameCount());
    cv::Mat output;
    bool stoppedEarly = false;  // by --frames, before the input's end
    // --realtime: frame i is given to the Session at i / fps after the first, as a camera would.
    const double realtimeFps = source->fps() > 0 ? source->fps() : 30.0;
    const auto clockStart = Clock::now();
    for (int index = 0;; ++index) {
      if (request.realtime)
        std::this_thread::sleep_until(clockStart + std::chrono::duration_cast<Clock::duration>(
                                                       std::chrono::duration<double>(index / realtimeFps)));
      if (frame.size() != info.frameSize)
        throw std::runtime_error("frame " + std::to_string(index) + " of '" + source->description() + "' is " +
                                 sizeText(frame.size()) + " but the replay started at " + sizeText(info.frameSize) +
                                 ": every frame must have the first frame's size");
      const FrameResult result = session.process(frame);
      if (index == 0) {  // the Session fixed the camera on the first frame
        const Calibration calibration = *session.calibration();
        info.calibrationSource = calibration.source;
        info.K = calibration.K;
      }
      if (csv) csv->write(index, result);
      // The target the ground truth and the statistics follow; with several, the others are counted.
      static const TargetResult kNotReported;
      const TargetResult* scored = &kNotReported;
      for (const TargetResult& t : result.targets) {
        if (t.id == scoredId) scored = &t;
        if (severalTargets && t.found) ++info.foundFrames[t.name];
      }
      const TargetResult& r = *scored;

      std::optional<double> alignment, visible;
      if (static_cast<size_t>(index) < groundTruth.size() && annotated(groundTruth[static_cast<size_t>(index)])) {
        const QuadCorners& truth = groundTruth[static_cast<size_t>(index)];
        const bool quad = r.found && r.corners.size() == 4;
        alignment = quad ? alignmentError(truth, r.corners) : std::numeric_limits<double>::infinity();
        visible = visibleError(truth, quad ? r.corners : std::vector<cv::Point2f>(), frame.size());
      }

      double renderMs = 0;
      if (render) {
        const auto renderStart = Clock::now();
        output = session.renderToImage(result);
        renderMs = msSince(renderStart);
      } else {
        output = frame;
      }
      if (severalTargets) {
        FrameResult scoredFrame;
        scoredFrame.timings = result.timings;
        if (scored != &kNotReported) scoredFrame.targets.push_back(*scored);
        stats.add(scoredFrame, renderMs, alignment, visible);
      } else {
        stats.add(result, renderMs, alignment, visible);
      }
      if (video) {
        const auto encodeStart = Clock::now();
        video->write(output);
        info.encodeMs += msSince(encodeStart);
      }
      progress.update(stats);
      if ((index + 1) % kGlCheckEvery == 0) checkGlErrors(index, info);

      if (request.maxFrames > 0 && index + 1 >= request.maxFrames) {
        stoppedEarly = true;
        break;
      }
      decodeStart = Clock::now();
      if (!source->read(frame)) break;
      info.decodeMs += msSince(decodeStart);
    }
    checkGlErrors(stats.frames() - 1, info);
    if (video) video->close();
    if (!stoppedEarly && !groundTruth.empty() && groundTruth.size() != static_cast<size_t>(stats.frames())) {
      // Success rates cover the frames both have; a mismatch usually means the wrong gt file.
      const std::string w = "ground truth has " + std::to_string(groundTruth.size()) + " frames, the input " +
                            std::to_string(stats.frames()) + ": accuracy over the " +
                            std::to_string(std::min(groundTruth.size(), static_cast<size_t>(stats.frames()))) +
                            " frames both have";
      std::fprintf(stderr, "nft_replay: warning: %s\n", w.c_str());
      info.warnings.push_back(w);
    }
    completed = true;
  } catch (const std::exception& e) {
    error = e.what();
  }
  info.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();

  int status = 0;
  if (!error.empty()) {
    std::fprintf(stderr, "nft_replay: %s\n", error.c_str());
    if (stats.frames() > 0)
      std::fprintf(stderr, "nft_replay: stopped after %d frames; the outputs hold those frames\n", stats.frames());
    status = 1;
  }
  if (completed) printSummary(stats, info);
  if (!request.reportJson.empty() && reportable) {
    try {
      writeJsonAtomically(reportJson(stats, info, completed, error), request.reportJson);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nft_replay: %s\n", e.what());
      status = 1;
    }
  }
  return status;
}

}  // namespace nft::replay
