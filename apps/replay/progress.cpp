#include "apps/replay/progress.h"

#include <cmath>
#include <string>

namespace nft::replay {

ProgressLine::ProgressLine(int total, int every, std::FILE* out)
    : total_(total), every_(every), out_(out), start_(std::chrono::steady_clock::now()) {}

double ProgressLine::wallFps(int frames) const {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return s > 0 ? frames / s : 0.0;
}

void ProgressLine::update(const ReplayStats& stats) {
  const int n = stats.frames();
  if (every_ <= 0 || n % every_ != 0) return;
  using tracker::TrackerState;
  const std::string total = total_ > 0 ? std::to_string(total_) : "?";
  const double tracker = stats.trackerFps();
  std::fprintf(out_, "frame %d/%s  %.1f fps (tracker %.1f)  detecting %d  tracking %d  lost %d  found %.0f%%\n", n,
               total.c_str(), wallFps(n), std::isfinite(tracker) ? tracker : 0.0, stats.count(TrackerState::Detecting),
               stats.count(TrackerState::Tracking), stats.count(TrackerState::Lost),
               n > 0 ? 100.0 * stats.found() / n : 0.0);
  std::fflush(out_);
}

}  // namespace nft::replay
