#include "apps/replay/progress.h"

#include <unistd.h>

#include <cmath>
#include <string>

namespace nft::replay {

ProgressLine::ProgressLine(int total, int every, std::FILE* out)
    : total_(total), every_(every), out_(out), start_(std::chrono::steady_clock::now()) {}

double ProgressLine::wallFps(int frames) const {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return s > 0 ? frames / s : 0.0;
}

double residentMegabytes() {
  // /proc/self/statm: total and resident size in pages (Linux).
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1.0;
  unsigned long total = 0, resident = 0;
  const bool ok = std::fscanf(f, "%lu %lu", &total, &resident) == 2;
  std::fclose(f);
  const long page = ::sysconf(_SC_PAGESIZE);
  return ok && page > 0 ? static_cast<double>(resident) * static_cast<double>(page) / (1024.0 * 1024.0) : -1.0;
}

void ProgressLine::update(const ReplayStats& stats) {
  const int n = stats.frames();
  if (every_ <= 0 || n % every_ != 0) return;
  using TrackerState = nft::TrackingState;
  const std::string total = total_ > 0 ? std::to_string(total_) : "?";
  const double tracker = stats.trackerFps();
  const double rss = residentMegabytes();
  std::fprintf(out_, "frame %d/%s  %.1f fps (tracker %.1f)  detecting %d  tracking %d  lost %d  found %.0f%%  rss %.1f MB\n",
               n, total.c_str(), wallFps(n), std::isfinite(tracker) ? tracker : 0.0,
               stats.count(TrackerState::Detecting), stats.count(TrackerState::Tracking),
               stats.count(TrackerState::Lost), n > 0 ? 100.0 * stats.found() / n : 0.0, rss);
  std::fflush(out_);
}

}  // namespace nft::replay
