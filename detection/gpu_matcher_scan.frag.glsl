// GpuMatcher scan pass: for a pair of queries and one tile of TILE target descriptors, the
// local indices of the nearest and second-nearest target of each query by Euclidean distance
// (brute force, seeds/000 section 6.1). A QuadPass over the partials texture: texel
// (g·P + j, r) is query pair g·H + r (queries 2 (g·H + r) and 2 (g·H + r) + 1) against tile
// u_scan.z + j (P = u_scan.x tiles this pass, H = u_scan.y pair rows).
// Why pairs: on a GPU without caches worth the name (llvmpipe: ~2.6 ns per RGBA32F fetch and
// lane) the target fetches dominate; each fetched target texel is used by both queries, halving
// them. Why indices only: one RGBA8 output per fragment has 32 bits, room for two queries'
// (best, second) tile-local indices (8 bits each, TILE <= 256) but not for their distances;
// the reduce pass recomputes the candidates' distances exactly, 2 per tile, which is cheap.
// Both queries' bins stay in registers; the tile is read once, K = TEXELS texels per target.
// Constant loop bounds (GLSL ES 1.00 appendix A), one RGBA output: (best, second) of the
// first query, (best, second) of the second, as bytes. A tile with one eligible target gives
// second = best; one with none gives any index, which the reduce's exact distance rejects.
//
// Defines: those of gpu_matcher_common.glsl, and TILE (constant loop bound).
uniform vec4 u_scan;  // (tiles this pass P, pair rows H, first tile of the pass, target count)

vec4 queryA[TEXELS];
vec4 queryB[TEXELS];

void main() {
  vec2 index = nft_texel_index();
  float group = floor((index.x + 0.5) / u_scan.x);
  float j = index.x - group * u_scan.x;
  float qa = 2.0 * (group * u_scan.y + index.y);
  float tile = u_scan.z + j;

  // Both queries in registers; (|q|², bin sum) per query in the x / y components.
  vec2 originA = queryOrigin(qa);
  vec2 originB = queryOrigin(qa + 1.0);
  vec2 qq = vec2(0.0);
#ifndef TARGET_FLOAT
  vec2 qsum = vec2(0.0);
#endif
  for (int t = 0; t < BINS_QUARTER; t++) {
    vec4 a = queryTexel(originA, float(t));
    vec4 b = queryTexel(originB, float(t));
    qq += vec2(dot(a, a), dot(b, b));
#ifdef TARGET_FLOAT
    queryA[t] = a;
    queryB[t] = b;
#else
    qsum += vec2(dot(a, vec4(1.0)), dot(b, vec4(1.0)));
    queryA[2 * t] = vec4(a.x * HI, a.x * LO, a.y * HI, a.y * LO);
    queryA[2 * t + 1] = vec4(a.z * HI, a.z * LO, a.w * HI, a.w * LO);
    queryB[2 * t] = vec4(b.x * HI, b.x * LO, b.y * HI, b.y * LO);
    queryB[2 * t + 1] = vec4(b.z * HI, b.z * LO, b.w * HI, b.w * LO);
#endif
  }
#ifdef QUERY_SIGNS
  vec2 qs = vec2(querySign(qa), querySign(qa + 1.0));
#endif

  float invWidth = 1.0 / u_targets_size.x;
  float rowV = (tile + 0.5) / u_targets_size.y;
  float base = tile * TILE_F;
  // Per query (x: first, y: second of the pair): best and second d², their local indices.
  vec2 b1 = vec2(NONE);
  vec2 b2 = vec2(NONE);
  vec2 i1 = vec2(0.0);
  vec2 i2 = vec2(0.0);
  for (int i = 0; i < TILE; i++) {
    float fi = float(i);
    if (base + fi >= u_scan.w) break;
    float x = (fi * TEXELS_F + 0.5) * invWidth;
    vec2 s = vec2(0.0);
    for (int k = 0; k < TEXELS; k++) {
#ifdef TARGET_FLOAT
      vec4 t = texture2D(u_targets, vec2(x + float(k) * invWidth, rowV));
#else
      vec4 t = floor(texture2D(u_targets, vec2(x + float(k) * invWidth, rowV)) * 255.0 + 0.5);
#endif
      s += vec2(dot(queryA[k], t), dot(queryB[k], t));
    }
#ifndef TARGET_FLOAT
    s -= qsum;
#endif
#ifdef META
    vec2 meta = targetMeta(fi, rowV);
    vec2 d = max(qq + meta.x - 2.0 * s, 0.0);
#ifdef QUERY_SIGNS
    d = mix(d, vec2(NONE), vec2(lessThan(qs * meta.y, vec2(-0.5))));
#endif
#else
    vec2 d = max(qq + 1.0 - 2.0 * s, 0.0);
#endif
    vec2 first = vec2(lessThan(d, b1));
    vec2 second = vec2(lessThan(d, b2));
    i2 = mix(mix(i2, vec2(fi), second), i1, first);
    b2 = min(b2, max(b1, d));
    i1 = mix(i1, vec2(fi), first);
    b1 = min(b1, d);
  }
  // A tile with a single eligible target: second = best (the reduce skips the duplicate).
  i2 = mix(i2, i1, vec2(greaterThan(b2, vec2(NONE * 0.5))));
  gl_FragColor = vec4(i1.x, i2.x, i1.y, i2.y) * (1.0 / 255.0);
}
