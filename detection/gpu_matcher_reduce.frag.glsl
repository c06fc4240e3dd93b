// GpuMatcher reduce pass: per query, the nearest and second-nearest target over the tiles of
// one scan pass (gpu_matcher_scan.frag.glsl), merged with the previous pass's result, written
// as the compact result read back: two RGBA8 texels per query, RESULT_QUERIES queries per row,
// query q at texels (2 (q mod R), q / R) and (2 (q mod R) + 1, q / R):
//   texel 0 = (index & 255, index >> 8, d1 >> 8, d1 & 255), texel 1 = (d2 >> 8, d2 & 255, 0, 0),
// d1, d2 16-bit fixed point on [0, 2] (code = round(d · 32767.5)), 65535 = none.
// Defines: MAX_TILES (constant loop bound), TILE_F, RESULT_QUERIES, PARTIAL_FLOAT.
// Samplers are lowp by default in GLSL ES 1.00 fragment shaders, and Mesa then returns texels
// at half precision (measured on llvmpipe: an RGBA32F 0.1234567 reads 0.1234131, an RGBA8 byte
// 77 reads 76.948 / 255): the matcher's values need highp samplers where the GPU has highp.
#if defined(GL_FRAGMENT_PRECISION_HIGH) && !defined(NFT_NO_HIGHP)
#define NFT_SAMPLER highp sampler2D
#else
#define NFT_SAMPLER mediump sampler2D
#endif
uniform NFT_SAMPLER u_partials;
uniform vec2 u_partials_size;
uniform NFT_SAMPLER u_previous;
uniform vec2 u_previous_size;
uniform vec4 u_reduce;  // (tiles this pass P, query rows H of the partials, first tile, previous result?)

// A distance of "none"; real distances are at most 2.
#define NONE_D 8.0

float code16(float d) {
  return d >= NONE_D * 0.5 ? 65535.0 : min(floor(d * 32767.5 + 0.5), 65534.0);
}
float decode16(float high, float low) {
  float c = high * 256.0 + low;
  return c > 65534.5 ? NONE_D : c / 32767.5;
}

void main() {
  vec2 index = nft_texel_index();
  float slot = floor((index.x + 0.5) / 2.0);
  float column = index.x - 2.0 * slot;
  float q = index.y * RESULT_QUERIES + slot;
  float group = floor((q + 0.5) / u_reduce.y);
  float row = q - group * u_reduce.y;

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
  for (int j = 0; j < MAX_TILES; ++j) {
    float fj = float(j);
    if (fj >= u_reduce.x) break;
    vec4 p = texture2D(u_partials, (vec2(group * u_reduce.x + fj, row) + 0.5) / u_partials_size);
#ifdef PARTIAL_FLOAT
    float i = p.x;
    float d1 = p.y > 32.0 ? NONE_D : sqrt(p.y);
    float d2 = p.z > 32.0 ? NONE_D : sqrt(p.z);
#else
    vec4 c = floor(p * 255.0 + 0.5);
    float i = (u_reduce.z + fj) * TILE_F + c.r;
    float middle = floor(c.b / 16.0);
    float c1 = c.g * 16.0 + middle;
    float c2 = (c.b - 16.0 * middle) * 256.0 + c.a;
    float d1 = c1 > 4094.5 ? NONE_D : c1 / 2047.5;
    float d2 = c2 > 4094.5 ? NONE_D : c2 / 2047.5;
#endif
    second = min(max(best, d1), min(second, d2));
    bestIndex = d1 < best ? i : bestIndex;
    best = min(best, d1);
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
