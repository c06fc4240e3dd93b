#pragma once
// Timing of GPU work behind one interface: GL_EXT_disjoint_timer_query where the probe allows
// it on a hardware GPU (the GPU's own clock, no pipeline drain), else glFinish plus a steady
// clock (also on CPU rasterisers, whose queries miss their raster threads).

#include <chrono>
#include <string_view>

namespace nft::gpu {

struct Capabilities;

/// Measures the GPU time of the GL commands issued between begin() and end(). One
/// measurement at a time; reusable. Needs the context current in begin(), end() and the
/// destructor. Move-less and copy-less (it owns a GL query object in timer-query mode).
class GpuTimer {
 public:
  /// Uses GL_EXT_disjoint_timer_query if caps has it, the renderer is not a CPU rasteriser
  /// and the entry points resolve; else the glFinish fallback.
  explicit GpuTimer(const Capabilities& caps);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  /// Starts a measurement. Fallback mode: glFinish() first, so earlier work is not counted.
  void begin();
  /// Ends it and waits for the result: elapsed GPU time in milliseconds, or NaN when the
  /// sample is void — the timer query reported a disjoint event (GL_GPU_DISJOINT_EXT: clock
  /// change, power event) or a time longer than the wall-clock time from begin() to the
  /// result, which no real measurement can be. The caller should drop NaN samples.
  /// @throws std::logic_error if begin() was not called.
  double endMs();

  /// "GL_EXT_disjoint_timer_query" or "glFinish + steady_clock".
  std::string_view method() const;
  bool usesTimerQuery() const { return query_ != 0; }

 private:
  unsigned int query_ = 0;
  bool running_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace nft::gpu
