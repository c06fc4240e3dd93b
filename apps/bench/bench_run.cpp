// nft_bench's harness (see bench_run.h).

#include "apps/bench/bench_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

namespace nft::bench {
namespace {

std::string valueText(double v, const std::string& unit) {
  char buf[64];
  if (unit == "fps")
    std::snprintf(buf, sizeof buf, "%.1f fps", v);
  else
    std::snprintf(buf, sizeof buf, v < 10 ? "%.3f ms" : "%.1f ms", v);
  return buf;
}

nlohmann::json timingJson(const Timing& t) {
  return {{"median", t.median}, {"min", t.min}, {"max", t.max}, {"reps", t.reps}};
}

constexpr int kNameWidth = 40;
constexpr int kBaselineWidth = 44;

}  // namespace

Timing summarize(std::vector<double> samples) {
  Timing t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  t.median = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  t.min = samples.front();
  t.max = samples.back();
  t.reps = static_cast<int>(n);
  return t;
}

Timing timeCalls(int reps, int warmup, const std::function<void()>& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return summarize(std::move(ms));
}

Result makeResult(std::string name, std::string group, std::string what, Timing ours, std::vector<Baseline> baselines) {
  Result r;
  r.name = std::move(name);
  r.group = std::move(group);
  r.what = std::move(what);
  r.ours = ours;
  r.baselines = std::move(baselines);
  return r;
}

double Result::ratio(const Baseline& b) const {
  if (!(ours.median > 0) || !(b.timing.median > 0)) return 0.0;
  return unit == "fps" ? ours.median / b.timing.median : b.timing.median / ours.median;
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, fallback;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    std::string value = colon + 1 < line.size() ? line.substr(colon + 1) : "";
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "model name" && !value.empty()) return value;
    if ((key == "Hardware" || key == "Processor") && fallback.empty()) fallback = value;
  }
  return fallback.empty() ? "unknown" : fallback;
}

BenchRun::BenchRun(bool quick, const std::string& filter)
    : quick_(quick), filterText_(filter), filter_(filter, std::regex::ECMAScript) {}

bool BenchRun::wants(const std::string& name) const { return filterText_.empty() || std::regex_search(name, filter_); }

bool BenchRun::wantsAny(const std::vector<std::string>& names) const {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return wants(n); });
}

void BenchRun::printHeader(std::ostream& out, const SystemInfo& s) {
  out << "nft_bench: GL_RENDERER " << s.glRenderer << " | GL_VERSION " << s.glVersion << " | " << s.eglPlatform
      << "\n           CPU " << s.cpuModel << " (" << s.cpuCores << " cores) | OpenCV " << s.opencvVersion
      << "\n           medians over repetitions; ratio = how many times faster ours is than the baseline\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-*s %12s  %-*s %12s %7s\n", kNameWidth, "case", "ours", kBaselineWidth,
                "baseline (same run)", "baseline", "ratio");
  out << line << std::flush;
}

void BenchRun::add(Result result, std::ostream& out) {
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %12s", kNameWidth, result.name.c_str(),
                valueText(result.ours.median, result.unit).c_str());
  out << line;
  if (result.baselines.empty()) out << "\n";
  for (size_t i = 0; i < result.baselines.size(); ++i) {
    const Baseline& b = result.baselines[i];
    if (i > 0) {
      std::snprintf(line, sizeof line, "%-*s %12s", kNameWidth, "", "");
      out << line;
    }
    std::snprintf(line, sizeof line, "  %-*s %12s %6.2fx\n", kBaselineWidth, b.name.c_str(),
                  valueText(b.timing.median, result.unit).c_str(), result.ratio(b));
    out << line;
  }
  out << std::flush;
  results_.push_back(std::move(result));
}

void BenchRun::skip(const std::string& name, const std::string& group, const std::string& reason, std::ostream& out) {
  Result r;
  r.name = name;
  r.group = group;
  r.skipped = reason;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %12s  %s\n", kNameWidth, name.c_str(), "skipped", reason.c_str());
  out << line << std::flush;
  results_.push_back(std::move(r));
}

nlohmann::json BenchRun::toJson(const SystemInfo& s) const {
  nlohmann::json results = nlohmann::json::array();
  for (const Result& r : results_) {
    nlohmann::json j = {{"name", r.name}, {"group", r.group}, {"what", r.what}, {"unit", r.unit}};
    j["skipped"] = r.skipped.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.skipped);
    if (r.skipped.empty()) {
      j.update(timingJson(r.ours));
      nlohmann::json baselines = nlohmann::json::array();
      for (const Baseline& b : r.baselines) {
        nlohmann::json bj = timingJson(b.timing);
        bj["name"] = b.name;
        bj["ratio"] = r.ratio(b);
        baselines.push_back(bj);
      }
      j["baselines"] = baselines;
      j["extra"] = r.extra;
    }
    results.push_back(j);
  }
  return {{"nft_bench", 1},
          {"system",
           {{"gl_renderer", s.glRenderer},
            {"gl_version", s.glVersion},
            {"egl_platform", s.eglPlatform},
            {"cpu_model", s.cpuModel},
            {"cpu_cores", s.cpuCores},
            {"opencv_version", s.opencvVersion}}},
          {"settings", {{"quick", quick_}, {"filter", filterText_}, {"reps", reps()}, {"warmup", warmup()}}},
          {"results", results}};
}

}  // namespace nft::bench
