// SurfEs pyramid pass: level k from level k − 1 of the atlas, each texel the 2 × 2 box average
// of the four below it (a mipmap level, seeds/000 section 4.2) — one bilinear fetch at their
// shared corner. Levels have ceil(size / 2) texels; at an odd edge the missing texel is the
// edge texel repeated (clamp-to-edge, the descriptor's border). Rendered into a scratch
// texture and copied into the atlas: a pass cannot read the texture it writes.
// NFT_BOX_PYRAMID: the pass renders the level with its margin (fragment i for texel i − 1) and
// writes in green level k of the box pyramid (surf_es_pyramid.glsl): the mean of texels i − 1
// and i of level k (2 × 2, clamped to the level), each a bilinear fetch in level k − 1.
uniform sampler2D u_atlas;
uniform vec2 u_atlas_scale;    // 1 / atlas size
uniform vec2 u_source_origin;  // level k − 1 in the atlas
uniform vec2 u_source_size;

// Texel `index` of level k (0 .. size − 1): level k − 1 at the corner of its 2 × 2 texels.
float nft_halve_at(vec2 index) {
  vec2 corner = min(2.0 * index + 1.0, u_source_size - 0.5);
  return texture2D(u_atlas, (u_source_origin + corner) * u_atlas_scale).r;
}

void main() {
#ifdef NFT_BOX_PYRAMID
  vec2 lastTexel = ceil(0.5 * u_source_size) - 1.0;  // level k's
  vec2 after = min(nft_texel_index(), lastTexel);
  vec2 before = max(nft_texel_index() - 1.0, 0.0);
  float here = nft_halve_at(before);
  float box = 0.25 * ((here + nft_halve_at(vec2(after.x, before.y))) +
                      (nft_halve_at(vec2(before.x, after.y)) + nft_halve_at(after)));
  gl_FragColor = vec4(here, box, here, here);
#else
  vec2 corner = min(2.0 * nft_texel_index() + 1.0, u_source_size - 0.5);
  gl_FragColor = texture2D(u_atlas, (u_source_origin + corner) * u_atlas_scale);
#endif
}
