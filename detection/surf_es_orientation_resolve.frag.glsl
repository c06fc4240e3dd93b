// SurfEs orientation, pass 2 of 2: adds a keypoint's four partial moments (its 2 × 2 block in
// u_moments) and writes the direction (cos a, sin a)·127 as a pair texel (gpu/float_codec.glsl).
// A QuadPass over the orientation layout: texel (k % BLOCKS_PER_ROW, k / BLOCKS_PER_ROW).
uniform sampler2D u_moments;
uniform vec2 u_moments_size;

void main() {
  vec2 first = 2.0 * nft_texel_index() + 0.5;
  vec2 moment = nft_decode_pair(texture2D(u_moments, first / u_moments_size)) +
                nft_decode_pair(texture2D(u_moments, (first + vec2(1.0, 0.0)) / u_moments_size)) +
                nft_decode_pair(texture2D(u_moments, (first + vec2(0.0, 1.0)) / u_moments_size)) +
                nft_decode_pair(texture2D(u_moments, (first + vec2(1.0, 1.0)) / u_moments_size));
  float len = length(moment);
  vec2 direction = len > 0.0 ? moment / len : vec2(1.0, 0.0);
  gl_FragColor = nft_encode_pair(direction * 127.0);
}
