// Fragment-side declarations of a quad pass (see quad_pass.vert.glsl).
varying vec2 v_texel;

// Integer index (x, y) of the texel this fragment writes, as exact float integers
// (seeds/000 section 4.2, footnote 17: index in integers, not in normalised coordinates).
vec2 nft_texel_index() {
  return floor(v_texel);
}

// Texture coordinate of the centre of texel `index` in a texture of `size` texels.
vec2 nft_texel_uv(vec2 index, vec2 size) {
  return (index + 0.5) / size;
}
