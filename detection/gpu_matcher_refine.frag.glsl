// GpuMatcher refine pass, after the last reduce (gpu_matcher_reduce.frag.glsl): per query, the
// exact distance of the nearest target and the second-nearest over all targets. The reduce
// knows the nearest index and the second distance among the tiles' candidates; the only
// targets it never compared are the winning tile's others, so this pass scans that one tile
// (TILE targets, K fetches each) and takes the smaller second.
// Output, one RGBA8 texel per query at the same texel as the reduce's result:
// (d1 >> 8, d1 & 255, d2 >> 8, d2 & 255), 16-bit codes (gpu_matcher_exact.glsl), 65535 = none.
// Defines: those of gpu_matcher_common.glsl, TILE (constant loop bound), RESULT_QUERIES.
uniform NFT_SAMPLER u_result;
uniform vec2 u_result_size;

void main() {
  vec2 index = nft_texel_index();
  vec4 a = floor(texture2D(u_result, (index + 0.5) / u_result_size) * 255.0 + 0.5);
  float bestIndex = a.r + 256.0 * a.g;
  float best = NONE_D;
  float second = decode16(a.b, a.a);
  if (bestIndex < 65534.5) {
    loadQuery(index.y * RESULT_QUERIES + index.x);
    float tileBase = floor((bestIndex + 0.5) / TILE_F) * TILE_F;
    for (int i = 0; i < TILE; i++) {
      float target = tileBase + float(i);
      if (target >= u_count - 0.5) break;
      float d = targetDistance(target);
      bool isBest = abs(target - bestIndex) < 0.5;
      best = isBest ? d : best;
      second = isBest ? second : min(second, d);
    }
  }
  float c1 = code16(best);
  float c2 = code16(second);
  float c1High = floor(c1 / 256.0);
  float c2High = floor(c2 / 256.0);
  gl_FragColor = vec4(c1High, c1 - 256.0 * c1High, c2High, c2 - 256.0 * c2High) * (1.0 / 255.0);
}
