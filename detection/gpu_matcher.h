#pragma once
// Descriptor matching on the GPU with OpenGL ES 2.0 shaders (seeds/000 section 6.1: "GPU
// matching with a ratio test"): brute-force nearest and second-nearest target descriptor of
// every query by Euclidean distance, the queries read straight from SurfEs's output texture,
// only a compact result read back (8 bytes per query).
//
// Layouts and passes (detection/gpu_matcher_common.glsl, gpu_matcher_scan.frag.glsl,
// gpu_matcher_reduce.frag.glsl):
// - Target texture, uploaded once by setTarget(): tiles of `tileSize` descriptors, one tile
//   per texture row, descriptor i of a tile in texels [i·K, (i + 1)·K) of its row. With
//   OES_texture_float: RGBA32F, K = D / 4 texels holding bins 4k .. 4k + 3. Core GLES2: RGBA8,
//   K = D / 2 texels holding bins 2k and 2k + 1 as 16-bit fixed point on [−1, 1]
//   (bytes hi, lo, hi, lo; step 3.1e-5), which the scan decodes inside its dot product.
//   An optional meta texture (tileSize × tiles, RGBA8) holds each target's |t|² (16-bit fixed
//   on [0, 2)) and Laplacian sign; it is used only when signs are given or a row is not unit.
// - Scan pass: one fragment per (query pair, tile): both queries' D bins held in registers, a
//   loop of tileSize × K target fetches, each fetched texel used by both queries (target
//   fetches dominate on llvmpipe, so pairing halves the pass), d² = |q|² + |t|² − 2 q·t.
//   Output ("partials", RGBA8, tiles × query pairs): the tile-local indices of the best and
//   second-best target of each query, (best₀, second₀, best₁, second₁) as bytes
//   (tileSize ≤ 256). One RGBA8 output has no room for two queries' distances as well; the
//   reduce recomputes them.
// - Reduce pass: per query, for each tile of the pass, the exact distances of the tile's two
//   candidates (2 × K fetches; the global second-nearest is the winning tile's second or
//   another tile's best, so this is exact), merged with the previous pass's result; writes
//   the result: two RGBA8 texels per query, texel 0 = (index low byte, index high byte,
//   d1 high, d1 low), texel 1 = (d2 high, d2 low, 0, 0), distances 16-bit fixed on [0, 2]
//   (step 3.1e-5), 65535 = none. Only this is read back: 8 bytes per query.
// - Targets beyond maxTilesPerPass tiles run in several (scan, reduce) rounds, ping-ponging
//   the result.
// Cost on llvmpipe (1000 × 1000 SURF-64, float targets): ~8.6 texel fetches per (query,
// target) pair instead of 17, at ~2.7 ns of CPU per fetch and SIMD lane.

#include <memory>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/match.h"
#include "detection/surf_es.h"

namespace nft::gpu {
struct Capabilities;
}

namespace nft::detection {

/// Construction options of GpuMatcher.
struct GpuMatcherOptions {
  /// Most queries per call (SurfEs's maxKeypoints), in [1, 65536].
  int maxQueries = 4096;
  /// Target descriptors per scan fragment, in [2, 256] (the partials hold 8-bit tile-local
  /// indices); capped so a tile row fits the texture width (maxTextureSize / K). Larger
  /// tiles: fewer candidates for the reduce to recompute (2 per tile and query).
  int tileSize = 128;
  /// Tiles one scan/reduce round covers, in [1, 256]; more targets take several rounds.
  /// Lower it to test the multi-pass path cheaply.
  int maxTilesPerPass = 64;
  /// Force the RGBA8 (core GLES2) target and partial storage even where float textures exist.
  bool forceRgba8 = false;
};

/// The GPU matcher. Needs the GL context current in every call and at destruction.
/// Move-only. Target descriptors: up to 65535 (16-bit indices in the readback).
class GpuMatcher {
 public:
  /// Compiles nothing yet (programs are built per query layout on first use) and allocates the
  /// result textures. @throws std::invalid_argument for options out of range.
  explicit GpuMatcher(const gpu::Capabilities& caps, const GpuMatcherOptions& options = {});
  ~GpuMatcher();
  GpuMatcher(GpuMatcher&&) noexcept;
  GpuMatcher& operator=(GpuMatcher&&) noexcept;

  /// Uploads the target database once: M × D CV_32F rows (D = 64 or 36, unit rows as SURF
  /// gives; zero or non-unit rows are handled through the meta texture), optional Laplacian
  /// signs (empty or M values). An empty matrix is a valid, empty target.
  /// @throws std::invalid_argument naming a wrong type, length, count (> 65535) or sign.
  void setTarget(const cv::Mat& descriptors, const LaplacianSigns& signs = {});
  /// Number of target descriptors (M).
  int targetCount() const;

  /// The two nearest targets of each query of `queries` (SurfEs output, either storage),
  /// one Match per query in order (target −1 where none is eligible). Distances are computed
  /// in fp32 and carry the readback quantisation (≤ 1.6e-5 off), plus the 16-bit fixed point
  /// of RGBA8 targets on the core path (measured ≤ 2.5e-4 on graf). Empty queries or an
  /// empty target give an empty list. signs: empty or queries.count values.
  /// @throws std::invalid_argument for more than maxQueries queries, a descriptor type other
  ///         than the target's, or bad signs; gpu::GpuError if the GPU fails.
  std::vector<Match> nearest(const GpuDescriptors& queries, const LaplacianSigns& signs = {});
  /// The same for descriptors on the CPU (N × D CV_32F), uploaded in SurfEs's layout.
  std::vector<Match> nearest(const cv::Mat& queries, const LaplacianSigns& signs = {});

  /// nearest(), then the ratio test (and the cross-check, see MatchOptions). Accepted matches
  /// only, in query order. Cross-check on GPU descriptors needs the transposed search, which
  /// reads the queries back: it is supported for cv::Mat queries only (and throws
  /// std::invalid_argument for GpuDescriptors).
  std::vector<Match> match(const GpuDescriptors& queries, const MatchOptions& options = {},
                           const LaplacianSigns& signs = {});
  std::vector<Match> match(const cv::Mat& queries, const MatchOptions& options = {},
                           const LaplacianSigns& signs = {});

  /// True when the targets use float textures (false: the core RGBA8 path). Partials and
  /// results are RGBA8 on every GPU.
  bool floatPath() const;
  /// Bytes read back by the last nearest() call (8 per query).
  size_t lastReadbackBytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::detection
