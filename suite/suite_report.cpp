#include "suite/suite_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "suite/suite_files.h"
#include "suite/suite_plot.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

nlohmann::json optionalJson(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string fixed(const std::optional<double>& v, int decimals, double scale = 1.0) {
  if (!v || !std::isfinite(*v)) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, *v * scale);
  return text;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

/// Markdown cell text: pipes escaped, line breaks flattened.
std::string cell(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else out += ch;
  }
  return out;
}

std::string percent(const std::optional<double>& v) {
  const std::string s = fixed(v, 1, 100.0);
  return s.empty() ? "—" : s + " %";
}

std::string orDash(const std::string& s) { return s.empty() ? "—" : s; }

}  // namespace

std::string resultsCsv(const Collection& c) {
  std::ostringstream out;
  out << "clip,config,pair,status,frames,found_fraction,success_5px,success_10px,median_error_px,"
         "visible_success_5px,visible_success_10px,median_visible_error_px,tracker_fps,replay_s,task_s,exit_status,"
         "error";
  for (const std::string& k : c.plan.sweptKeys) out << "," << csvField(k);
  out << "\n";
  for (const PairRow& r : c.rows) {
    const bool ok = r.status == "ok";
    out << csvField(r.pair.clip) << "," << csvField(r.pair.config) << "," << r.pair.id << "," << r.status << ","
        << (ok ? std::to_string(r.frames) : "") << "," << (ok ? fixed(r.foundFraction(), 6) : "") << ","
        << fixed(r.success5, 6) << "," << fixed(r.success10, 6) << "," << fixed(r.medianErrorPx, 4) << ","
        << fixed(r.visibleSuccess5, 6) << "," << fixed(r.visibleSuccess10, 6) << "," << fixed(r.medianVisibleErrorPx, 4)
        << "," << (ok ? fixed(r.trackerFps, 1) : "") << "," << (r.status != "missing" ? fixed(r.replaySeconds, 3) : "")
        << "," << (r.status != "missing" ? fixed(r.taskSeconds, 3) : "") << ","
        << (r.status == "failed" ? std::to_string(r.exitStatus) : "") << "," << csvField(r.status == "missing" ? r.note : r.error);
    for (const std::string& k : c.plan.sweptKeys) {
      const auto it = r.pair.params.find(k);
      out << "," << csvField(it == r.pair.params.end() ? "" : it->second);
    }
    out << "\n";
  }
  return out.str();
}

nlohmann::json resultsJson(const Collection& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const PairRow& r : c.rows) {
    const bool ok = r.status == "ok";
    rows.push_back({{"clip", r.pair.clip},
                    {"config", r.pair.config},
                    {"baseline", r.pair.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.pair.baseline)},
                    {"config_hash", r.pair.configHash},
                    {"params", r.pair.params},
                    {"pair", r.pair.id},
                    {"status", r.status},
                    {"error", r.status == "failed" ? nlohmann::json(r.error) : nlohmann::json(nullptr)},
                    {"note", r.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.note)},
                    {"exit_status", r.status == "failed" ? nlohmann::json(r.exitStatus) : nlohmann::json(nullptr)},
                    {"frames", ok ? nlohmann::json(r.frames) : nlohmann::json(nullptr)},
                    {"found_fraction", ok ? nlohmann::json(r.foundFraction()) : nlohmann::json(nullptr)},
                    {"ground_truth_frames", r.groundTruthFrames},
                    {"success_5px", optionalJson(r.success5)},
                    {"success_10px", optionalJson(r.success10)},
                    {"median_error_px", optionalJson(r.medianErrorPx)},
                    {"visible_success_5px", optionalJson(r.visibleSuccess5)},
                    {"visible_success_10px", optionalJson(r.visibleSuccess10)},
                    {"median_visible_error_px", optionalJson(r.medianVisibleErrorPx)},
                    {"tracker_fps", ok ? nlohmann::json(r.trackerFps) : nlohmann::json(nullptr)},
                    {"process_p99_ms", optionalJson(r.processP99Ms)},
                    {"process_max_ms", optionalJson(r.processMaxMs)},
                    {"replay_s", r.status != "missing" ? nlohmann::json(r.replaySeconds) : nlohmann::json(nullptr)},
                    {"task_s", r.status != "missing" ? nlohmann::json(r.taskSeconds) : nlohmann::json(nullptr)},
                    {"host", r.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.host)}});
  }
  nlohmann::json configs = nlohmann::json::array();
  for (const ConfigSummary& s : c.configs)
    configs.push_back({{"config", s.name},
                       {"config_hash", s.hash},
                       {"params", s.params},
                       {"baseline", s.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.baseline)},
                       {"every", s.every},
                       {"clips", s.clips},
                       {"finished", s.finished},
                       {"frames", s.frames},
                       {"found_fraction", s.frames > 0 ? nlohmann::json(s.foundFraction()) : nlohmann::json(nullptr)},
                       {"ground_truth_frames", s.groundTruthFrames},
                       {"success_5px", optionalJson(s.success5)},
                       {"success_10px", optionalJson(s.success10)},
                       {"median_error_px", optionalJson(s.medianErrorPx)},
                       {"visible_success_5px", optionalJson(s.visibleSuccess5)},
                       {"visible_success_10px", optionalJson(s.visibleSuccess10)},
                       {"median_visible_error_px", optionalJson(s.medianVisibleErrorPx)},
                       {"tracker_fps", s.trackerFps > 0 ? nlohmann::json(s.trackerFps) : nlohmann::json(nullptr)},
                       {"process_p99_ms", optionalJson(s.processP99Ms)},
                       {"process_max_ms", optionalJson(s.processMaxMs)}});
  return {{"suite", c.plan.suite}, {"source", c.plan.source},       {"complete", c.complete()},
          {"pairs", c.rows.size()}, {"ok", c.ok},                    {"failed", c.failed},
          {"missing", c.missing},   {"swept_keys", c.plan.sweptKeys}, {"rows", rows},
          {"configs", configs}};
}

std::string resultsMarkdown(const Collection& c) {
  std::ostringstream md;
  md << "# Suite `" << c.plan.suite << "`: " << c.ok << " of " << c.rows.size() << " pairs finished";
  if (!c.complete()) md << " — INCOMPLETE (" << c.failed << " failed, " << c.missing << " missing)";
  md << "\n\nSuite file: `" << c.plan.source << "`. Success: fraction of the ground-truth frames whose alignment "
        "error is within 5 / 10 px (a frame without a result fails); found: fraction of frames with a result; "
        "median error over the found ground-truth frames; visible 5 px and visible median: the same by the visible "
        "error (the mean distance of a grid of target points inside the frame), over the frames it scores; tracker "
        "fps: frames / the tracker's time.\n\n";
  const char* header =
      "| success 5 px | success 10 px | found | median error (px) | visible 5 px | visible median (px) | tracker fps |\n";
  md << "## All configs, over all clips\n\n| config | clips | frames " << header
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ConfigSummary& s : c.configs)
    md << "| " << cell(s.name) << " | " << s.finished << "/" << s.clips << " | " << s.frames << " | "
       << percent(s.success5) << " | " << percent(s.success10) << " | "
       << (s.frames > 0 ? percent(s.foundFraction()) : "—") << " | " << orDash(fixed(s.medianErrorPx, 2)) << " | "
       << percent(s.visibleSuccess5) << " | " << orDash(fixed(s.medianVisibleErrorPx, 2)) << " | "
       << (s.trackerFps > 0 ? fixed(s.trackerFps, 0) : "—") << " |\n";
  for (const ConfigSummary& s : c.configs) {
    if (s.baseline.empty())
      md << "\n## Config `" << cell(s.name) << "` (`configs/" << s.hash << ".yaml`)";
    else
      md << "\n## Baseline `" << cell(s.name) << "` (`nft_eval baseline`, per-frame OpenCV "
         << (s.every == 1 ? std::string("on every frame") : "on one frame in " + std::to_string(s.every)) << ")";
    md << "\n\n| clip | frames " << header
       << "|---|---|---|---|---|---|---|---|---|\n";
    for (const PairRow& r : c.rows) {
      if (r.pair.configHash != s.hash) continue;
      if (r.status != "ok") {
        md << "| " << cell(r.pair.clip) << " | " << r.status << " | | | | | | | |\n";
        continue;
      }
      md << "| " << cell(r.pair.clip) << " | " << r.frames << " | " << percent(r.success5) << " | "
         << percent(r.success10) << " | " << percent(r.foundFraction()) << " | " << orDash(fixed(r.medianErrorPx, 2))
         << " | " << percent(r.visibleSuccess5) << " | " << orDash(fixed(r.medianVisibleErrorPx, 2)) << " | "
         << fixed(r.trackerFps, 0) << " |\n";
    }
    md << "| **all clips** | " << s.frames << " | " << percent(s.success5) << " | " << percent(s.success10) << " | "
       << (s.frames > 0 ? percent(s.foundFraction()) : "—") << " | " << orDash(fixed(s.medianErrorPx, 2)) << " | "
       << percent(s.visibleSuccess5) << " | " << orDash(fixed(s.medianVisibleErrorPx, 2)) << " | "
       << (s.trackerFps > 0 ? fixed(s.trackerFps, 0) : "—") << " |\n";
  }
  if (c.failed > 0) {
    md << "\n## Failed pairs\n\n";
    for (const PairRow& r : c.rows)
      if (r.status == "failed")
        md << "- " << cell(r.pair.clip) << " × " << cell(r.pair.config) << " (`pairs/" << r.pair.id
           << "`): " << cell(r.error) << " (" << r.ending() << ")\n";
  }
  if (c.missing > 0) {
    md << "\n## Missing pairs\n\n";
    for (const PairRow& r : c.rows)
      if (r.status == "missing")
        md << "- " << cell(r.pair.clip) << " × " << cell(r.pair.config) << " (`pairs/" << r.pair.id << "`)"
           << (r.note.empty() ? std::string(": not run") : ": " + cell(r.note)) << "\n";
  }
  return md.str();
}

std::vector<std::string> writeCollection(const Collection& c) {
  const fs::path out(c.plan.outDir);
  std::vector<std::string> written;
  auto write = [&](const fs::path& file, const std::string& text) {
    writeTextAtomically(file, text);
    written.push_back(file.string());
  };
  write(out / "results.csv", resultsCsv(c));
  write(out / "results.json", resultsJson(c).dump(2) + "\n");
  write(out / "results.md", resultsMarkdown(c));
  for (const std::string& f : writePlots(c, out / "plots")) written.push_back(f);
  return written;
}

}  // namespace nft::eval::suite
