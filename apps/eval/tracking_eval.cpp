// Our tracker and the OpenCV baselines over a video with ground truth (see tracking_eval.h).

#include "apps/eval/tracking_eval.h"

#include "apps/replay/replay_report.h"

#include <algorithm>
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
#include <opencv2/imgproc.hpp>

#include "apps/eval/opencv_threads.h"
#include "apps/replay/frame_source.h"
#include "apps/replay/replay_session.h"
#include "apps/replay/synthetic_frame_source.h"
#include "detection/target_model_io.h"
#include "nft/session.h"
#include "session/frame_quad.h"
#include "suite/ground_truth.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::eval {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string formatDouble(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

void checkFolderOf(const std::string& file, const char* what) {
  if (file.empty()) return;
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder))
    throw std::runtime_error(std::string("folder '") + folder.string() + "' of the " + what + " '" + file +
                             "' does not exist");
}

/// The per-frame CSV, written as the run goes.
class FrameCsv {
 public:
  explicit FrameCsv(const std::string& path) : path_(path), out_(path) {
    if (!out_) throw std::runtime_error("cannot write per-frame file '" + path + "'");
    out_ << "frame,method,found,error_px,ms,ulx,uly,urx,ury,lrx,lry,llx,lly,visible_error_px\n";
  }
  void write(int frame, const std::string& method, bool found, double errorPx, double ms,
             const std::vector<cv::Point2f>& corners, double visibleErrorPx) {
    const auto error = [](double e) {
      return std::isnan(e) ? std::string() : std::isfinite(e) ? formatDouble("%.4f", e) : std::string("inf");
    };
    out_ << frame << ',' << method << ',' << (found ? 1 : 0) << ',' << error(errorPx) << ',' << formatDouble("%.3f", ms);
    for (size_t i = 0; i < 4; ++i) {
      if (found && corners.size() == 4)
        out_ << ',' << formatDouble("%.2f", corners[i].x) << ',' << formatDouble("%.2f", corners[i].y);
      else
        out_ << ",,";
    }
    out_ << ',' << error(visibleErrorPx) << '\n';
    if (!out_) throw std::runtime_error("error while writing per-frame file '" + path_ + "'");
  }

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace

double medianOf(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return std::isinf(upper) ? upper : 0.5 * (lower + upper);
}

int MethodResult::scored() const {
  return static_cast<int>(std::count_if(errorPx.begin(), errorPx.end(), [](double e) { return !std::isnan(e); }));
}

double MethodResult::successRate(double thresholdPx) const {
  const int n = scored();
  if (n == 0) return 0.0;
  const auto ok = std::count_if(errorPx.begin(), errorPx.end(), [&](double e) { return e <= thresholdPx; });
  return static_cast<double>(ok) / static_cast<double>(n);
}

int MethodResult::successIn(int first, int last, double thresholdPx) const {
  int n = 0;
  for (int f = std::max(first, 1); f <= last && f <= frames(); ++f)
    n += errorPx[static_cast<size_t>(f - 1)] <= thresholdPx ? 1 : 0;
  return n;
}

double MethodResult::medianErrorPx() const {
  std::vector<double> scoredErrors;
  for (const double e : errorPx)
    if (!std::isnan(e)) scoredErrors.push_back(e);
  return medianOf(scoredErrors);
}

double MethodResult::visibleSuccessRate(double thresholdPx) const {
  const auto n = std::count_if(visibleErrorPx.begin(), visibleErrorPx.end(), [](double e) { return !std::isnan(e); });
  if (n == 0) return 0.0;
  const auto ok = std::count_if(visibleErrorPx.begin(), visibleErrorPx.end(), [&](double e) { return e <= thresholdPx; });
  return static_cast<double>(ok) / static_cast<double>(n);
}

double MethodResult::medianVisibleErrorPx() const {
  std::vector<double> scoredErrors;
  for (const double e : visibleErrorPx)
    if (!std::isnan(e)) scoredErrors.push_back(e);
  return medianOf(scoredErrors);
}

double MethodResult::medianMs() const { return medianOf(ms); }

double MethodResult::trackedFraction() const {
  return errorPx.empty() ? 0.0 : static_cast<double>(found) / static_cast<double>(errorPx.size());
}

std::vector<std::pair<double, double>> successCurve(const MethodResult& method, double maxPx, double stepPx) {
  if (!(stepPx > 0 && stepPx <= maxPx))
    throw std::invalid_argument("success curve: need 0 < step (" + formatDouble("%g", stepPx) + ") <= max (" +
                                formatDouble("%g", maxPx) + ")");
  std::vector<std::pair<double, double>> curve;
  const int steps = static_cast<int>(std::floor(maxPx / stepPx + 1e-9));
  for (int i = 0; i <= steps; ++i) {
    const double t = i * stepPx;
    curve.emplace_back(t, method.successRate(t));
  }
  return curve;
}

TrackingReport evaluateTracking(const TrackingRequest& request) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  checkFolderOf(request.perFrameCsv, "per-frame file");

  // Cheap inputs first, so a typo fails before the GPU and the training.
  SessionOptions sessionOptions = replay::sessionOptions(request.configPath, request.calibrationPath);
  sessionOptions.eglPlatform = request.platform;
  if (request.asyncDelayFrames >= 0) sessionOptions.config.tracking.asyncDelayFrames = request.asyncDelayFrames;
  std::shared_ptr<const replay::SyntheticSequence> synthetic;
  std::vector<replay::QuadCorners> truth;
  std::unique_ptr<replay::FrameSource> source;
  if (!request.preset.empty()) {
    replay::SyntheticSequenceOptions o;
    const std::optional<replay::SyntheticPreset> preset = replay::parseSyntheticPreset(request.preset);
    if (!preset)
      throw std::runtime_error("unknown preset '" + request.preset + "' (expected one of " +
                               replay::syntheticPresetNames() + ")");
    o.preset = *preset;
    o.frames = request.syntheticFrames;
    o.frameSize = request.syntheticSize;
    o.targetFraction = request.targetFraction;
    synthetic = std::make_shared<const replay::SyntheticSequence>(o);
    truth = synthetic->groundTruth();
    source = std::make_unique<replay::SyntheticFrameSource>(synthetic);
  } else {
    truth = request.groundTruth.empty() ? request.truth : replay::loadGroundTruth(request.groundTruth);
    source = replay::openFrameSource(request.video);
    if (request.initQuad && (!request.target.empty() || !request.targetDatabase.empty()))
      throw std::runtime_error("the first frame's quad is the target: give no target or target database");
    if (request.initQuad && (truth.empty() || !replay::annotated(truth.front())))
      throw std::runtime_error("the first frame has no ground-truth quad to start from");
    if (!request.initQuad && request.targetDatabase.empty() && !std::filesystem::is_regular_file(request.target))
      throw std::runtime_error("target '" + request.target +
                               "' does not exist (expected an image or a .nftm model file)");
  }
  if (!request.targetDatabase.empty() && !std::filesystem::is_regular_file(request.targetDatabase))
    throw std::runtime_error("target database '" + request.targetDatabase + "' does not exist");

  const OpenCvThreads threads(request.threads);
  Session ours(sessionOptions);

  TrackingReport report;
  report.input = source->description();
  report.renderer = ours.gpuRenderer();
  report.warnings = ours.warnings();
  // A database first (recognition among its targets); the scored target is then a file added
  // to them, or one of them by name.
  std::optional<TargetId> scoredId;
  if (!request.targetDatabase.empty()) {
    const std::vector<TargetId> loaded = ours.loadDatabase(request.targetDatabase);
    std::fprintf(stderr, "nft_eval: target database %s: %zu targets\n", request.targetDatabase.c_str(), loaded.size());
    if (!synthetic && !std::filesystem::is_regular_file(request.target)) {
      for (const TargetId id : loaded)
        if (ours.target(id).name == request.target) scoredId = id;
      if (!scoredId)
        throw std::runtime_error("target '" + request.target + "' is neither a file nor a target of the database '" +
                                 request.targetDatabase + "'");
      if (!request.baselines.empty())
        throw std::runtime_error("target '" + request.target +
                                 "' is a database target, whose image the OpenCV baselines do not have: give the "
                                 "image as --target, or --baselines none");
    }
  }
  // POT's start: the first frame holds the target (read now, scored from the second frame on).
  cv::Mat frame;
  if (!source->read(frame)) throw std::runtime_error("input '" + source->description() + "' has no frames");
  cv::Mat baselineTarget;
  const std::string targetName = request.initQuad ? "the first frame's quad"
                                 : synthetic      ? synthetic->options().targetPath
                                                  : request.target;
  if (!scoredId && request.initQuad) {
    const replay::QuadCorners& q = truth.front();
    const std::vector<cv::Point2f> quad(q.begin(), q.end());
    scoredId = ours.addTargetFromFrame(frame, quad, "init-quad");
    cv::Mat gray = frame;
    if (frame.channels() == 3) cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);
    baselineTarget = session::rectifyQuad(gray, quad);
  }
  if (!scoredId)
    scoredId = synthetic ? ours.addTarget(synthetic->targetImage(), targetName) : ours.addTarget(request.target);
  const TargetInfo target = ours.target(*scoredId);
  report.target = targetName;
  std::fprintf(stderr, "nft_eval: target %s: %dx%d, %d keypoints, %d tracking patches (%s in %.2f s)\n",
               targetName.c_str(), target.imageSize.width, target.imageSize.height, target.quality.keypoints,
               target.trackingPatches, target.trained ? "trained" : "loaded", target.loadSeconds);

  // The baselines see the image the user gave (a model file: its working image); corners are
  // that image's, the same physical corners as the model's.
  if (!request.baselines.empty() && baselineTarget.empty()) {  // (a database target: refused above)
    if (synthetic)
      cv::cvtColor(synthetic->targetImage(), baselineTarget, cv::COLOR_BGR2GRAY);
    else
      baselineTarget = target.trained ? cv::imread(request.target, cv::IMREAD_GRAYSCALE)
                                      : detection::loadTargetModel(request.target).image;
  }
  std::vector<FeatureBaseline> baselines;
  for (BaselineKind kind : request.baselines) {
    baselines.emplace_back(kind, baselineTarget, request.baselineOptions);
    std::fprintf(stderr, "nft_eval: baseline %s: %d target keypoints\n", baselines.back().name().c_str(),
                 baselines.back().targetKeypoints());
  }

  report.methods.push_back({"ours", {}, {}, 0, {}});
  for (const FeatureBaseline& b : baselines) report.methods.push_back({b.name(), {}, {}, 0, {}});
  std::optional<FrameCsv> csv;
  if (!request.perFrameCsv.empty()) csv.emplace(request.perFrameCsv);

  const cv::Size frameSize = frame.size();
  int total = source->frameCount();
  if (total < 0 || static_cast<size_t>(total) > truth.size()) total = static_cast<int>(truth.size());
  if (request.maxFrames > 0) total = std::min(total, request.maxFrames);
  int index = 0;
  for (; index < total; ++index) {
    if (index > 0 && !source->read(frame)) break;
    if (frame.size() != frameSize)
      throw std::runtime_error("frame " + std::to_string(index + 1) + " of '" + source->description() + "' is " +
                               std::to_string(frame.cols) + "x" + std::to_string(frame.rows) +
                               " but the first is " + std::to_string(frameSize.width) + "x" +
                               std::to_string(frameSize.height));
    const replay::QuadCorners& gt = truth[static_cast<size_t>(index)];
    const bool scored = replay::annotated(gt) && !(request.initQuad && index == 0);
    auto score = [&](MethodResult& m, bool found, const std::vector<cv::Point2f>& corners, double ms) {
      const bool quad = found && corners.size() == 4;
      const double e = !scored ? std::numeric_limits<double>::quiet_NaN()
                       : quad  ? replay::alignmentError(gt, corners)
                               : kInf;
      const double visible = !scored ? std::numeric_limits<double>::quiet_NaN()
                                     : replay::visibleError(gt, quad ? corners : std::vector<cv::Point2f>(), frameSize);
      m.errorPx.push_back(e);
      m.visibleErrorPx.push_back(visible);
      m.ms.push_back(ms);
      m.found += found ? 1 : 0;
      if (csv) csv->write(index + 1, m.method, found, e, ms, corners, visible);
    };
    const FrameResult r = ours.process(frame);
    const TargetResult* mine = nullptr;  // with several targets, only reported ones are listed
    for (const TargetResult& t : r.targets)
      if (t.id == *scoredId) mine = &t;
    score(report.methods[0], mine != nullptr && mine->found, mine != nullptr ? mine->corners : std::vector<cv::Point2f>(),
          r.timings.total);
    for (size_t b = 0; b < baselines.size(); ++b) {
      const FrameOutcome o = baselines[b].find(frame);
      score(report.methods[b + 1], o.found, o.corners, o.ms);
    }
    if (request.progressEvery > 0 && (index + 1) % request.progressEvery == 0) {
      std::string line = "nft_eval: frame " + std::to_string(index + 1) + "/" + std::to_string(total) +
                         " success at 5 px:";
      for (const MethodResult& m : report.methods)
        line += " " + m.method + " " + formatDouble("%.1f%%", 100.0 * m.successRate(5.0));
      line += formatDouble(" (%.1f s)", std::chrono::duration<double>(Clock::now() - start).count());
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }
  report.frames = index;
  report.scored = report.methods.front().scored();
  if (request.maxFrames <= 0 && static_cast<size_t>(index) != truth.size()) {
    const std::string w = "ground truth has " + std::to_string(truth.size()) + " frames, " + std::to_string(index) +
                          " were scored (the input has " + std::to_string(source->frameCount()) + ")";
    std::fprintf(stderr, "nft_eval: warning: %s\n", w.c_str());
    report.warnings.push_back(w);
  }
  return report;
}

void writeCurveCsv(const std::string& path, const TrackingReport& report, double maxPx, double stepPx) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write curve file '" + path + "'");
  out << "method,threshold_px,success_rate\n";
  for (const MethodResult& m : report.methods)
    for (const auto& [t, rate] : successCurve(m, maxPx, stepPx))
      out << m.method << ',' << formatDouble("%g", t) << ',' << formatDouble("%.6f", rate) << '\n';
  out.flush();
  if (!out) throw std::runtime_error("error while writing curve file '" + path + "'");
}

void printTrackingSummary(std::ostream& out, const TrackingReport& report, int subsetFirst, int subsetLast) {
  out << "\n" << report.input << ": " << report.frames << " frames with ground truth";
  if (report.scored != report.frames) out << ", " << report.scored << " scored";
  out << " (" << report.renderer << ")\n";
  const bool subset = subsetFirst > 0 && subsetLast >= subsetFirst;
  char line[256];
  std::snprintf(line, sizeof line, "  %-6s %9s %9s %12s %9s %12s %8s %10s %8s %8s", "method", "<=5px", "<=10px",
                "median err", "vis<=5px", "vis median", "found", "ms/frame", "p99 ms", "max ms");
  out << line;
  std::string subsetHeader;
  if (subset) subsetHeader = "frames " + std::to_string(subsetFirst) + "-" + std::to_string(subsetLast) + " <=10px";
  out << (subset ? "  " + subsetHeader : std::string()) << "\n";
  // A median of failures is inf; the visible error's of no frame scored, "-".
  const auto pixels = [](double median, const char* none) {
    return std::isfinite(median) ? formatDouble("%.2f px", median) : std::string(std::isnan(median) ? none : "inf");
  };
  for (const MethodResult& m : report.methods) {
    const replay::FrameTimePercentiles p = replay::frameTimePercentiles(m.ms);
    std::snprintf(line, sizeof line, "  %-6s %8.1f%% %8.1f%% %12s %8.1f%% %12s %7.1f%% %10.2f %8.2f %8.2f",
                  m.method.c_str(), 100.0 * m.successRate(5.0), 100.0 * m.successRate(10.0),
                  pixels(m.medianErrorPx(), "inf").c_str(), 100.0 * m.visibleSuccessRate(5.0),
                  pixels(m.medianVisibleErrorPx(), "-").c_str(), 100.0 * m.trackedFraction(), m.medianMs(), p.p99, p.max);
    out << line;
    if (subset) {
      const int count = std::max(0, std::min(subsetLast, m.frames()) - subsetFirst + 1);
      std::snprintf(line, sizeof line, "  %*d / %d", static_cast<int>(subsetHeader.size()) - 6,
                    m.successIn(subsetFirst, subsetLast, 10.0), count);
      out << line;
    }
    out << "\n";
  }
}

}  // namespace nft::eval
