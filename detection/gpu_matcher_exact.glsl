// One query in registers and its exact distance to any target: the part GpuMatcher's reduce
// and refine passes share (gpu_matcher_reduce.frag.glsl, gpu_matcher_refine.frag.glsl). The
// distance is computed as the scan computes d² (gpu_matcher_scan.frag.glsl), so all passes
// rank candidates alike.
// Defines: those of gpu_matcher_common.glsl (which must come first).

uniform float u_count;  // target count M

vec4 query[BINS_QUARTER];
float qq;
float qsum;
#ifdef QUERY_SIGNS
float qs;
#endif

// Loads query q (index in SurfEs's layout) into the registers above.
void loadQuery(float q) {
  vec2 origin = queryOrigin(q);
  qq = 0.0;
  qsum = 0.0;
#define LOAD(t) { vec4 v = queryTexel(origin, float(t)); qq += dot(v, v); qsum += dot(v, vec4(1.0)); query[t] = v; }
  QUARTERS(LOAD)
#undef LOAD
#ifdef QUERY_SIGNS
  qs = querySign(q);
#endif
}

// Exact distance (not squared) from the loaded query to target `target` (global index);
// NONE_D if the index is past the targets or the Laplacian signs differ.
float targetDistance(float target) {
  float row = floor((target + 0.5) / TILE_F);
  float column = target - row * TILE_F;
  float rowV = (row + 0.5) / u_targets_size.y;
  float x = (column * TEXELS_F + 0.5) / u_targets_size.x;
  float invWidth = 1.0 / u_targets_size.x;
  float s = 0.0;
#define TERM(k) s += dot(query[k], TARGET_BINS(k));
  QUARTERS(TERM)
#undef TERM
#ifdef META
  vec2 meta = targetMeta(column, rowV);
  float tt = meta.x;
#else
  float tt = 1.0;
#endif
#ifdef TARGET_FLOAT
  float d2 = max(qq + tt - 2.0 * s, 0.0);
#else
  float d2 = max(qq + tt - 2.0 * (s - qsum), 0.0);
#endif
#ifdef QUERY_SIGNS
  if (qs * meta.y < -0.5) d2 = NONE;
#endif
  return target >= u_count - 0.5 ? NONE_D : sqrt(d2);
}
