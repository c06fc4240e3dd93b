// The multi-target synthetic sequence through the Session, scored per print (multi_target_eval.h).

#include "apps/eval/multi_target_eval.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>

#include "apps/eval/opencv_threads.h"
#include "apps/replay/replay_report.h"
#include "apps/replay/replay_session.h"
#include "nft/session.h"
#include "suite/ground_truth.h"
#include "synthetic/multi_target_sequence.h"

namespace nft::eval {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kDetectionErrorPx = 10.0;  // an accurate detection lies this close to its print

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  return v[mid];
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

MultiTargetReport evaluateMultiTarget(const MultiTargetRequest& request) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::optional<replay::MultiTargetLayout> layout = replay::parseMultiTargetLayout(request.layout);
  if (!layout) throw std::runtime_error("unknown layout '" + request.layout + "' (expected pan or grid)");
  if (!(request.minVisible > 0 && request.minVisible <= 1))
    throw std::runtime_error("minimum visible fraction " + fmt("%g", request.minVisible) + ": expected (0, 1]");
  if (!request.targetDatabase.empty() && !std::filesystem::is_regular_file(request.targetDatabase))
    throw std::runtime_error("target database '" + request.targetDatabase + "' does not exist");
  std::optional<std::ofstream> csv;
  if (!request.perFrameCsv.empty()) {
    csv.emplace(request.perFrameCsv);
    if (!*csv) throw std::runtime_error("cannot write per-frame file '" + request.perFrameCsv + "'");
    *csv << "frame,target,visible,state,found,error_px\n";
  }
  SessionOptions options = replay::sessionOptions(request.configPath, request.calibrationPath);
  options.eglPlatform = request.platform;
  replay::MultiTargetSequenceOptions sequenceOptions;
  sequenceOptions.layout = *layout;
  sequenceOptions.frames = request.frames;
  const replay::MultiTargetSequence sequence(sequenceOptions);
  const int printCount = sequence.targetCount();

  const OpenCvThreads threads(request.threads);
  // One Session for all the prints, or one per print.
  std::vector<std::unique_ptr<Session>> sessions;
  MultiTargetReport report;
  report.alone = request.alone;
  for (int s = 0; s < (request.alone ? printCount : 1); ++s) {
    auto session = std::make_unique<Session>(options);
    if (!request.targetDatabase.empty()) {
      const size_t loaded = session->loadDatabase(request.targetDatabase).size();
      report.databaseTargets = static_cast<int>(loaded);
    }
    for (int p = 0; p < printCount; ++p) {
      if (request.alone && p != s) continue;
      const replay::MultiTargetPrint& print = sequence.prints()[static_cast<size_t>(p)];
      session->addTarget(print.image, print.name, print.widthM);
    }
    sessions.push_back(std::move(session));
  }
  report.renderer = sessions.front()->gpuRenderer();
  report.input = sequence.description();
  std::fprintf(stderr, "nft_eval: %s: %d prints, %d distractors, %s\n", report.input.c_str(), printCount,
               report.databaseTargets, request.alone ? "one Session per print" : "one Session");

  std::vector<std::vector<double>> errors(static_cast<size_t>(printCount));
  std::vector<std::vector<double>> printMs(static_cast<size_t>(printCount));
  report.prints.resize(static_cast<size_t>(printCount));
  for (int p = 0; p < printCount; ++p) report.prints[static_cast<size_t>(p)].name = sequence.prints()[static_cast<size_t>(p)].name;
  std::vector<double> frameMs;
  for (int index = 0; index < sequence.frameCount(); ++index) {
    const cv::Mat frame = sequence.render(index);
    std::vector<TargetResult> results;
    double ms = 0;
    for (size_t s = 0; s < sessions.size(); ++s) {
      FrameResult r = sessions[s]->process(frame);
      ms += r.timings.total;
      const FrameTimings& f = r.timings;
      report.detectionMeanMs += f.fast + f.describe + f.match + f.ransac + f.detectionPose;
      report.trackingMeanMs += f.pyramid + f.coarse + f.fine + f.trackingPose;
      report.pyramidMeanMs += f.pyramid;
      if (request.alone) printMs[s].push_back(r.timings.total);
      results.insert(results.end(), r.targets.begin(), r.targets.end());
    }
    frameMs.push_back(ms);

    std::set<std::string> seen;
    bool duplicate = false;
    for (const TargetResult& t : results) {
      if (!t.found) continue;
      duplicate |= !seen.insert(t.name).second;
      if (t.state != TrackingState::Detecting) continue;
      ++report.detections;
      const int p = sequence.find(t.name);
      if (p < 0 || sequence.visibleFraction(p, index) <= 0)
        ++report.wrongTarget, ++report.wrongTargetNames[t.name];
      else if (t.corners.size() != 4 || replay::alignmentError(sequence.corners(p, index), t.corners) > kDetectionErrorPx)
        ++report.inaccurate;
    }
    report.duplicateFrames += duplicate ? 1 : 0;

    for (int p = 0; p < printCount; ++p) {
      PrintScore& score = report.prints[static_cast<size_t>(p)];
      const double visible = sequence.visibleFraction(p, index);
      const TargetResult* mine = nullptr;
      for (const TargetResult& t : results)
        if (t.name == score.name && t.found) mine = &t;
      const double e = mine != nullptr && mine->corners.size() == 4
                           ? replay::alignmentError(sequence.corners(p, index), mine->corners)
                           : kInf;
      if (mine != nullptr && visible <= 0) ++score.reportedAbsent;
      if (visible >= request.minVisible) {
        ++score.scoredFrames;
        score.found += mine != nullptr ? 1 : 0;
        score.within5 += e <= 5.0 ? 1 : 0;
        score.within10 += e <= 10.0 ? 1 : 0;
        errors[static_cast<size_t>(p)].push_back(e);
      }
      if (csv)
        *csv << index + 1 << ',' << score.name << ',' << fmt("%.3f", visible) << ','
             << (mine != nullptr ? toString(mine->state) : std::string("-")) << ',' << (mine != nullptr ? 1 : 0) << ','
             << (std::isfinite(e) ? fmt("%.4f", e) : std::string("inf")) << '\n';
    }
    if (request.progressEvery > 0 && (index + 1) % request.progressEvery == 0)
      std::fprintf(stderr, "nft_eval: frame %d/%d, %zu targets reported (%.1f s)\n", index + 1, sequence.frameCount(),
                   seen.size(), std::chrono::duration<double>(Clock::now() - start).count());
  }
  if (csv && !csv->flush()) throw std::runtime_error("error while writing per-frame file '" + request.perFrameCsv + "'");
  report.frames = sequence.frameCount();
  for (int p = 0; p < printCount; ++p) {
    PrintScore& score = report.prints[static_cast<size_t>(p)];
    score.medianErrorPx = median(errors[static_cast<size_t>(p)]);
    const std::vector<double>& ms = printMs[static_cast<size_t>(p)];
    if (!ms.empty()) score.meanMs = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  }
  report.meanMs = std::accumulate(frameMs.begin(), frameMs.end(), 0.0) / static_cast<double>(frameMs.size());
  report.medianMs = median(frameMs);
  const replay::FrameTimePercentiles percentiles = replay::frameTimePercentiles(frameMs);
  report.p99Ms = percentiles.p99;
  report.maxMs = percentiles.max;
  const double frameCount = static_cast<double>(frameMs.size());
  report.detectionMeanMs /= frameCount;
  report.trackingMeanMs /= frameCount;
  report.pyramidMeanMs /= frameCount;
  return report;
}

void printMultiTargetSummary(std::ostream& out, const MultiTargetReport& report) {
  out << "\n" << report.input << " (" << report.renderer << "), "
      << (report.alone ? "each print in a Session of its own" : "one Session for all") << ", "
      << report.databaseTargets << " distractors\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-14s %7s %7s %8s %8s %11s %7s\n", "target", "scored", "found", "<=5px", "<=10px",
                "median err", "absent");
  out << line;
  for (const PrintScore& p : report.prints) {
    const double n = std::max(1, p.scoredFrames);
    const std::string medianText = std::isfinite(p.medianErrorPx) ? fmt("%.2f px", p.medianErrorPx) : "inf";
    std::snprintf(line, sizeof line, "  %-14s %7d %6.1f%% %7.1f%% %7.1f%% %11s %7d\n", p.name.c_str(), p.scoredFrames,
                  100.0 * p.found / n, 100.0 * p.within5 / n, 100.0 * p.within10 / n, medianText.c_str(),
                  p.reportedAbsent);
    out << line;
  }
  std::snprintf(line, sizeof line,
                "  detections: %d, the right target %d (%.1f%%), a target not in view %d, more than 10 px off %d; "
                "frames with a target reported twice: %d\n",
                report.detections, report.detections - report.wrongTarget,
                report.detections > 0 ? 100.0 * (report.detections - report.wrongTarget) / report.detections : 100.0,
                report.wrongTarget, report.inaccurate, report.duplicateFrames);
  out << line;
  if (!report.wrongTargetNames.empty()) {
    out << "  targets reported where they are not:";
    for (const auto& [name, count] : report.wrongTargetNames) out << " " << name << " (" << count << ")";
    out << "\n";
  }
  std::snprintf(line, sizeof line,
                "  tracker time per frame: mean %.2f ms (%.0f frames/s), median %.2f ms, p99 %.2f ms, max %.2f ms\n",
                report.meanMs, report.meanMs > 0 ? 1000.0 / report.meanMs : 0.0, report.medianMs, report.p99Ms,
                report.maxMs);
  out << line;
  std::snprintf(line, sizeof line, "  of which: detection %.2f ms, tracking %.2f ms (the lanes' pyramids %.2f ms)\n",
                report.detectionMeanMs, report.trackingMeanMs, report.pyramidMeanMs);
  out << line;
}

}  // namespace nft::eval
