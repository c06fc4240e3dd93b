#pragma once
// The GL context of a benchmark program: one for the whole program, made on first use and
// current on the benchmark thread (Google Benchmark runs cases one after another on it).

#include "gpu/capabilities.h"
#include "gpu/context.h"

namespace nft::benchmarks {

struct BenchmarkGpu {
  gpu::Context context = gpu::Context::createHeadless();
  gpu::Capabilities caps = gpu::probeCapabilities();
};

/// The program's context and its capabilities. @throws gpu::GpuError if none can be made.
inline BenchmarkGpu& benchmarkGpu() {
  static BenchmarkGpu g;
  return g;
}

}  // namespace nft::benchmarks
