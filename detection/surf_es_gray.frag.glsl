// SurfEs gray pass for colour images (seeds/000 section 4.1): colour to gray with rounding,
// rendered into the scratch target and copied to level 0 of the pyramid atlas. (Gray images
// are uploaded into the atlas directly.) OpenCV's BGR bytes are uploaded as GL RGB, so r holds
// blue and b red.
// NFT_BOX_PYRAMID: the pass renders level 0 with its margin (fragment i for pixel i − 1) and
// writes in green level 0 of the box pyramid (surf_es_pyramid.glsl): the mean of the gray pixels
// i − 1..i (2 × 2, clamped to the image), rounded half up as SurfEs rounds it on the CPU for
// gray images.
uniform sampler2D u_image;
uniform vec2 u_image_size;

float nft_gray(vec2 index) {
  vec3 bgr = texture2D(u_image, (index + 0.5) / u_image_size).rgb * 255.0;
  return floor(dot(bgr, vec3(0.114, 0.587, 0.299)) + 0.5) / 255.0;
}

void main() {
#ifdef NFT_BOX_PYRAMID
  vec2 after = min(nft_texel_index(), u_image_size - 1.0);
  vec2 before = max(nft_texel_index() - 1.0, 0.0);
  float gray = nft_gray(before);
  float sum = 255.0 * ((gray + nft_gray(vec2(after.x, before.y))) + (nft_gray(vec2(before.x, after.y)) + nft_gray(after)));
  gl_FragColor = vec4(gray, floor(0.25 * sum + 0.501) / 255.0, gray, gray);
#else
  float gray = nft_gray(nft_texel_index());
  gl_FragColor = vec4(gray);
#endif
}
