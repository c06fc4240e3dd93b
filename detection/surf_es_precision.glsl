// Emulation of a lower fragment precision (seeds/000 table 3: p = 10 on the Mali-400) on a GPU
// that computes with more: NFT_Q(x) rounds x to p significant bits, as a mediump unit would
// after each operation. Applied to the intermediate values of SurfEs (sample positions,
// intensities, Haar responses, sums, norms) when NFT_EMULATE_PRECISION is defined; otherwise
// NFT_Q is the identity and costs nothing.
#ifdef NFT_EMULATE_PRECISION
uniform float u_emulate_scale;  // 2^p

float nft_quantize(float x) {
  float magnitude = abs(x);
  if (magnitude == 0.0) return 0.0;
  float unit = exp2(floor(log2(magnitude)) + 1.0) / u_emulate_scale;
  return floor(x / unit + 0.5) * unit;
}
vec2 nft_quantize(vec2 v) { return vec2(nft_quantize(v.x), nft_quantize(v.y)); }
vec4 nft_quantize(vec4 v) { return vec4(nft_quantize(v.xy), nft_quantize(v.zw)); }
#define NFT_Q(x) nft_quantize(x)
#else
#define NFT_Q(x) (x)
#endif
