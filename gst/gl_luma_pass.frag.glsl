// nftgloverlay's luma pass (gst/gl_luma_pass.h): output texel (X, y) = the luma of input pixels
// 4X .. 4X+3 of row y, one per channel (the last texel of a row repeats the row's last pixel where
// the width is not a multiple of 4). The input is sampled at its texel centres.
uniform sampler2D u_texture;
uniform vec2 u_size;  // the input's width and height, pixels

float lumaAt(float x, float y) {
  return nft_rgba2gray(texture2D(u_texture, nft_texel_uv(vec2(min(x, u_size.x - 1.0), y), u_size)).rgb);
}

void main() {
  vec2 texel = nft_texel_index();
  float x = texel.x * 4.0;
  gl_FragColor = vec4(lumaAt(x, texel.y), lumaAt(x + 1.0, texel.y), lumaAt(x + 2.0, texel.y), lumaAt(x + 3.0, texel.y));
}
