// GpuMatcher reduce pass: per query, the nearest and second-nearest target over the tiles of
// one scan pass (gpu_matcher_scan.frag.glsl), merged with the previous pass's result, written
// as the compact result read back: two RGBA8 texels per query, RESULT_QUERIES queries per row,
// query q at texels (2 (q mod R), q / R) and (2 (q mod R) + 1, q / R):
//   texel 0 = (index & 255, index >> 8, d1 >> 8, d1 & 255), texel 1 = (d2 >> 8, d2 & 255, 0, 0),
// d1, d2 16-bit fixed point on [0, 2] (code = round(d · 32767.5)), 65535 = none.
// The scan leaves per (query, tile) only the local indices of the best two targets; this pass
// recomputes their distances exactly (the query in registers, 2 × K target fetches per tile),
// so the nearest two over all tiles are exact: the global second is either the winning tile's
// second or another tile's best. Both texels of a query run the same loop (one RGBA output per
// fragment); with 2 candidates per tile that costs far less than the scan.
// Defines: those of gpu_matcher_common.glsl, MAX_TILES (constant loop bound), RESULT_QUERIES.
uniform NFT_SAMPLER u_partials;
uniform vec2 u_partials_size;
uniform NFT_SAMPLER u_previous;
uniform vec2 u_previous_size;
uniform vec4 u_reduce;  // (tiles this pass P, pair rows H of the partials, first tile, previous result?)
uniform float u_count;  // target count M

// A distance of "none"; real distances are at most 2.
#define NONE_D 8.0

vec4 query[TEXELS];
float qq;
#ifndef TARGET_FLOAT
float qsum;
#endif
#ifdef QUERY_SIGNS
float qs;
#endif

float code16(float d) {
  return d >= NONE_D * 0.5 ? 65535.0 : min(floor(d * 32767.5 + 0.5), 65534.0);
}
float decode16(float high, float low) {
  float c = high * 256.0 + low;
  return c > 65534.5 ? NONE_D : c / 32767.5;
}

// Exact distance (not squared) from the query to target `target` (global index), computed as
// the scan computes d²; NONE_D if the index is past the targets or the signs differ.
float targetDistance(float target) {
  float row = floor((target + 0.5) / TILE_F);
  float column = target - row * TILE_F;
  float rowV = (row + 0.5) / u_targets_size.y;
  float x = (column * TEXELS_F + 0.5) / u_targets_size.x;
  float invWidth = 1.0 / u_targets_size.x;
  float s = 0.0;
  for (int k = 0; k < TEXELS; k++) {
#ifdef TARGET_FLOAT
    s += dot(query[k], texture2D(u_targets, vec2(x + float(k) * invWidth, rowV)));
#else
    s += dot(query[k], floor(texture2D(u_targets, vec2(x + float(k) * invWidth, rowV)) * 255.0 + 0.5));
#endif
  }
#ifndef TARGET_FLOAT
  s -= qsum;
#endif
#ifdef META
  vec2 meta = targetMeta(column, rowV);
  float d2 = max(qq + meta.x - 2.0 * s, 0.0);
#ifdef QUERY_SIGNS
  if (qs * meta.y < -0.5) d2 = NONE;
#endif
#else
  float d2 = max(qq + 1.0 - 2.0 * s, 0.0);
#endif
  return target >= u_count - 0.5 ? NONE_D : sqrt(d2);
}

void main() {
  vec2 index = nft_texel_index();
  float slot = floor((index.x + 0.5) / 2.0);
  float column = index.x - 2.0 * slot;
  float q = index.y * RESULT_QUERIES + slot;
  float pair = floor((q + 0.5) / 2.0);
  bool firstOfPair = q - 2.0 * pair < 0.5;
  float group = floor((pair + 0.5) / u_reduce.y);
  float row = pair - group * u_reduce.y;

  vec2 origin = queryOrigin(q);
  qq = 0.0;
#ifndef TARGET_FLOAT
  qsum = 0.0;
#endif
  for (int t = 0; t < BINS_QUARTER; t++) {
    vec4 v = queryTexel(origin, float(t));
    qq += dot(v, v);
#ifdef TARGET_FLOAT
    query[t] = v;
#else
    qsum += dot(v, vec4(1.0));
    query[2 * t] = vec4(v.x * HI, v.x * LO, v.y * HI, v.y * LO);
    query[2 * t + 1] = vec4(v.z * HI, v.z * LO, v.w * HI, v.w * LO);
#endif
  }
#ifdef QUERY_SIGNS
  qs = querySign(q);
#endif

  float best = NONE_D;
  float second = NONE_D;
  float bestIndex = 65535.0;
  if (u_reduce.w > 0.5) {
    vec4 a = floor(texture2D(u_previous, (vec2(2.0 * slot, index.y) + 0.5) / u_previous_size) * 255.0 + 0.5);
    vec4 b = floor(texture2D(u_previous, (vec2(2.0 * slot + 1.0, index.y) + 0.5) / u_previous_size) * 255.0 + 0.5);
    bestIndex = a.r + 256.0 * a.g;
    best = decode16(a.b, a.a);
    second = decode16(b.r, b.g);
  }
  for (int j = 0; j < MAX_TILES; j++) {
    float fj = float(j);
    if (fj >= u_reduce.x) break;
    vec4 p = floor(texture2D(u_partials, (vec2(group * u_reduce.x + fj, row) + 0.5) / u_partials_size) * 255.0 + 0.5);
    vec2 local = firstOfPair ? p.xy : p.zw;
    float tileBase = (u_reduce.z + fj) * TILE_F;
    // The tile's best two; the second is skipped when it repeats the best (a tile with one
    // eligible target).
    float i1 = tileBase + local.x;
    float i2 = tileBase + local.y;
    float d1 = targetDistance(i1);
    float d2 = local.y == local.x ? NONE_D : targetDistance(i2);
    second = min(second, max(best, d1));
    bestIndex = d1 < best ? i1 : bestIndex;
    best = min(best, d1);
    second = min(second, max(best, d2));
    bestIndex = d2 < best ? i2 : bestIndex;
    best = min(best, d2);
  }
  float c1 = code16(best);
  float c2 = code16(second);
  if (c1 > 65534.5) bestIndex = 65535.0;
  float indexHigh = floor(bestIndex / 256.0);
  float c1High = floor(c1 / 256.0);
  float c2High = floor(c2 / 256.0);
  vec4 texel0 = vec4(bestIndex - 256.0 * indexHigh, indexHigh, c1High, c1 - 256.0 * c1High);
  vec4 texel1 = vec4(c2High, c2 - 256.0 * c2High, 0.0, 0.0);
  gl_FragColor = (column < 0.5 ? texel0 : texel1) * (1.0 / 255.0);
}
