// SurfEs sum pass, float storage: one fragment per subregion (a 1 × SUBREGIONS² rectangle per
// keypoint) reads its 36 box means straight from the pyramid and writes the subregion's four
// sums in one float texel (seeds/000 section 6.1: fewer fragments, no encoding).
float g_first_a;
float g_first_b;

float nft_mean_at(float a, float b) {
  return nft_lattice_box_mean(vec2(g_first_a + a, g_first_b + b));
}

void main() {
  nft_keypoint_frame();
  float subregion = nft_local_index().y;
  float sy = floor(subregion / SUBREGIONS);
  g_first_a = 5.0 * (subregion - SUBREGIONS * sy);
  g_first_b = 5.0 * sy;
  gl_FragColor = nft_subregion_sums(g_first_a, g_first_b);
}
