// GpuMatcher scan pass: for one query and one tile of TILE target descriptors, the nearest and
// second-nearest target by Euclidean distance (brute force, seeds/000 section 6.1). A QuadPass
// over the partials texture: texel (g·P + j, r) is query g·H + r against tile u_scan.z + j
// (P = u_scan.x tiles this pass, H = u_scan.y query rows). The query's bins stay in registers;
// the tile is read once, K = TEXELS texels per target. Constant loop bounds (GLSL ES 1.00
// appendix A), one RGBA output.
//
// Defines: BINS_QUARTER (D / 4), TILE (+ TILE_F), TEXELS (+ TEXELS_F); the query layout of
// GpuDescriptors: QUERY_FLOAT (four bins per texel) or not (one codec-encoded bin per texel),
// Q_SIDE (texels per side), Q_BLOCK (block pitch), Q_BPR (blocks per row); TARGET_FLOAT
// (RGBA32F targets, else 16-bit fixed point in RGBA8), PARTIAL_FLOAT (RGBA32F output, else
// RGBA8), META (per-target |t|² and Laplacian sign), QUERY_SIGNS.
// Samplers are lowp by default in GLSL ES 1.00 fragment shaders, and Mesa then returns texels
// at half precision (measured on llvmpipe: an RGBA32F 0.1234567 reads 0.1234131, an RGBA8 byte
// 77 reads 76.948 / 255): the matcher's values need highp samplers where the GPU has highp.
#if defined(GL_FRAGMENT_PRECISION_HIGH) && !defined(NFT_NO_HIGHP)
#define NFT_SAMPLER highp sampler2D
#else
#define NFT_SAMPLER mediump sampler2D
#endif
uniform NFT_SAMPLER u_queries;
uniform vec2 u_queries_size;
uniform NFT_SAMPLER u_targets;
uniform vec2 u_targets_size;
uniform vec4 u_scan;  // (tiles this pass P, query rows H, first tile of the pass, target count)
#ifdef META
uniform NFT_SAMPLER u_meta;
uniform vec2 u_meta_size;
#endif
#ifdef QUERY_SIGNS
uniform NFT_SAMPLER u_query_signs;
uniform vec2 u_query_signs_size;
#endif

// d² of "no candidate"; real values are at most 4.
#define NONE 64.0
// 16-bit fixed point on [-1, 1]: v = (256 hi + lo) / 32767.5 - 1, with the bytes hi and lo
// recovered exactly by rounding (robust to a GPU whose texel reads are not exact).
#define HI (256.0 / 32767.5)
#define LO (1.0 / 32767.5)

vec4 query[TEXELS];

// Bins 4t .. 4t + 3 of the query whose block starts at `origin`.
#ifdef QUERY_FLOAT
vec4 queryTexel(vec2 origin, float t) {
  float ty = floor((t + 0.5) / Q_SIDE);
  return texture2D(u_queries, (origin + vec2(t - ty * Q_SIDE, ty) + 0.5) / u_queries_size);
}
#else
float queryBin(vec2 origin, float b) {
  float by = floor((b + 0.5) / Q_SIDE);
  return nft_decode_float(texture2D(u_queries, (origin + vec2(b - by * Q_SIDE, by) + 0.5) / u_queries_size), u_codec);
}
vec4 queryTexel(vec2 origin, float t) {
  float b = 4.0 * t;
  return vec4(queryBin(origin, b), queryBin(origin, b + 1.0), queryBin(origin, b + 2.0), queryBin(origin, b + 3.0));
}
#endif

#ifndef PARTIAL_FLOAT
// A distance d in [0, 2] as a 12-bit code (step 2 / 4095); 4095: none.
float code12(float d2) {
  return d2 >= NONE * 0.5 ? 4095.0 : min(floor(sqrt(d2) * 2047.5 + 0.5), 4094.0);
}
#endif

void main() {
  vec2 index = nft_texel_index();
  float group = floor((index.x + 0.5) / u_scan.x);
  float j = index.x - group * u_scan.x;
  float q = group * u_scan.y + index.y;
  float tile = u_scan.z + j;

  float blockY = floor((q + 0.5) / Q_BPR);
  vec2 origin = vec2(q - blockY * Q_BPR, blockY) * Q_BLOCK;
  float qq = 0.0;
#ifndef TARGET_FLOAT
  float qsum = 0.0;
#endif
  for (int t = 0; t < BINS_QUARTER; ++t) {
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
  float signRow = floor((q + 0.5) / 64.0);
  float qs = floor(texture2D(u_query_signs, (vec2(q - 64.0 * signRow, signRow) + 0.5) / u_query_signs_size).r * 255.0 + 0.5) / 127.0 - 1.0;
#endif

  float invWidth = 1.0 / u_targets_size.x;
  float rowV = (tile + 0.5) / u_targets_size.y;
  float base = tile * TILE_F;
  float b1 = NONE;
  float b2 = NONE;
  float bi = 0.0;
  for (int i = 0; i < TILE; ++i) {
    float fi = float(i);
    if (base + fi >= u_scan.w) break;
    float x = (fi * TEXELS_F + 0.5) * invWidth;
    float s = 0.0;
    for (int k = 0; k < TEXELS; ++k) {
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
    vec4 meta = floor(texture2D(u_meta, vec2((fi + 0.5) / u_meta_size.x, rowV)) * 255.0 + 0.5);
    float d = max(qq + (meta.r * 256.0 + meta.g) / 32768.0 - 2.0 * s, 0.0);
#ifdef QUERY_SIGNS
    d = qs * (meta.b / 127.0 - 1.0) < -0.5 ? NONE : d;
#endif
#else
    float d = max(qq + 1.0 - 2.0 * s, 0.0);
#endif
    b2 = min(b2, max(b1, d));
    bi = d < b1 ? fi : bi;
    b1 = min(b1, d);
  }
#ifdef PARTIAL_FLOAT
  gl_FragColor = vec4(base + bi, b1, b2, 0.0);
#else
  float c1 = code12(b1);
  float c2 = code12(b2);
  float c1High = floor(c1 / 16.0);
  float c2High = floor(c2 / 256.0);
  gl_FragColor = vec4(bi, c1High, (c1 - 16.0 * c1High) * 16.0 + c2High, c2 - 256.0 * c2High) * (1.0 / 255.0);
#endif
}
