// SurfEs normalisation pass (seeds/000 section 4.4): each bin (RGBA8 path) or four-bin texel
// (float path) divided by its descriptor's norm; a zero norm (uniform patch) gives zeros.
// A QuadPass over the descriptor layout, which u_sums shares: texel (x, y) belongs to the
// keypoint of block floor((x, y) / BLOCK), whose norm is that texel of u_norms.
uniform sampler2D u_sums;
uniform vec2 u_sums_size;
uniform sampler2D u_norms;
uniform vec2 u_norms_size;

void main() {
  vec2 index = nft_texel_index();
  vec4 texel = texture2D(u_sums, (index + 0.5) / u_sums_size);
  vec4 normTexel = texture2D(u_norms, (floor(index / BLOCK) + 0.5) / u_norms_size);
#ifdef NFT_FLOAT_STORAGE
  float norm = normTexel.r;
  gl_FragColor = norm > 0.0 ? NFT_Q(texel / norm) : vec4(0.0);
#else
  float norm = 2.0 * nft_decode_float(normTexel, u_codec);
  float v = nft_decode_float(texel, u_codec);
  gl_FragColor = nft_encode_float(norm > 0.0 ? NFT_Q(v / norm) : 0.0, u_codec);
#endif
}
