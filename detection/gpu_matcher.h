#pragma once
// Descriptor matching on the GPU with OpenGL ES 2.0 shaders (seeds/000 section 6.1: "GPU
// matching with a ratio test"): brute-force nearest and second-nearest target descriptor of
// every query by Euclidean distance, the queries read straight from SurfEs's output texture,
// only a compact result read back (8 bytes per query).
//
// Layouts and passes (detection/gpu_matcher_common.glsl, gpu_matcher_scan.frag.glsl, then
// gpu_matcher_merge.frag.glsl on the merge path or gpu_matcher_exact.glsl,
// gpu_matcher_reduce.frag.glsl and gpu_matcher_refine.frag.glsl on the reduce/refine path):
// - Target texture, uploaded once by setTarget(): tiles of T descriptors, one tile per texture
//   row, descriptor i of a tile in texels [i·K, (i + 1)·K) of its row. With
//   OES_texture_float: RGBA32F, K = D / 4 texels holding bins 4k .. 4k + 3. Core GLES2: RGBA8,
//   K = D / 2 texels holding bins 2k and 2k + 1 as 16-bit fixed point on [−1, 1]
//   (bytes hi, lo, hi, lo; step 3.1e-5); every pass decodes two texels into a vec4 of bins, so
//   the dot products cost the same on both paths.
//   An optional meta texture (T × tiles, RGBA8) holds each target's |t|² (16-bit fixed on
//   [0, 2)) and Laplacian sign; it is used only when signs are given or a row is not unit.
// - Scan pass: one fragment per (group of Q queries, tile): the Q queries' D bins held in
//   registers, a loop of T × K target fetches, each fetched texel used by all Q queries
//   (target fetches dominate on llvmpipe, so grouping divides the pass by Q), d² = |q|² + |t|²
//   − 2 q·t. Its partials texel (g, j) is query group g against tile j of the pass.
// - Merge path (GL_EXT_draw_buffers, RGBA16F render targets): the scan writes Q outputs, one
//   RGBA16F partials texture per query slot: (tile-local nearest index, nearest d² exact to
//   ~1e-6 as two half floats, tile's second-nearest d² − nearest d²). One merge pass per round
//   then reads a texel per tile and query and keeps the nearest index and the nearest and
//   second-nearest distances (the global second is the winning tile's second or another tile's
//   nearest): two RGBA8 outputs per query, (index low byte, high byte, d2 high, d2 low) and
//   (d1 high, d1 low, d2 high, d2 low).
// - Reduce/refine path (core GLES2: one output per fragment): the scan writes each query's
//   tile-local nearest index only (Q = 4: one per channel; Q = 8: two per channel, i₀ + 16·i₁
//   in RGBA8, T ≤ 16, or i₀ + 64·i₁ − 2048 in RGBA16F where it can be rendered to, T ≤ 64).
//   The reduce pass recomputes, per query, the exact distance of each tile's candidate (K
//   fetches), merged with the previous round's result: the nearest index and the second
//   distance among the candidates, one RGBA8 texel (index low byte, high byte, d2 high, d2
//   low). The refine pass, once after the last reduce, scans the winning tile again (T × K
//   fetches): the nearest's exact distance and the smaller of the candidates' second and the
//   tile's other targets — the global second-nearest is one of those, so the result is exact.
//   One RGBA8 texel per query, (d1 high, d1 low, d2 high, d2 low).
// - Distances in the results: 16-bit fixed on [0, 2] (step 3.1e-5), 65535 = none. Read back:
//   the index and distance texels, 8 bytes per query.
// - Targets beyond maxTilesPerPass tiles run in several (scan, merge or reduce) rounds,
//   ping-ponging the result.
// - The loops over a descriptor's bins are written out (QUARTERS in gpu_matcher_common.glsl):
//   llvmpipe does not unroll them, and a loop-indexed register array costs it a gather.
// Cost on llvmpipe (1000 × 1000 SURF-64, float targets, Q = 8): 2 target texel fetches per
// (query, target) pair in the scan (K / Q). A float texel fetch is a function call there
// (clobbering every vector register: the scan fetches a target's texels before its dot
// products) and there is no fused multiply-add, so the scan costs about 53 instructions per
// pair. On the reduce/refine path (T = 32) the reduce and refine add 0.5 fetches per pair
// (26 % of the time); the merge path's merge adds 1 / (Q·T) — measured 0.66× the reduce/refine
// path's time at 1000 × 1000.

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
  /// Queries per scan fragment: 4 or 8. Each target texel the scan fetches serves that many
  /// queries (fetches dominate on llvmpipe), but each query's bins are held in registers
  /// (8 × D / 4 vec4 with float targets, twice that on the RGBA8 path). The tile is bounded by
  /// what the scan's outputs can index: 256 on the merge path; on the reduce/refine path,
  /// whose one output holds only 4 small integers, 4 → 256, 8 → 16 (RGBA8 partials) or 64
  /// (RGBA16F partials, where EXT_color_buffer_half_float allows). The merge path needs this
  /// many draw buffers. Measured on llvmpipe, 1000 × 1000, reduce/refine path: 8 → 8.4 ms,
  /// 4 → 10.2 ms.
  int queriesPerFragment = 8;
  /// Target descriptors per tile (one scan fragment's loop): 0 = auto, else in [2, the bound
  /// above]; also capped so a tile row fits the texture width (maxTextureSize / K). Auto: on the
  /// merge path the power of two nearest M / 16 within [16, 256] (larger tiles load each
  /// fragment's queries for more targets, smaller ones make more fragments); on the
  /// reduce/refine path the power of two nearest √M within [8, the bound], as the reduce
  /// recomputes one candidate per tile and query (N·M/T target descriptors) and the refine
  /// scans the winning tile (N·T).
  int tileSize = 0;
  /// Tiles one scan/merge (or scan/reduce) round covers, in [1, 256]; more targets take several
  /// rounds.
  /// Lower it to test the multi-pass path cheaply.
  int maxTilesPerPass = 64;
  /// Force the RGBA8 (core GLES2) target and partial storage even where float textures exist.
  bool forceRgba8 = false;
  /// Use the merge path where the GPU allows it (GL_EXT_draw_buffers with queriesPerFragment
  /// draw buffers, RGBA16F render targets, queriesPerFragment + 2 texture units): the scan
  /// writes each query's nearest and second-nearest distance per tile, and one merge pass
  /// replaces the reduce and refine passes. false: the reduce/refine path on every GPU.
  bool drawBuffers = true;
};

/// The GPU matcher. Needs the GL context current in every call and at destruction.
/// Move-only. Target descriptors: up to 65535 (16-bit indices in the readback). Which path it
/// takes is fixed at construction (mergePath()).
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
  /// of RGBA8 targets on the core path (measured ≤ 2.5e-4 on graf); on the merge path the
  /// second distance's d² is off by at most 2^-11 of d2² − d1² (a half float). Empty queries or an
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

  /// True when the targets use float textures (false: the core RGBA8 path). Partials are
  /// RGBA16F where they can be rendered to (else RGBA8); results are RGBA8 on every GPU.
  bool floatPath() const;
  /// True when nearest() runs the merge path (GpuMatcherOptions::drawBuffers), false for the
  /// reduce/refine path.
  bool mergePath() const;
  /// Bytes read back by the last nearest() call (8 per query).
  size_t lastReadbackBytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::detection
