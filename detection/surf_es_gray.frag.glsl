// SurfEs gray pass (seeds/000 section 4.1): colour to gray with rounding, written to level 0
// of the pyramid atlas (a QuadPass over the image's W × H rectangle of it).
uniform sampler2D u_image;
uniform vec2 u_image_size;

void main() {
  vec4 c = texture2D(u_image, (nft_texel_index() + 0.5) / u_image_size);
#ifdef NFT_INPUT_BGR
  // OpenCV's BGR bytes uploaded as GL RGB: r holds blue, b holds red.
  float gray = floor(dot(c.rgb * 255.0, vec3(0.114, 0.587, 0.299)) + 0.5) / 255.0;
#else
  float gray = c.r;
#endif
  gl_FragColor = vec4(gray);
}
