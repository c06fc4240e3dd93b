// The POT protocol over sequences (see pot_eval.h).
#include "apps/eval/pot_eval.h"

#include "apps/replay/replay_report.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace nft::eval {
namespace {

constexpr double kCurveMaxPx = 20.0;

std::string percent(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * v);
  return buf;
}

double jsonNumber(double v) { return std::isfinite(v) ? v : -1.0; }

}  // namespace

PotReport evaluatePot(const PotRequest& request) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  if (request.paths.empty()) throw std::runtime_error("no POT sequence given");
  std::vector<fs::path> folders;
  for (const std::string& p : request.paths)
    for (const fs::path& f : findPotSequences(p)) folders.push_back(f);
  // Every sequence is read first: a broken annotation file fails before hours of tracking.
  std::vector<PotSequence> sequences;
  for (const fs::path& f : folders) sequences.push_back(loadPotSequence(f));
  if (!request.perFrameDir.empty() && !fs::is_directory(request.perFrameDir))
    throw std::runtime_error("per-frame folder '" + request.perFrameDir + "' does not exist");

  PotReport report;
  report.methods.push_back("ours");
  for (BaselineKind b : request.baselines) report.methods.push_back(toString(b));
  for (size_t i = 0; i < sequences.size(); ++i) {
    const PotSequence& s = sequences[i];
    TrackingRequest t;
    t.video = s.folder.string();
    t.truth = s.truth;
    t.initQuad = true;
    t.configPath = request.configPath;
    t.calibrationPath = request.calibrationPath;
    t.baselines = request.baselines;
    t.baselineOptions = request.baselineOptions;
    t.maxFrames = request.maxFrames;
    t.progressEvery = request.progressEvery;
    t.threads = request.threads;
    t.platform = request.platform;
    if (!request.perFrameDir.empty()) t.perFrameCsv = (fs::path(request.perFrameDir) / (s.name + ".csv")).string();
    const auto start = Clock::now();
    PotSequenceResult r{s, evaluateTracking(t)};
    report.renderer = r.report.renderer;
    std::string line = "nft_eval: pot " + std::to_string(i + 1) + "/" + std::to_string(sequences.size()) + " " +
                       s.name + " (" + (s.category ? toString(*s.category) : std::string("no category")) + "): " +
                       std::to_string(r.report.scored) + " frames scored, precision at 5 px:";
    for (const MethodResult& m : r.report.methods) line += " " + m.method + " " + percent(m.successRate(5.0));
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, " (%.1f s)", std::chrono::duration<double>(Clock::now() - start).count());
    std::fprintf(stderr, "%s%s\n", line.c_str(), seconds);
    report.sequences.push_back(std::move(r));
  }
  return report;
}

double potPrecision(const std::vector<const PotSequenceResult*>& sequences, size_t method, double thresholdPx) {
  double sum = 0;
  int n = 0;
  for (const PotSequenceResult* s : sequences) {
    const MethodResult& m = s->report.methods.at(method);
    if (m.scored() == 0) continue;
    sum += m.successRate(thresholdPx);
    ++n;
  }
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / n;
}

std::vector<std::pair<std::string, std::vector<const PotSequenceResult*>>> potGroups(const PotReport& report) {
  std::vector<std::pair<std::string, std::vector<const PotSequenceResult*>>> groups;
  std::vector<const PotSequenceResult*> all, other;
  std::map<int, std::vector<const PotSequenceResult*>> byCategory;
  for (const PotSequenceResult& s : report.sequences) {
    all.push_back(&s);
    if (s.sequence.category)
      byCategory[static_cast<int>(*s.sequence.category)].push_back(&s);
    else
      other.push_back(&s);
  }
  groups.emplace_back("all", all);
  for (const auto& [category, members] : byCategory)
    groups.emplace_back(toString(static_cast<PotCategory>(category)), members);
  if (!other.empty()) groups.emplace_back("other", other);
  return groups;
}

void printPotSummary(std::ostream& out, const PotReport& report) {
  char line[256];
  out << "\nPOT protocol: " << report.sequences.size() << " sequences (" << report.renderer
      << "); precision at 5 px (share of scored frames within 5 px)\n";
  std::snprintf(line, sizeof line, "  %-16s %-14s %7s", "sequence", "category", "scored");
  out << line;
  for (const std::string& m : report.methods) {
    std::snprintf(line, sizeof line, " %9s", m.c_str());
    out << line;
  }
  out << "   ms/frame, p99 ms (" << report.methods.front() << ")\n";
  for (const PotSequenceResult& s : report.sequences) {
    std::snprintf(line, sizeof line, "  %-16s %-14s %7d", s.sequence.name.c_str(),
                  s.sequence.category ? toString(*s.sequence.category).c_str() : "-", s.report.scored);
    out << line;
    for (const MethodResult& m : s.report.methods) {
      std::snprintf(line, sizeof line, " %9s", percent(m.successRate(5.0)).c_str());
      out << line;
    }
    const MethodResult& first = s.report.methods.front();
    std::snprintf(line, sizeof line, "   %.2f, %.2f\n", first.medianMs(), replay::frameTimePercentiles(first.ms).p99);
    out << line;
  }
  out << "  mean over the sequences of each group:\n";
  for (const auto& [name, members] : potGroups(report)) {
    std::snprintf(line, sizeof line, "  %-16s %-14s %7zu", name.c_str(), "(sequences)", members.size());
    out << line;
    for (size_t m = 0; m < report.methods.size(); ++m) {
      std::snprintf(line, sizeof line, " %9s", percent(potPrecision(members, m, 5.0)).c_str());
      out << line;
    }
    out << "\n";
  }
}

void writePotCurves(const std::string& path, const PotReport& report) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write curve file '" + path + "'");
  out << "method,group,threshold_px,precision\n";
  auto groups = potGroups(report);
  for (const PotSequenceResult& s : report.sequences)
    groups.emplace_back(s.sequence.name, std::vector<const PotSequenceResult*>{&s});
  char value[32];
  for (size_t m = 0; m < report.methods.size(); ++m)
    for (const auto& [name, members] : groups)
      for (int t = 0; t <= static_cast<int>(kCurveMaxPx); ++t) {
        const double p = potPrecision(members, m, t);
        if (std::isnan(p)) continue;
        std::snprintf(value, sizeof value, "%.6f", p);
        out << report.methods[m] << ',' << name << ',' << t << ',' << value << '\n';
      }
  out.flush();
  if (!out) throw std::runtime_error("error while writing curve file '" + path + "'");
}

void writePotJson(const std::string& path, const PotReport& report) {
  nlohmann::json j;
  j["protocol"] = "POT (Liang et al., ICRA 2018): start from the first frame's quad; frames annotated and not "
                  "flagged scored, the first excepted; precision = share of scored frames within the threshold";
  j["renderer"] = report.renderer;
  j["methods"] = report.methods;
  for (const PotSequenceResult& s : report.sequences) {
    nlohmann::json q;
    q["name"] = s.sequence.name;
    q["category"] = s.sequence.category ? toString(*s.sequence.category) : std::string();
    q["frames"] = s.report.frames;
    q["annotated"] = s.sequence.annotated;
    q["flagged"] = s.sequence.flagged;
    q["scored"] = s.report.scored;
    for (const MethodResult& m : s.report.methods)
      q["methods"][m.method] = {{"precision_5px", m.successRate(5.0)},
                                {"precision_10px", m.successRate(10.0)},
                                {"median_error_px", jsonNumber(m.medianErrorPx())},
                                {"median_ms", jsonNumber(m.medianMs())},
                                {"p99_ms", jsonNumber(replay::frameTimePercentiles(m.ms).p99)},
                                {"found", m.found}};
    j["sequences"].push_back(q);
  }
  for (const auto& [name, members] : potGroups(report)) {
    nlohmann::json g;
    g["sequences"] = members.size();
    for (size_t m = 0; m < report.methods.size(); ++m) {
      const double p = potPrecision(members, m, 5.0);
      g["precision_5px"][report.methods[m]] = std::isnan(p) ? nlohmann::json(nullptr) : nlohmann::json(p);
    }
    j["groups"][name] = g;
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write report '" + path + "'");
  out << j.dump(2) << "\n";
  out.flush();
  if (!out) throw std::runtime_error("error while writing report '" + path + "'");
}

}  // namespace nft::eval
