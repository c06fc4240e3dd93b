// SurfEs norm pass (seeds/000 section 4.4): the L2 norm of each keypoint's unnormalised
// descriptor, one fragment per keypoint — a QuadPass over (k % BLOCKS_PER_ROW,
// k / BLOCKS_PER_ROW) — looping over the USED × USED texels at the start of its BLOCK × BLOCK
// block in u_sums.
// RGBA8 path: stores norm / 2 (norms reach 200, the codec holds [-128, 128)); float path: the
// norm.
uniform sampler2D u_sums;
uniform vec2 u_sums_size;

void main() {
  vec2 first = nft_texel_index() * BLOCK + 0.5;
  float squares = 0.0;
  for (int y = 0; y < USED_INT; y++) {
    for (int x = 0; x < USED_INT; x++) {
      vec4 texel = texture2D(u_sums, (first + vec2(float(x), float(y))) / u_sums_size);
#ifdef NFT_FLOAT_STORAGE
      squares = NFT_Q(squares + dot(texel, texel));
#else
      float v = nft_decode_float(texel, u_codec);
      squares = NFT_Q(squares + v * v);
#endif
    }
  }
  float norm = NFT_Q(sqrt(squares));
#ifdef NFT_FLOAT_STORAGE
  gl_FragColor = vec4(norm);
#else
  gl_FragColor = nft_encode_float(0.5 * norm, u_codec);
#endif
}
