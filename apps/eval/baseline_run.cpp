// A per-frame OpenCV baseline with nft_replay's inputs and outputs (see baseline_run.h).

#include "apps/eval/baseline_run.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>

#include "apps/eval/opencv_threads.h"
#include "apps/replay/frame_source.h"
#include "apps/replay/replay_report.h"
#include "detection/target_model_io.h"
#include "suite/ground_truth.h"
#include "suite/pose_csv.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::eval {
namespace {

namespace fs = std::filesystem;

void checkFolderOf(const std::string& file, const char* what) {
  if (file.empty()) return;
  const fs::path folder = fs::path(file).parent_path();
  if (!folder.empty() && !fs::is_directory(folder))
    throw std::runtime_error(std::string("folder '") + folder.string() + "' of the " + what + " '" + file +
                             "' does not exist");
}

/// The target image the baseline matches against: the image, or a model's working image.
cv::Mat loadTargetImage(const std::string& path) {
  if (!fs::is_regular_file(path))
    throw std::runtime_error("target '" + path + "' does not exist (expected an image or a .nftm model file)");
  if (fs::path(path).extension() == ".nftm") return detection::loadTargetModel(path).image;
  cv::Mat image = cv::imread(path, cv::IMREAD_GRAYSCALE);
  if (image.empty()) throw std::runtime_error("cannot read target image '" + path + "'");
  return image;
}

/// The pose CSV's row of a baseline frame: corners, inliers and time; no pose (the baselines
/// find a homography only). `skipped`: a frame not run.
std::string poseRow(int index, const FrameOutcome* outcome) {
  std::string row = std::to_string(index) + ",";
  if (outcome == nullptr) return row + "skipped,,,,,,,,,,,,,,,,,";
  const bool found = outcome->found && outcome->corners.size() == 4;
  row += found ? "detecting" : "lost";
  char text[64];
  for (int k = 0; k < 4; ++k) {
    if (found) {
      std::snprintf(text, sizeof text, ",%.3f,%.3f", static_cast<double>(outcome->corners[static_cast<size_t>(k)].x),
                    static_cast<double>(outcome->corners[static_cast<size_t>(k)].y));
      row += text;
    } else {
      row += ",,";
    }
  }
  row += ",,,,,,,";  // rx, ry, rz, tx, ty, tz: none
  row += found ? std::to_string(outcome->inliers) : std::string();
  std::snprintf(text, sizeof text, ",,%.3f", outcome->ms);  // reproj_px: none
  return row + text;
}

std::string percent(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * j[key].get<double>());
  return text;
}

std::string pixels(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f px", j[key].get<double>());
  return text;
}

}  // namespace

nlohmann::json runBaseline(const BaselineRunRequest& request) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const bool clip = !request.target.empty() || !request.video.empty() || !request.groundTruth.empty();
  if (request.preset.empty() ? request.target.empty() || request.video.empty() : clip)
    throw std::invalid_argument("give --target and --video (and --gt), or --synthetic-preset alone");
  if (request.every < 1) throw std::invalid_argument("--every " + std::to_string(request.every) + ": expected >= 1");
  checkFolderOf(request.posesCsv, "pose CSV");
  checkFolderOf(request.reportJson, "report");

  std::shared_ptr<const replay::SyntheticSequence> synthetic;
  std::unique_ptr<replay::FrameSource> source;
  std::vector<replay::QuadCorners> truth;
  cv::Mat target;
  std::string input, targetName;
  int total = -1;  // frames to read (-1: to the end)
  if (!request.preset.empty()) {
    const std::optional<replay::SyntheticPreset> preset = replay::parseSyntheticPreset(request.preset);
    if (!preset)
      throw std::invalid_argument("unknown preset '" + request.preset + "' (expected one of " +
                                  replay::syntheticPresetNames() + ")");
    replay::SyntheticSequenceOptions o;
    o.preset = *preset;
    o.frameSize = request.syntheticSize;
    o.targetFraction = request.targetFraction;
    o.frames = request.syntheticFrames;
    synthetic = std::make_shared<const replay::SyntheticSequence>(o);
    truth = synthetic->groundTruth();
    target = synthetic->targetImage();
    targetName = o.targetPath;
    total = synthetic->frameCount();
    input = "synthetic (" + std::to_string(o.frameSize.width) + "x" + std::to_string(o.frameSize.height) +
            ", seed " + std::to_string(o.seed) + ", preset " + request.preset + ")";
  } else {
    target = loadTargetImage(request.target);
    targetName = request.target;
    if (!request.groundTruth.empty()) truth = replay::loadGroundTruth(request.groundTruth);
    source = replay::openFrameSource(request.video);
    input = source->description();
  }
  if (request.maxFrames > 0) total = total < 0 ? request.maxFrames : std::min(total, request.maxFrames);

  const OpenCvThreads threads(request.threads);
  FeatureBaseline baseline(request.kind, target, request.options);
  std::optional<std::ofstream> csv;
  if (!request.posesCsv.empty()) {
    csv.emplace(request.posesCsv);
    if (!*csv) throw std::runtime_error("cannot write pose CSV '" + request.posesCsv + "'");
    *csv << replay::kPoseCsvHeader << '\n';
  }

  replay::ReplayStats stats;
  cv::Size frameSize;
  cv::Mat frame;
  int index = 0;
  for (; total < 0 || index < total; ++index) {
    const bool run = index % request.every == 0;
    if (synthetic) {
      if (run) frame = synthetic->render(index);
    } else if (!source->read(frame)) {
      break;
    }
    if (index == 0) frameSize = synthetic ? synthetic->frameSize() : frame.size();
    if (!run) {
      if (csv) *csv << poseRow(index, nullptr) << '\n';
      continue;
    }
    const FrameOutcome o = baseline.find(frame);
    const bool quad = o.found && o.corners.size() == 4;
    std::optional<double> alignment, visible;
    if (static_cast<size_t>(index) < truth.size() && replay::annotated(truth[static_cast<size_t>(index)])) {
      const replay::QuadCorners& t = truth[static_cast<size_t>(index)];
      alignment = quad ? replay::alignmentError(t, o.corners) : std::numeric_limits<double>::infinity();
      visible = replay::visibleError(t, quad ? o.corners : std::vector<cv::Point2f>(), frame.size());
    }
    FrameResult result;
    result.frame = index;
    result.frameSize = frame.size();
    TargetResult t;
    t.name = targetName;
    t.found = quad;
    t.state = quad ? TrackingState::Detecting : TrackingState::Lost;
    if (quad) t.corners = o.corners;
    t.inliers = o.inliers;
    result.targets.push_back(t);
    result.timings.total = o.ms;
    stats.add(result, 0, alignment, visible);
    if (csv) {
      *csv << poseRow(index, &o) << '\n';
      if (!*csv) throw std::runtime_error("error while writing pose CSV '" + request.posesCsv + "'");
    }
    if (request.progressEvery > 0 && stats.frames() % request.progressEvery == 0)
      std::fprintf(stderr, "nft_eval: %s frame %d: found in %d of %d frames run (%.1f s)\n", baseline.name().c_str(),
                   index + 1, stats.found(), stats.frames(),
                   std::chrono::duration<double>(Clock::now() - start).count());
  }
  if (csv) {
    csv->flush();
    if (!*csv) throw std::runtime_error("error while writing pose CSV '" + request.posesCsv + "'");
  }
  if (index == 0) throw std::runtime_error("input '" + input + "' has no frames");

  nlohmann::json report = stats.toJson();
  report["method"] = baseline.name();
  report["every"] = request.every;
  report["frames_read"] = index;
  report["input"] = input;
  report["target"] = targetName;
  report["frame_size"] = {frameSize.width, frameSize.height};
  report["wall_s"] = std::chrono::duration<double>(Clock::now() - start).count();
  if (!request.reportJson.empty()) replay::writeJsonAtomically(report, request.reportJson);
  return report;
}

std::string baselineSummary(const nlohmann::json& report) {
  char line[512];
  const int every = report.value("every", 1);
  const std::string which = every == 1 ? "every frame" : "one frame in " + std::to_string(every);
  std::snprintf(line, sizeof line, "%s on %s of %s: %d of %d frames run, target found in %s",
                report.value("method", "?").c_str(), which.c_str(), report.value("input", "?").c_str(),
                report.value("frames", 0), report.value("frames_read", 0), percent(report, "found_fraction").c_str());
  std::string out = line;
  if (report.contains("ground_truth") && report["ground_truth"].is_object()) {
    const nlohmann::json& gt = report["ground_truth"];
    std::snprintf(line, sizeof line,
                  "; accuracy over %d ground-truth frames: success %s at 5 px, %s at 10 px, median %s; by the "
                  "visible error: %s at 5 px, median %s",
                  gt.value("frames", 0), percent(gt, "success_5px").c_str(), percent(gt, "success_10px").c_str(),
                  pixels(gt, "median_error_px").c_str(), percent(gt, "visible_success_5px").c_str(),
                  pixels(gt, "median_visible_error_px").c_str());
    out += line;
  }
  return out;
}

}  // namespace nft::eval
