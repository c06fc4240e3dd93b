// A curved target's synthetic sequence tracked with its curved and with a planar model (see curved_eval.h).

#include "apps/eval/curved_eval.h"

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

#include <opencv2/imgproc.hpp>

#include "apps/eval/opencv_threads.h"
#include "apps/eval/tracking_eval.h"
#include "apps/replay/replay_report.h"
#include "apps/replay/replay_session.h"
#include "nft/session.h"
#include "session/target_loader.h"

namespace nft::eval {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kGrid = 10;           // the visible error's 10 × 10 label points
constexpr int kMinVisible = 25;     // a quarter of them seen, at most kFrontalDeg off: the frame is scored
constexpr double kFrontalDeg = 60;
constexpr double kFoundAgainPx = 5;  // found again: a visible error this small

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// The scored frames' values of one error.
template <typename Field>
std::vector<double> scoredValues(const std::vector<CurvedFrameScore>& frames, Field field) {
  std::vector<double> v;
  for (const CurvedFrameScore& f : frames)
    if (f.scored) v.push_back(field(f));
  return v;
}

}  // namespace

CurvedFrameScore scoreCurvedFrame(const replay::CurvedSequence& sequence, int index, const detection::LabelSurface& model,
                                  bool found, const Pose& pose) {
  CurvedFrameScore score;
  score.found = found;
  std::vector<cv::Point2f> seen;
  const cv::Size label = sequence.labelImage().size();
  for (int i = 0; i < kGrid; ++i)
    for (int j = 0; j < kGrid; ++j) {
      const cv::Point2f p(static_cast<float>((i + 0.5) * label.width / kGrid),
                          static_cast<float>((j + 0.5) * label.height / kGrid));
      if (sequence.visible(index, p)) seen.push_back(p);
      score.frontalPoints += sequence.visible(index, p, kFrontalDeg) ? 1 : 0;
    }
  score.visiblePoints = static_cast<int>(seen.size());
  score.scored = score.frontalPoints >= kMinVisible;
  if (!score.scored) {
    score.visibleErrorPx = score.rotationDeg = score.translationPct = kNaN;
    return score;
  }
  if (!found) {
    score.visibleErrorPx = score.rotationDeg = score.translationPct = kInf;
    return score;
  }
  const std::vector<cv::Point2f> truth = sequence.project(index, seen);
  const cv::Matx33d& K = sequence.cameraMatrix();
  double sum = 0;
  for (size_t k = 0; k < seen.size(); ++k) {
    const cv::Point3d x = model.point(seen[k]);
    const cv::Vec3d q = K * (pose.R * cv::Vec3d(x.x, x.y, x.z) + pose.t);
    // A point the result puts behind the camera is as far off as a failure.
    sum += q[2] > 0 ? cv::norm(cv::Point2d(q[0] / q[2], q[1] / q[2]) - cv::Point2d(truth[k])) : kInf;
  }
  score.visibleErrorPx = sum / static_cast<double>(seen.size());
  const replay::SyntheticSequence::TargetPose gt = sequence.targetPose(index);
  score.rotationDeg = std::acos(std::clamp((cv::trace(pose.R * gt.R.t()) - 1) / 2, -1.0, 1.0)) * 180 / M_PI;
  score.translationPct = 100 * cv::norm(pose.t - gt.t) / cv::norm(gt.t);
  return score;
}

int CurvedModelResult::scored() const {
  return static_cast<int>(std::count_if(frames.begin(), frames.end(), [](const CurvedFrameScore& f) { return f.scored; }));
}

double CurvedModelResult::visibleSuccessRate(double thresholdPx) const {
  const std::vector<double> e = scoredValues(frames, [](const CurvedFrameScore& f) { return f.visibleErrorPx; });
  if (e.empty()) return 0;
  return static_cast<double>(std::count_if(e.begin(), e.end(), [&](double v) { return v <= thresholdPx; })) /
         static_cast<double>(e.size());
}

double CurvedModelResult::medianVisibleErrorPx() const {
  return medianOf(scoredValues(frames, [](const CurvedFrameScore& f) { return f.visibleErrorPx; }));
}
double CurvedModelResult::medianRotationDeg() const {
  return medianOf(scoredValues(frames, [](const CurvedFrameScore& f) { return f.rotationDeg; }));
}
double CurvedModelResult::medianTranslationPct() const {
  return medianOf(scoredValues(frames, [](const CurvedFrameScore& f) { return f.translationPct; }));
}

double CurvedModelResult::foundFraction() const {
  const std::vector<double> found = scoredValues(frames, [](const CurvedFrameScore& f) { return f.found ? 1.0 : 0.0; });
  if (found.empty()) return 0;
  double n = 0;
  for (const double v : found) n += v;
  return n / static_cast<double>(found.size());
}

int CurvedModelResult::falseFinds() const {
  return static_cast<int>(
      std::count_if(frames.begin(), frames.end(), [](const CurvedFrameScore& f) { return f.found && f.visiblePoints == 0; }));
}

int CurvedModelResult::returns() const {
  int n = 0;
  for (size_t i = 1; i < frames.size(); ++i) n += frames[i].scored && !frames[i - 1].scored ? 1 : 0;
  return n;
}

int CurvedModelResult::worstReacquisitionFrames() const {
  int worst = 0;
  for (size_t i = 1; i < frames.size(); ++i) {
    if (!(frames[i].scored && !frames[i - 1].scored)) continue;
    int k = -1;
    for (size_t j = i; j < frames.size() && frames[j].scored; ++j)
      if (frames[j].visibleErrorPx <= kFoundAgainPx) {
        k = static_cast<int>(j - i);
        break;
      }
    if (k < 0) return -1;
    worst = std::max(worst, k);
  }
  return worst;
}

double CurvedModelResult::medianMs() const {
  std::vector<double> ms;
  for (const CurvedFrameScore& f : frames) ms.push_back(f.ms);
  return medianOf(ms);
}

CurvedTrackingReport evaluateCurvedTracking(const CurvedTrackingRequest& request) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::optional<std::ofstream> csv;
  if (!request.perFrameCsv.empty()) replay::checkWritable(request.perFrameCsv, "--out");
  const replay::CurvedSequence sequence(request.sequence);
  SessionOptions options = replay::sessionOptions(request.configPath, "");
  options.eglPlatform = request.platform;
  Calibration calibration;  // the sequence's camera
  calibration.K = sequence.cameraMatrix();
  calibration.imageSize = sequence.frameSize();
  options.calibration = calibration;

  const OpenCvThreads threads(request.threads);
  cv::Mat labelGrey;
  cv::cvtColor(sequence.labelImage(), labelGrey, cv::COLOR_BGR2GRAY);
  struct Run {
    std::unique_ptr<Session> session;
    std::unique_ptr<detection::LabelSurface> model;
    CurvedModelResult result;
  };
  std::vector<Run> runs;
  const auto addRun = [&](const std::string& name, const detection::TargetGeometry& geometry) {
    Run run;
    run.session = std::make_unique<Session>(options);
    TargetOptions target;
    target.name = "label";
    target.widthMetres = sequence.labelWidthM();
    target.geometry = session::publicGeometry(geometry);
    const TargetId id = run.session->addTarget(labelGrey, target);
    const TargetInfo info = run.session->target(id);
    std::fprintf(stderr, "nft_eval: %s model: %d keypoints, %d tracking patches (trained in %.2f s)\n", name.c_str(),
                 info.quality.keypoints, info.trackingPatches, info.loadSeconds);
    run.model = std::make_unique<detection::LabelSurface>(geometry, sequence.labelWidthM(), labelGrey.size());
    run.result.model = name;
    runs.push_back(std::move(run));
  };
  addRun("curved", sequence.geometry());
  if (request.planarModel) addRun("planar", detection::TargetGeometry{});

  CurvedTrackingReport report;
  const detection::TargetGeometry& g = sequence.geometry();
  const double radius = g.kind == detection::GeometryKind::Cone ? g.bottomRadiusM : g.radiusM;
  report.description = replay::toString(request.sequence.shape) + " r = " + format("%.1f cm", 100 * radius) +
                       (g.kind == detection::GeometryKind::Cone ? format(" (top %.1f cm)", 100 * g.topRadiusM) : "") +
                       ", label " + format("%.0f deg", request.sequence.coverageDeg) + ", motion " +
                       request.sequence.motion + ", " + std::to_string(sequence.frameSize().width) + "x" +
                       std::to_string(sequence.frameSize().height);
  report.renderer = runs.front().session->gpuRenderer();
  if (!request.perFrameCsv.empty()) {
    csv.emplace(request.perFrameCsv);
    if (!*csv) throw std::runtime_error("cannot write per-frame file '" + request.perFrameCsv + "'");
    *csv << "frame,model,found,visible_points,frontal_points,visible_error_px,rotation_deg,translation_pct,ms\n";
  }
  const auto cell = [](double v) {
    return std::isnan(v) ? std::string() : std::isinf(v) ? std::string("inf") : format("%.4f", v);
  };
  int total = sequence.frameCount();
  if (request.maxFrames > 0) total = std::min(total, request.maxFrames);
  for (int index = 0; index < total; ++index) {
    const cv::Mat frame = sequence.render(index);
    for (Run& run : runs) {
      const FrameResult r = run.session->process(frame);
      const TargetResult& t = r.targets.front();
      CurvedFrameScore score = scoreCurvedFrame(sequence, index, *run.model, t.found, t.pose);
      score.ms = r.timings.total;
      run.result.frames.push_back(score);
      if (csv)
        *csv << index + 1 << ',' << run.result.model << ',' << (t.found ? 1 : 0) << ',' << score.visiblePoints << ','
             << score.frontalPoints << ',' << cell(score.visibleErrorPx) << ',' << cell(score.rotationDeg) << ',' << cell(score.translationPct) << ','
             << format("%.3f", score.ms) << '\n';
    }
    if (request.progressEvery > 0 && (index + 1) % request.progressEvery == 0) {
      std::string line = "nft_eval: frame " + std::to_string(index + 1) + "/" + std::to_string(total) +
                         " visible error <= 5 px:";
      for (const Run& run : runs)
        line += " " + run.result.model + " " + format("%.1f%%", 100 * run.result.visibleSuccessRate(kFoundAgainPx));
      line += format(" (%.1f s)", std::chrono::duration<double>(Clock::now() - start).count());
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }
  if (csv && !csv->flush()) throw std::runtime_error("error while writing per-frame file '" + request.perFrameCsv + "'");
  report.frames = total;
  for (Run& run : runs) report.models.push_back(std::move(run.result));
  return report;
}

void printCurvedSummary(std::ostream& out, const CurvedTrackingReport& report) {
  const int scored = report.models.empty() ? 0 : report.models.front().scored();
  out << "\n" << report.description << ": " << report.frames << " frames, " << scored
      << " with the label in view (>= 25 of its 10x10 points seen within 60 deg of their normal) (" << report.renderer << ")\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-7s %9s %11s %11s %12s %8s %11s %11s %9s", "model", "vis<=5px", "vis median",
                "rot median", "trans median", "found", "false finds", "found again", "ms/frame");
  out << line << "\n";
  const auto value = [](double v, const char* fmt) { return std::isfinite(v) ? format(fmt, v) : std::string("inf"); };
  for (const CurvedModelResult& m : report.models) {
    const int again = m.worstReacquisitionFrames();
    const std::string reacquired = m.returns() == 0 ? "-" : again < 0 ? "never" : std::to_string(again) + " fr";
    std::snprintf(line, sizeof line, "  %-7s %8.1f%% %11s %11s %12s %7.1f%% %11d %11s %9.2f", m.model.c_str(),
                  100 * m.visibleSuccessRate(5.0), value(m.medianVisibleErrorPx(), "%.2f px").c_str(),
                  value(m.medianRotationDeg(), "%.2f deg").c_str(), value(m.medianTranslationPct(), "%.2f %%").c_str(),
                  100 * m.foundFraction(), m.falseFinds(), reacquired.c_str(), m.medianMs());
    out << line << "\n";
  }
  if (report.models.size() == 2 && report.models[1].medianMs() > 0)
    out << "  curved / planar time per frame: " << format("%.2fx", report.models[0].medianMs() / report.models[1].medianMs())
        << "\n";
}

}  // namespace nft::eval
