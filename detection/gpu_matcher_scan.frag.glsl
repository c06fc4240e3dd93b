// GpuMatcher scan pass: for a group of QUERIES queries and one tile of TILE target descriptors,
// each query's nearest target in the tile by Euclidean distance (brute force, seeds/000 section
// 6.1). A QuadPass over the partials: texel (g, j) is query group g (queries QUERIES·g + 0 ..
// QUERIES − 1) against tile u_scan.x + j.
// Why groups: on a GPU without caches worth the name (llvmpipe: ~2.6 ns per RGBA32F fetch and
// lane) the target fetches dominate; each fetched target texel is used by all QUERIES queries,
// dividing them by QUERIES. All queries' bins stay in registers; the tile is read once,
// K = TEXELS texels per target. Constant loop bounds (GLSL ES 1.00 appendix A). A tile with no
// eligible target gives index 0 at distance NONE, which the later passes reject.
// Two outputs, two designs (GpuMatcher's header):
// - One RGBA output (core GLES2): the tile-local nearest indices only, packed (4 small integers
//   per output: RGBA8 bytes, or RGBA16F integers exact within ±2048; 8 queries take two per
//   channel, TILE ≤ PACK_BASE). The reduce (gpu_matcher_exact.glsl, same d² formula)
//   recomputes the candidates' distances and the refine finds the second-nearest.
// - SCAN_DISTANCES (GL_EXT_draw_buffers, RGBA16F outputs): gl_FragData[c] for query c of the
//   fragment holds (tile-local index, nearest d² as hi + lo, second-nearest d² − nearest d²);
//   the merge pass (gpu_matcher_merge.frag.glsl) needs nothing else. The nearest d² is exact to
//   about 1e-6: hi = floor(512 d²) is an integer a half float holds exactly (d² ≤ 4), lo =
//   512 d² − hi in [0, 1) keeps 11 bits. The second is a difference: its half-float error is
//   at most 2^-11 of the gap to the nearest.
//
// Defines: those of gpu_matcher_common.glsl, TILE (constant loop bound), QUERIES (4 or 8),
// SCAN_DISTANCES.
uniform vec2 u_scan;  // (first tile of the pass, target count)

// The queries' bins, four queries per vec4 "lane group": query 4g + c is component c of group
// g's accumulators, its bins in queryGC[]. Written out (not one array indexed by query) because
// llvmpipe then keeps every accumulator in registers and each target texel feeds 4 dot
// products per group.
vec4 query00[BINS_QUARTER];
vec4 query01[BINS_QUARTER];
vec4 query02[BINS_QUARTER];
vec4 query03[BINS_QUARTER];
#if QUERIES == 8
vec4 query10[BINS_QUARTER];
vec4 query11[BINS_QUARTER];
vec4 query12[BINS_QUARTER];
vec4 query13[BINS_QUARTER];
#endif
// Per lane group: the 4 queries' |q|², bin sums and signs; the nearest d² so far and its
// tile-local index, and the second-nearest d².
vec4 qq0, qsum0, qs0, best0, index0, second0;
#if QUERIES == 8
vec4 qq1, qsum1, qs1, best1, index1, second1;
#endif

// Loads query q into `bins`; returns (|q|², bin sum, Laplacian sign, 0).
vec4 loadQuery(float q, out vec4 bins[BINS_QUARTER]) {
  vec2 origin = queryOrigin(q);
  vec4 stats = vec4(0.0);
#define LOAD(t) { vec4 a = queryTexel(origin, float(t)); stats.x += dot(a, a); stats.y += dot(a, vec4(1.0)); bins[t] = a; }
  QUARTERS(LOAD)
#undef LOAD
#ifdef QUERY_SIGNS
  stats.z = querySign(q);
#endif
  return stats;
}

// Loads queries q0 .. q0 + QUERIES − 1 and resets the nearest ones.
void loadQueries(float q0) {
  vec4 s0 = loadQuery(q0, query00);
  vec4 s1 = loadQuery(q0 + 1.0, query01);
  vec4 s2 = loadQuery(q0 + 2.0, query02);
  vec4 s3 = loadQuery(q0 + 3.0, query03);
  qq0 = vec4(s0.x, s1.x, s2.x, s3.x);
  qsum0 = vec4(s0.y, s1.y, s2.y, s3.y);
  qs0 = vec4(s0.z, s1.z, s2.z, s3.z);
  best0 = vec4(NONE);
  index0 = vec4(0.0);
  second0 = vec4(NONE);
#if QUERIES == 8
  s0 = loadQuery(q0 + 4.0, query10);
  s1 = loadQuery(q0 + 5.0, query11);
  s2 = loadQuery(q0 + 6.0, query12);
  s3 = loadQuery(q0 + 7.0, query13);
  qq1 = vec4(s0.x, s1.x, s2.x, s3.x);
  qsum1 = vec4(s0.y, s1.y, s2.y, s3.y);
  qs1 = vec4(s0.z, s1.z, s2.z, s3.z);
  best1 = vec4(NONE);
  index1 = vec4(0.0);
  second1 = vec4(NONE);
#endif
}

// Dot products of target bins t (4 bins, bins 4k .. 4k + 3) with each lane group's queries.
#define DOTS0(t, k) vec4(dot(query00[k], t), dot(query01[k], t), dot(query02[k], t), dot(query03[k], t))
#define DOTS1(t, k) vec4(dot(query10[k], t), dot(query11[k], t), dot(query12[k], t), dot(query13[k], t))

// One target's d² to the four queries of a group, from their dot products s, |q|² qq, bin
// sums qsum, signs qs and the target's |t|² tt and sign ts.
vec4 distances(vec4 s, vec4 qq, vec4 qsum, vec4 qs, float tt, float ts) {
#ifdef TARGET_FLOAT
  vec4 d = max(qq + tt - 2.0 * s, 0.0);
#else
  vec4 d = max(qq + tt - 2.0 * (s - qsum), 0.0);
#endif
#ifdef QUERY_SIGNS
  d = mix(d, vec4(NONE), vec4(lessThan(qs * ts, vec4(-0.5))));
#endif
  return d;
}

// Target `fi` (tile-local index) with dot products dot0 (lane group 0) and dot1 (group 1),
// |t|² tt and sign ts: kept where it is nearer than the nearest so far (the first of equals).
void keep(float fi, vec4 dot0, vec4 dot1, float tt, float ts) {
  vec4 d = distances(dot0, qq0, qsum0, qs0, tt, ts);
#ifdef SCAN_DISTANCES
  second0 = min(second0, max(best0, d));
#endif
  index0 = mix(index0, vec4(fi), vec4(lessThan(d, best0)));
  best0 = min(best0, d);
#if QUERIES == 8
  d = distances(dot1, qq1, qsum1, qs1, tt, ts);
#ifdef SCAN_DISTANCES
  second1 = min(second1, max(best1, d));
#endif
  index1 = mix(index1, vec4(fi), vec4(lessThan(d, best1)));
  best1 = min(best1, d);
#endif
}

#ifdef SCAN_DISTANCES
// Query c of the fragment's output: (tile-local index, nearest d² = (hi + lo) / 512,
// second-nearest d² − nearest d²).
vec4 scanResult(float index, float best, float second) {
  float scaled = best * 512.0;
  float hi = floor(scaled);
  return vec4(index, hi, scaled - hi, second - best);
}

void writeResults() {
  gl_FragData[0] = scanResult(index0.x, best0.x, second0.x);
  gl_FragData[1] = scanResult(index0.y, best0.y, second0.y);
  gl_FragData[2] = scanResult(index0.z, best0.z, second0.z);
  gl_FragData[3] = scanResult(index0.w, best0.w, second0.w);
#if QUERIES == 8
  gl_FragData[4] = scanResult(index1.x, best1.x, second1.x);
  gl_FragData[5] = scanResult(index1.y, best1.y, second1.y);
  gl_FragData[6] = scanResult(index1.z, best1.z, second1.z);
  gl_FragData[7] = scanResult(index1.w, best1.w, second1.w);
#endif
}
#else
// The output: each query's tile-local nearest index, as integers scaled to the partials.
void writeResults() {
#if QUERIES == 4
  gl_FragColor = index0 * (1.0 / PARTIALS_SCALE);
#else
  // Two queries per channel: channel c = index of query 2c + PACK_BASE × index of query 2c + 1
  // − PACK_OFFSET.
  gl_FragColor = (vec4(index0.xz, index1.xz) + PACK_BASE * vec4(index0.yw, index1.yw) - PACK_OFFSET) * (1.0 / PARTIALS_SCALE);
#endif
}
#endif

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
