// SurfEs export pass (float path, readback only): unpacks the float descriptors (SUBREGIONS ×
// SUBREGIONS texels, four bins each, in blocks of BLOCK) into the layout of the RGBA8 path (block of
// BINS_BLOCK × BINS_BLOCK texels, one codec-encoded bin each), because GLES2 only guarantees
// RGBA8 readback. A QuadPass over that layout.
uniform sampler2D u_descriptors;
uniform vec2 u_descriptors_size;

void main() {
  vec2 index = nft_texel_index();
  vec2 block = floor(index / BINS_BLOCK);
  vec2 local = index - BINS_BLOCK * block;
  float bin = local.y * BINS_BLOCK + local.x;
  float t = floor(bin / 4.0);
  vec4 select = vec4(equal(vec4(bin - 4.0 * t), vec4(0.0, 1.0, 2.0, 3.0)));
  float ty = floor(t / SUBREGIONS);
  vec2 source = block * BLOCK + vec2(t - SUBREGIONS * ty, ty);
  gl_FragColor = nft_encode_float(dot(texture2D(u_descriptors, (source + 0.5) / u_descriptors_size), select), u_codec);
}
