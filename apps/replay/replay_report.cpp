#include "apps/replay/replay_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

namespace nft::replay {
namespace {

/// Median of the values; NaN when there are none.
double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  return m;
}

/// Median of the values > 0 (a stage that did not run records 0); NaN when none.
double medianOfPositive(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());
  return median(std::move(v));
}

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

/// The share of `errors` ≤ thresholdPx (0 when there are none).
double shareWithin(const std::vector<double>& errors, double thresholdPx) {
  if (errors.empty()) return 0.0;
  const auto ok = std::count_if(errors.begin(), errors.end(), [&](double e) { return e <= thresholdPx; });
  return static_cast<double>(ok) / static_cast<double>(errors.size());
}

/// Median of the finite errors (the found frames); NaN when none.
double medianOfFinite(const std::vector<double>& errors) {
  std::vector<double> finite;
  for (double e : errors)
    if (std::isfinite(e)) finite.push_back(e);
  return median(std::move(finite));
}

/// Mean of the finite errors and how many there are (mean NaN when none).
std::pair<double, int> meanOfFinite(const std::vector<double>& errors) {
  double sum = 0;
  int finite = 0;
  for (double e : errors)
    if (std::isfinite(e)) {
      sum += e;
      ++finite;
    }
  return {finite > 0 ? sum / finite : std::nan(""), finite};
}

}  // namespace

void ReplayStats::reserve(int frames) {
  if (frames <= 0) return;
  const auto n = static_cast<size_t>(std::min(frames, 1000000));  // beyond that, grow as needed
  states_.reserve(n);
  timings_.reserve(n);
  renderMs_.reserve(n);
}

void ReplayStats::add(const FrameResult& frame, double renderMs, std::optional<double> alignmentErrorPx,
                      std::optional<double> visibleErrorPx) {
  const bool found = !frame.targets.empty() && frame.targets.front().found;
  states_.push_back(frame.targets.empty() ? TrackingState::Detecting : frame.targets.front().state);
  timings_.push_back(frame.timings);
  renderMs_.push_back(renderMs);
  if (found) ++found_;
  if (alignmentErrorPx) errors_.push_back(found ? *alignmentErrorPx : std::numeric_limits<double>::infinity());
  if (visibleErrorPx && !std::isnan(*visibleErrorPx))
    visibleErrors_.push_back(found ? *visibleErrorPx : std::numeric_limits<double>::infinity());
}

int ReplayStats::count(TrackingState state) const {
  return static_cast<int>(std::count(states_.begin(), states_.end(), state));
}

double ReplayStats::successRate(double thresholdPx) const { return shareWithin(errors_, thresholdPx); }

double ReplayStats::medianErrorPx() const { return medianOfFinite(errors_); }

double ReplayStats::visibleSuccessRate(double thresholdPx) const { return shareWithin(visibleErrors_, thresholdPx); }

double ReplayStats::medianVisibleErrorPx() const { return medianOfFinite(visibleErrors_); }

FrameTimePercentiles frameTimePercentiles(std::vector<double> ms) {
  FrameTimePercentiles p;
  if (ms.empty()) {
    p.p50 = p.p90 = p.p99 = p.max = std::numeric_limits<double>::quiet_NaN();
    return p;
  }
  std::sort(ms.begin(), ms.end());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  const auto rank = [&](double q) {
    const size_t r = static_cast<size_t>(std::ceil(q * static_cast<double>(ms.size())));
    return ms[std::clamp<size_t>(r, 1, ms.size()) - 1];
  };
  p.p50 = rank(0.50);
  p.p90 = rank(0.90);
  p.p99 = rank(0.99);
  p.max = ms.back();
  return p;
}

FrameTimePercentiles ReplayStats::processMs() const {
  std::vector<double> ms;
  ms.reserve(timings_.size());
  for (const FrameTimings& t : timings_) ms.push_back(t.total);
  return frameTimePercentiles(std::move(ms));
}

double ReplayStats::trackerFps() const {
  double ms = 0;
  for (const FrameTimings& t : timings_) ms += t.total;
  return ms > 0 ? 1000.0 * frames() / ms : std::numeric_limits<double>::quiet_NaN();
}

double ReplayStats::pipelineFps() const {
  if (std::none_of(renderMs_.begin(), renderMs_.end(), [](double r) { return r > 0; }))
    return std::numeric_limits<double>::quiet_NaN();
  double ms = 0;
  for (size_t i = 0; i < timings_.size(); ++i) ms += timings_[i].total + renderMs_[i];
  return ms > 0 ? 1000.0 * frames() / ms : std::numeric_limits<double>::quiet_NaN();
}

nlohmann::json ReplayStats::toJson() const {
  using TrackerState = nft::TrackingState;
  nlohmann::json j;
  j["frames"] = frames();
  j["found"] = found_;
  j["found_fraction"] = frames() > 0 ? static_cast<double>(found_) / frames() : 0.0;
  j["states"] = {{"detecting", count(TrackerState::Detecting)},
                 {"tracking", count(TrackerState::Tracking)},
                 {"lost", count(TrackerState::Lost)}};

  auto laneFps = [&](TrackerState state) {
    double ms = 0;
    int n = 0;
    for (size_t i = 0; i < states_.size(); ++i)
      if (states_[i] == state) {
        ms += timings_[i].total;
        ++n;
      }
    return number(n > 0 && ms > 0 ? 1000.0 * n / ms : std::numeric_limits<double>::quiet_NaN());
  };
  j["fps"] = {{"tracker", number(trackerFps())},
              {"with_render", number(pipelineFps())},
              {"detecting", laneFps(TrackerState::Detecting)},
              {"tracking", laneFps(TrackerState::Tracking)},
              {"lost", laneFps(TrackerState::Lost)}};

  auto stageMedian = [&](const std::function<double(const FrameTimings&)>& stage) {
    std::vector<double> v;
    v.reserve(timings_.size());
    for (const FrameTimings& t : timings_) v.push_back(stage(t));
    return number(medianOfPositive(std::move(v)));
  };
  nlohmann::json m;
  m["convert"] = stageMedian([](const auto& t) { return t.convert; });
  m["detect"] = stageMedian([](const auto& t) { return t.fast; });
  m["describe"] = stageMedian([](const auto& t) { return t.describe; });
  m["match"] = stageMedian([](const auto& t) { return t.match; });
  m["ransac"] = stageMedian([](const auto& t) { return t.ransac; });
  m["pose"] = stageMedian([](const auto& t) { return t.detectionPose; });
  m["tracking_pyramid"] = stageMedian([](const auto& t) { return t.pyramid; });
  m["tracking_coarse"] = stageMedian([](const auto& t) { return t.coarse; });
  m["tracking_fine"] = stageMedian([](const auto& t) { return t.fine; });
  m["tracking_pose"] = stageMedian([](const auto& t) { return t.trackingPose; });
  m["refine"] = stageMedian([](const auto& t) { return t.refine; });
  m["total"] = stageMedian([](const auto& t) { return t.total; });
  m["render"] = number(medianOfPositive(renderMs_));
  j["median_ms"] = m;
  double sum = 0;
  for (const FrameTimings& t : timings_) sum += t.total;
  j["mean_ms_total"] = number(frames() > 0 ? sum / frames() : std::numeric_limits<double>::quiet_NaN());
  if (frames() > 0) {
    const FrameTimePercentiles p = processMs();
    j["process_ms"] = {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
  } else {
    j["process_ms"] = nullptr;
  }

  if (errors_.empty()) {
    j["ground_truth"] = nullptr;
  } else {
    const auto [mean, finite] = meanOfFinite(errors_);
    j["ground_truth"] = {{"frames", groundTruthFrames()},
                         {"success_5px", successRate(5.0)},
                         {"success_10px", successRate(10.0)},
                         {"median_error_px", number(medianErrorPx())},
                         {"mean_error_px", number(mean)},
                         {"failed_not_found", groundTruthFrames() - finite},
                         {"visible_frames", visibleFrames()},
                         {"visible_success_5px", visibleFrames() > 0 ? nlohmann::json(visibleSuccessRate(5.0)) : nullptr},
                         {"visible_success_10px", visibleFrames() > 0 ? nlohmann::json(visibleSuccessRate(10.0)) : nullptr},
                         {"median_visible_error_px", number(medianVisibleErrorPx())},
                         {"mean_visible_error_px", number(meanOfFinite(visibleErrors_).first)}};
  }
  return j;
}

void writeJsonAtomically(const nlohmann::json& json, const std::string& path) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw std::runtime_error("cannot create report file '" + temporary + "'");
    out << json.dump(2) << "\n";
    out.flush();
    if (!out) throw std::runtime_error("cannot write report file '" + temporary + "'");
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error("cannot write report file '" + path + "': " + ec.message());
  }
}

}  // namespace nft::replay
