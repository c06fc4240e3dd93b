// Declarations shared by GpuMatcher's scan and reduce passes (gpu_matcher_scan.frag.glsl,
// gpu_matcher_reduce.frag.glsl): the query, target and meta samplers, reading a query from
// SurfEs's layout, and the fixed-point constants of the RGBA8 target storage. Both passes must
// compute a distance the same way, so the scan's choice of candidates and the reduce's exact
// distances agree.
//
// Defines: BINS_QUARTER (D / 4), TEXELS (+ TEXELS_F, target texels per descriptor), TILE_F;
// the query layout of GpuDescriptors: QUERY_FLOAT (four bins per texel) or not (one
// codec-encoded bin per texel, needs gpu/float_codec.glsl first), Q_SIDE (texels per side),
// Q_BLOCK (block pitch), Q_BPR (blocks per row); TARGET_FLOAT (RGBA32F targets, else 16-bit
// fixed point in RGBA8), META (per-target |t|² and Laplacian sign), QUERY_SIGNS; the partials'
// packing: PACK_BASE (16.0 in RGBA8, 64.0 in RGBA16F), PACK_OFFSET (0.0, 2048.0) and
// PARTIALS_SCALE (255.0, 1.0).
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
#ifdef META
uniform NFT_SAMPLER u_meta;
uniform vec2 u_meta_size;
#endif
#ifdef QUERY_SIGNS
uniform NFT_SAMPLER u_query_signs;
uniform vec2 u_query_signs_size;
#endif

// QUARTERS(S) expands S(0) ... S(BINS_QUARTER - 1): the loops over a descriptor's bins, 4 at a
// time, written out. llvmpipe does not unroll them itself, and a loop-indexed register array (the
// query's bins) then costs a gather per lane and component: measured at 1000 × 1000, the 8-query
// scan took 36 ms of CPU as a loop and 15 ms unrolled, the RGBA8 path 111 and 47 ms.
#if BINS_QUARTER == 9
#define QUARTERS(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8)
#else
#define QUARTERS(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
#endif

// d² of "no candidate"; real values are at most 4.
#define NONE 64.0
// A distance of "none" (NONE's square root); real distances are at most 2.
#define NONE_D 8.0

// Distances in the result textures: d in [0, 2] as a 16-bit code round(d · 32767.5) (step
// 3.1e-5), 65535 = none.
float code16(float d) {
  return d >= NONE_D * 0.5 ? 65535.0 : min(floor(d * 32767.5 + 0.5), 65534.0);
}
float decode16(float high, float low) {
  float c = high * 256.0 + low;
  return c > 65534.5 ? NONE_D : c / 32767.5;
}
// 16-bit fixed point on [-1, 1] in RGBA8 targets: v = (256 hi + lo) / 32767.5 - 1, two bins
// per texel as bytes (hi, lo, hi, lo). TARGET_BINS(k) gives bins 4k .. 4k + 3 of the target
// whose first texel is at x in row rowV (in scope: x, rowV, invWidth = 1 / texture width): an
// RGBA32F texel, or two RGBA8 texels decoded to v + 1 — the +1 terms cancel by subtracting the
// query's bin sum. The bytes are read as u / 255 (to 1e-7 in highp) and not rounded back to
// integers: that cost the scan 12 operations a texel, and a mediump GPU cannot hold the 16-bit
// value exactly either way.
#ifdef TARGET_FLOAT
#define TARGET_BINS(k) texture2D(u_targets, vec2(x + float(k) * invWidth, rowV))
#else
#define TARGET_BINS(k) decodeBins(texture2D(u_targets, vec2(x + float(2 * k) * invWidth, rowV)), texture2D(u_targets, vec2(x + float(2 * k + 1) * invWidth, rowV)))
vec4 decodeBins(vec4 a, vec4 b) {
  return vec4(a.xz, b.xz) * (255.0 * 256.0 / 32767.5) + vec4(a.yw, b.yw) * (255.0 / 32767.5);
}
#endif

// Texel origin of query q's block in SurfEs's layout.
vec2 queryOrigin(float q) {
  float blockY = floor((q + 0.5) / Q_BPR);
  return vec2(q - blockY * Q_BPR, blockY) * Q_BLOCK;
}

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

#ifdef QUERY_SIGNS
// Laplacian sign of query q: -1, 0 or +1.
float querySign(float q) {
  float signRow = floor((q + 0.5) / 64.0);
  return floor(texture2D(u_query_signs, (vec2(q - 64.0 * signRow, signRow) + 0.5) / u_query_signs_size).r * 255.0 + 0.5) / 127.0 - 1.0;
}
#endif

#ifdef META
// The meta texel of the target in column `column` of tile row v (texture coordinate rowV):
// (|t|², Laplacian sign).
vec2 targetMeta(float column, float rowV) {
  vec4 meta = floor(texture2D(u_meta, vec2((column + 0.5) / u_meta_size.x, rowV)) * 255.0 + 0.5);
  return vec2((meta.r * 256.0 + meta.g) / 32768.0, meta.b / 127.0 - 1.0);
}
#endif
