// SurfEs norm pass (seeds/000 section 4.4): the L2 norm of each keypoint's unnormalised
// descriptor, one fragment per keypoint (a QuadPass over (keypoint % COLUMNS,
// keypoint / COLUMNS)) looping over its TEXELS texels of u_sums. RGBA8 path: stores norm / 2
// (norms reach 200, the codec holds [-128, 128)); float path: the norm.
uniform sampler2D u_sums;
uniform vec2 u_sums_size;

void main() {
  vec2 first = nft_texel_index() * vec2(1.0, float(TEXELS));
  float squares = 0.0;
  for (int t = 0; t < TEXELS; ++t) {
    vec4 texel = texture2D(u_sums, (first + vec2(0.0, float(t)) + 0.5) / u_sums_size);
#ifdef NFT_FLOAT_STORAGE
    squares = NFT_Q(squares + dot(texel, texel));
#else
    float v = nft_decode_float(texel, u_codec);
    squares = NFT_Q(squares + v * v);
#endif
  }
  float norm = NFT_Q(sqrt(squares));
#ifdef NFT_FLOAT_STORAGE
  gl_FragColor = vec4(norm);
#else
  gl_FragColor = nft_encode_float(0.5 * norm, u_codec);
#endif
}
