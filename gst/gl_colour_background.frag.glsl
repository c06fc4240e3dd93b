// nftgloverlay's colour background (gst/gl_colour_background.h): the input's colour where the
// rendered pixel is the input's grey as the luma pass computes it (R = G = B = Y within 2 levels:
// the Session's background), the rendered pixel elsewhere (the augmentations).
uniform sampler2D u_rendered;
uniform sampler2D u_input;
uniform vec2 u_size;  // the frame's width and height, pixels

void main() {
  vec2 uv = nft_texel_uv(nft_texel_index(), u_size);
  vec4 c = texture2D(u_input, uv);
  vec4 r = texture2D(u_rendered, uv);
  vec3 d = abs(r.rgb - vec3(nft_rgba2gray(c.rgb)));
  gl_FragColor = max(max(d.r, d.g), d.b) <= 2.5 / 255.0 ? vec4(c.rgb, 1.0) : vec4(r.rgb, 1.0);
}
