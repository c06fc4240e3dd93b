// SurfEs gray pass for colour images (seeds/000 section 4.1): colour to gray with rounding,
// rendered into the scratch target and copied to level 0 of the pyramid atlas. (Gray images
// are uploaded into the atlas directly.) OpenCV's BGR bytes are uploaded as GL RGB, so r holds
// blue and b red.
uniform sampler2D u_image;
uniform vec2 u_image_size;

void main() {
  vec3 bgr = texture2D(u_image, (nft_texel_index() + 0.5) / u_image_size).rgb * 255.0;
  gl_FragColor = vec4(floor(dot(bgr, vec3(0.114, 0.587, 0.299)) + 0.5) / 255.0);
}
