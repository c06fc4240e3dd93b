// SurfEs sum pass, float storage: one fragment per subregion — a BLOCK × BLOCK rectangle per
// keypoint, fragment (sx, sy) for subregion (sx, sy), so 2 × 2 fragment quads are full (a
// one-texel-wide layout left half of every quad idle: measured 2× slower on llvmpipe). With
// SURF-36 the 4 × 4 block has a row and a column past the 3 × 3 subregions: zeros there.
// It reads its 36 box means straight from the pyramid and writes the subregion's four sums in
// one float texel (seeds/000 section 6.1: fewer fragments, no encoding).
float g_first_a;
float g_first_b;

float nft_mean_at(float a, float b) {
  return nft_lattice_box_mean(vec2(g_first_a + a, g_first_b + b));
}

void main() {
  nft_keypoint_frame();
  vec2 subregion = nft_local_index();
  if (max(subregion.x, subregion.y) >= SUBREGIONS) {
    gl_FragColor = vec4(0.0);
    return;
  }
  g_first_a = 5.0 * subregion.x;
  g_first_b = 5.0 * subregion.y;
  gl_FragColor = nft_subregion_sums(g_first_a, g_first_b);
}
