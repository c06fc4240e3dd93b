// SurfEs pyramid pass: level k from level k − 1 of the atlas, each texel the 2 × 2 box average
// of the four below it (a mipmap level, seeds/000 section 4.2) — one bilinear fetch at their
// shared corner. Levels have ceil(size / 2) texels; at an odd edge the missing texel is the
// edge texel repeated (clamp-to-edge, the descriptor's border). Rendered into a scratch
// texture and copied into the atlas: a pass cannot read the texture it writes.
uniform sampler2D u_atlas;
uniform vec2 u_atlas_scale;    // 1 / atlas size
uniform vec2 u_source_origin;  // level k − 1 in the atlas
uniform vec2 u_source_size;

void main() {
  vec2 corner = min(2.0 * nft_texel_index() + 1.0, u_source_size - 0.5);
  gl_FragColor = texture2D(u_atlas, (u_source_origin + corner) * u_atlas_scale);
}
