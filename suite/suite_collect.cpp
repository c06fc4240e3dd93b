#include "suite/suite_collect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "suite/suite_files.h"
#include "suite/suite_frame_errors.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

/// Median of the finite values (NaN when none).
double medianFinite(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (*std::max_element(values.begin(), values.begin() + static_cast<long>(mid)) + upper);
}

std::optional<double> number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

/// A temporary folder of a pair being run (or interrupted), for the "missing" note.
std::string runningNote(const fs::path& pairs, const std::string& id) {
  std::error_code ec;
  const std::string prefix = ".tmp-" + id + "-";
  for (fs::directory_iterator it(pairs, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0) return "running or interrupted (" + name + ")";
  }
  return "";
}

/// Fills `row` from the pair's folder; leaves it "missing" with a note when there is no result.
void readRow(const Plan& plan, PairRow& row) {
  const fs::path dir = plan.pairDir(row.pair);
  std::error_code ec;
  if (!fs::exists(dir / "result.json", ec)) {
    row.note = runningNote(dir.parent_path(), row.pair.id);
    return;
  }
  nlohmann::json result;
  try {
    result = nlohmann::json::parse(readText(dir / "result.json"));
  } catch (const std::exception& e) {
    row.note = std::string("unreadable result.json: ") + e.what();
    return;
  }
  row.host = result.value("host", "");
  row.replaySeconds = number(result, "replay_s").value_or(0);
  row.taskSeconds = number(result, "task_s").value_or(0);
  row.exitStatus = result.value("exit_status", -1);
  row.signal = result.value("signal", 0);
  if (result.value("status", "") != "ok") {
    row.status = "failed";
    row.error = result.contains("error") && result["error"].is_string() ? result["error"].get<std::string>()
                                                                          : "unknown error";
    return;
  }
  try {
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    row.frames = report.at("frames").get<int>();
    row.found = report.at("found").get<int>();
    row.trackerFps = number(report.at("fps"), "tracker").value_or(0);
    if (report.contains("process_ms") && report["process_ms"].is_object()) {
      row.processP99Ms = number(report["process_ms"], "p99");
      row.processMaxMs = number(report["process_ms"], "max");
    }
    if (const nlohmann::json& gt = report.at("ground_truth"); gt.is_object()) {
      row.groundTruthFrames = gt.at("frames").get<int>();
      row.success5 = number(gt, "success_5px");
      row.success10 = number(gt, "success_10px");
      row.medianErrorPx = number(gt, "median_error_px");
      row.visibleSuccess5 = number(gt, "visible_success_5px");
      row.visibleSuccess10 = number(gt, "visible_success_10px");
      row.medianVisibleErrorPx = number(gt, "median_visible_error_px");
    }
    if (result.contains("errors_px") && result["errors_px"].is_array())
      for (const nlohmann::json& e : result["errors_px"])
        row.errors.push_back(e.is_number() ? e.get<double>() : std::numeric_limits<double>::infinity());
    if (result.contains("visible_errors_px") && result["visible_errors_px"].is_array())
      for (const nlohmann::json& e : result["visible_errors_px"])
        row.visibleErrors.push_back(e.is_number() ? e.get<double>() : std::numeric_limits<double>::infinity());
  } catch (const std::exception& e) {
    row.status = "missing";
    row.note = std::string("unreadable report.json: ") + e.what();
    return;
  }
  row.status = "ok";
}

ConfigSummary summarise(const Collection& c, const std::string& hash) {
  ConfigSummary s;
  double trackerSeconds = 0;
  for (const PairRow& row : c.rows) {
    if (row.pair.configHash != hash) continue;
    if (s.clips++ == 0) {
      s.name = row.pair.config;
      s.hash = hash;
      s.params = row.pair.params;
      s.baseline = row.pair.baseline;
      s.every = row.pair.every;
    }
    if (row.status != "ok") continue;
    ++s.finished;
    s.frames += row.frames;
    s.found += row.found;
    if (row.trackerFps > 0) trackerSeconds += row.frames / row.trackerFps;
    const auto worst = [](std::optional<double>& sum, const std::optional<double>& v) {
      if (v && (!sum || *v > *sum)) sum = v;
    };
    worst(s.processP99Ms, row.processP99Ms);
    worst(s.processMaxMs, row.processMaxMs);
    if (row.groundTruthFrames > 0) {
      s.groundTruthFrames += row.groundTruthFrames;
      s.errors.insert(s.errors.end(), row.errors.begin(), row.errors.end());
      s.visibleErrors.insert(s.visibleErrors.end(), row.visibleErrors.begin(), row.visibleErrors.end());
    }
  }
  s.trackerFps = trackerSeconds > 0 ? s.frames / trackerSeconds : 0;
  if (!s.errors.empty()) {
    s.success5 = successAt(s.errors, 5.0);
    s.success10 = successAt(s.errors, 10.0);
    const double m = medianFinite(s.errors);
    if (std::isfinite(m)) s.medianErrorPx = m;
  }
  if (!s.visibleErrors.empty()) {
    s.visibleSuccess5 = successAt(s.visibleErrors, 5.0);
    s.visibleSuccess10 = successAt(s.visibleErrors, 10.0);
    const double m = medianFinite(s.visibleErrors);
    if (std::isfinite(m)) s.medianVisibleErrorPx = m;
  }
  return s;
}
}  // namespace

std::string PairRow::ending() const {
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  if (exitStatus >= 0) return "exit status " + std::to_string(exitStatus);
  return "the replay did not start";
}

Collection collectResults(const fs::path& outDir) {
  const fs::path manifest = outDir / "suite.json";
  std::error_code ec;
  if (!fs::exists(manifest, ec))
    throw std::runtime_error("'" + outDir.string() + "' holds no suite.json: not the output folder of `nft_eval suite run`");
  Collection c;
  c.plan = loadPlan(manifest);
  c.plan.outDir = fs::absolute(outDir).lexically_normal().string();  // the folder may have moved
  for (const Pair& p : c.plan.pairs) {
    PairRow row;
    row.pair = p;
    readRow(c.plan, row);
    if (row.status == "ok") ++c.ok;
    else if (row.status == "failed") ++c.failed;
    else ++c.missing;
    c.rows.push_back(std::move(row));
  }
  std::vector<std::string> hashes;
  for (const Pair& p : c.plan.pairs)
    if (std::find(hashes.begin(), hashes.end(), p.configHash) == hashes.end()) hashes.push_back(p.configHash);
  for (const std::string& h : hashes) c.configs.push_back(summarise(c, h));
  return c;
}

}  // namespace nft::eval::suite
