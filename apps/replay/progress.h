#pragma once
// The replay's progress line on stderr: every N frames, the frame, the tracker's frame rate and
// the counts per state, so a long replay shows it is alive and how it is doing.

#include <chrono>
#include <cstdio>

#include "apps/replay/replay_report.h"

namespace nft::replay {

/// The process's resident set size, MiB (Linux /proc/self/statm); -1 when it cannot be read.
double residentMegabytes();

/// Prints "frame i/N  x.x fps (tracker y.y)  detecting a  tracking b  lost c  found p%  rss m MB"
/// to `out` every `every` frames (every > 0; 0 disables it); rss is the process's resident memory
/// (/proc/self/statm; -1 where there is none), so a long replay shows whether memory grows.
class ProgressLine {
 public:
  /// `total` frames expected (-1 when unknown, printed as "?").
  ProgressLine(int total, int every, std::FILE* out = stderr);
  /// Called after each frame with the statistics so far; prints every `every` frames.
  void update(const ReplayStats& stats);
  /// Wall-clock frames/s since construction (decoding, encoding and everything included).
  double wallFps(int frames) const;

 private:
  int total_;
  int every_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace nft::replay
