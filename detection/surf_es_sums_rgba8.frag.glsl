// SurfEs sum pass, RGBA8 storage: one fragment per descriptor bin — a QuadPass over the
// descriptor layout, where keypoint k owns the BLOCK × BLOCK block (k % BLOCKS_PER_ROW,
// k / BLOCKS_PER_ROW) and bin b sits at (b % BLOCK, b / BLOCK) in it; b = 4·subregion + k.
// It reads the 36 box means of its subregion from the lattice pass's texture (the keypoint's
// LATTICE_BLOCK² block at the same block coordinates) and writes the one sum it owns with the float
// codec: GLES2 has one RGBA8 output per fragment.
uniform sampler2D u_lattice;
uniform vec2 u_lattice_size;

vec2 g_block;  // this keypoint's block origin in u_lattice
float g_first_a;
float g_first_b;

float nft_mean_at(float a, float b) {
  vec2 texel = g_block + vec2(g_first_a + a, g_first_b + b) + 0.5;
  return nft_decode_float(texture2D(u_lattice, texel / u_lattice_size), u_codec);
}

void main() {
  vec2 index = nft_texel_index();
  vec2 block = floor(index / BLOCK);
  vec2 local = index - BLOCK * block;
  float bin = local.y * BLOCK + local.x;
  g_block = LATTICE_BLOCK * block;
  float subregion = floor(bin / 4.0);
  vec4 select = vec4(equal(vec4(bin - 4.0 * subregion), vec4(0.0, 1.0, 2.0, 3.0)));
  float sy = floor(subregion / SUBREGIONS);
  g_first_a = 5.0 * (subregion - SUBREGIONS * sy);
  g_first_b = 5.0 * sy;
  gl_FragColor = nft_encode_float(dot(nft_subregion_sums(g_first_a, g_first_b), select), u_codec);
}
