#pragma once
// nft_bench's harness: timings as medians over repetitions, one result per measured case with
// the baselines measured in the same run and their ratios, the machine it ran on (GL_RENDERER,
// GL_VERSION, CPU model, so llvmpipe and real-GPU runs are not confused), the text table and
// the JSON document.

#include <functional>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nft::bench {

/// Summary of repeated measurements (milliseconds, or frames/s for Result::unit "fps").
struct Timing {
  double median = 0, min = 0, max = 0;
  int reps = 0;
};

/// Median, min and max of `samples` (empty: all zero).
Timing summarize(std::vector<double> samples);

/// Calls fn() `warmup` times untimed, then `reps` times, each timed (wall clock, ms).
Timing timeCalls(int reps, int warmup, const std::function<void()>& fn);

/// One baseline of a case, measured in the same run.
struct Baseline {
  std::string name;  ///< what it is, e.g. "SurfCpu, 1 thread"
  Timing timing;
};

/// One measured case.
struct Result {
  std::string name;   ///< "surf_es/float/surf64/n1024", matched by --filter
  std::string group;  ///< "surf_es", "surf_cpu", "matcher", "fast", "tracking_lane", ...
  std::string what;   ///< one line: what "ours" is
  std::string unit = "ms";  ///< "ms" (lower is better) or "fps" (higher is better)
  Timing ours;
  std::vector<Baseline> baselines;
  nlohmann::json extra = nlohmann::json::object();  ///< per-pass times, counts, settings
  std::string skipped;  ///< non-empty: not measured, and why (e.g. data missing)

  /// How many times faster ours is than baseline b: baseline / ours for "ms", ours / baseline
  /// for "fps"; 0 when either is not positive.
  double ratio(const Baseline& b) const;
};

/// A measured result in ms (set unit to "fps" for rates); extra and skipped empty.
Result makeResult(std::string name, std::string group, std::string what, Timing ours,
                  std::vector<Baseline> baselines = {});

/// The machine and context a run measured.
struct SystemInfo {
  std::string glRenderer, glVersion, eglPlatform, cpuModel, opencvVersion;
  int cpuCores = 0;
};

/// The CPU model from /proc/cpuinfo ("model name", else "Hardware" / "Processor"), or "unknown".
std::string cpuModel();

/// Settings and results of one nft_bench run.
class BenchRun {
 public:
  /// @param filter ECMAScript regex searched in case names ("" matches every case).
  /// @throws std::regex_error for a bad regex.
  BenchRun(bool quick, const std::string& filter);

  bool quick() const { return quick_; }
  /// Repetitions and warm-up calls per timed case (fewer with --quick).
  int reps() const { return quick_ ? 3 : 11; }
  int warmup() const { return quick_ ? 1 : 2; }
  /// True when --filter selects `name`.
  bool wants(const std::string& name) const;
  /// True when --filter selects any of `names`.
  bool wantsAny(const std::vector<std::string>& names) const;

  /// Records a result and prints its rows (the text table grows as the run goes).
  void add(Result result, std::ostream& out);
  /// Records a case that could not be measured (e.g. its data is missing) and says why.
  void skip(const std::string& name, const std::string& group, const std::string& reason, std::ostream& out);

  const std::vector<Result>& results() const { return results_; }
  /// The table's heading line and column names.
  static void printHeader(std::ostream& out, const SystemInfo& system);
  /// {"nft_bench": 1, "system": {...}, "settings": {"quick", "filter", "reps", "warmup"},
  ///  "results": [{"name", "group", "what", "unit", "median", "min", "max", "reps",
  ///  "baselines": [{"name", "median", "min", "max", "reps", "ratio"}], "extra", "skipped"}]}
  nlohmann::json toJson(const SystemInfo& system) const;

 private:
  bool quick_;
  std::string filterText_;
  std::regex filter_;
  std::vector<Result> results_;
};

}  // namespace nft::bench
