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

// UNROLLED(S) expands S(0) S(1) ... S(TEXELS - 1): the loops over a target's texels written
// out. llvmpipe does not unroll them itself, and a loop-indexed register array (the query's
// bins) then costs a gather per lane and component: measured at 1000 × 1000, the 8-query scan
// took 36 ms of CPU as a loop and 15 ms unrolled, the RGBA8 path 111 and 47 ms.
#if TEXELS == 9
#define UNROLLED(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8)
#elif TEXELS == 16
#define UNROLLED(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
#elif TEXELS == 18
#define UNROLLED(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15) S(16) S(17)
#elif TEXELS == 32
#define UNROLLED(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15) S(16) S(17) S(18) S(19) S(20) S(21) S(22) S(23) S(24) S(25) S(26) S(27) S(28) S(29) S(30) S(31)
#endif
// QUARTERS(S) expands S(0) ... S(BINS_QUARTER - 1): the loops over a query's bins, 4 at a time.
#if BINS_QUARTER == 9
#define QUARTERS(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8)
#else
#define QUARTERS(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
#endif

// d² of "no candidate"; real values are at most 4.
#define NONE 64.0
// 16-bit fixed point on [-1, 1]: v = (256 hi + lo) / 32767.5 - 1, with the bytes hi and lo
// recovered exactly by rounding (robust to a GPU whose texel reads are not exact). A query
// texel (a, b, c, d) is held as (a·HI, a·LO, b·HI, b·LO), (c·HI, ...) so one dot product with
// the raw bytes of a target texel gives a·(t_a + 1) + b·(t_b + 1); the +1 terms cancel by
// subtracting the query's bin sum.
#define HI (256.0 / 32767.5)
#define LO (1.0 / 32767.5)

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
