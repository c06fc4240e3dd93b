// GpuMatcher scan pass: for a group of QUERIES queries and one tile of TILE target descriptors,
// each query's nearest target in the tile by Euclidean distance (brute force, seeds/000 section
// 6.1). A QuadPass over the partials: texel (g, j) is query group g (queries QUERIES·g + 0 ..
// QUERIES − 1) against tile u_scan.x + j. Comes after gpu_matcher_scan_common.glsl, which
// keeps the nearest ones and writes the outputs.
// Why groups: on a GPU without caches worth the name (llvmpipe: ~2.6 ns per RGBA32F fetch and
// lane) the target fetches dominate; each fetched target texel is used by all QUERIES queries,
// dividing them by QUERIES. All queries' bins stay in registers; the tile is read once,
// K = TEXELS texels per target. Constant loop bounds (GLSL ES 1.00 appendix A). A tile with no
// eligible target gives index 0 at distance NONE, which the later passes reject.
//
// Defines: those of gpu_matcher_scan_common.glsl, TILE (constant loop bound).
uniform vec2 u_scan;  // (first tile of the pass, target count)

// The target's texels are all fetched before any dot product: on llvmpipe a float texture
// fetch is a function call, which clobbers every vector register, so fetches interleaved with
// the accumulating dot products stored and reloaded the accumulators at each texel (measured
// at 1000 × 1000: 12.2 ms of CPU interleaved, 10.3 ms fetched first). The same split did not
// measurably help the reduce and refine, which hold one accumulator.
#define FETCH_ALL(k) t[k] = TARGET_BINS(k);
#if QUERIES == 8
#define DOTS(k) dot0 += DOTS0(t[k], k); dot1 += DOTS1(t[k], k);
#else
#define DOTS(k) dot0 += DOTS0(t[k], k);
#endif

void main() {
  vec2 index = nft_texel_index();
  float tile = u_scan.x + index.y;
  loadQueries(float(QUERIES) * index.x);

  float invWidth = 1.0 / u_targets_size.x;
  float rowV = (tile + 0.5) / u_targets_size.y;
  float base = tile * TILE_F;
  for (int i = 0; i < TILE; i++) {
    float fi = float(i);
    if (base + fi >= u_scan.y) break;
    float x = (fi * TEXELS_F + 0.5) * invWidth;
    vec4 dot0 = vec4(0.0);
    vec4 dot1 = vec4(0.0);
    vec4 t[BINS_QUARTER];
    QUARTERS(FETCH_ALL)
    QUARTERS(DOTS)
#ifdef META
    vec2 meta = targetMeta(fi, rowV);
#else
    vec2 meta = vec2(1.0, 0.0);
#endif
    keep(fi, dot0, dot1, meta.x, meta.y);
  }
  writeResults();
}
