// GpuMatcher reduce pass: per query, the nearest target over the tiles of one scan pass
// (gpu_matcher_scan.frag.glsl), merged with the previous pass's result. The scan leaves per
// (query group, tile) only each query's tile-local nearest index; this pass recomputes those
// candidates' distances exactly (the query in registers, K target fetches per tile) and keeps
// the nearest and the second-nearest among them. The global second-nearest is either that
// second or a target inside the winning tile other than the nearest: the refine pass
// (gpu_matcher_refine.frag.glsl) scans that one tile.
// Output, one RGBA8 texel per query, RESULT_QUERIES queries per row, query q at texel
// (q mod R, q / R): (index & 255, index >> 8, d2 >> 8, d2 & 255), d2 the second distance among
// the candidates as a 16-bit code (gpu_matcher_exact.glsl), index 65535 = none.
// Defines: those of gpu_matcher_common.glsl, QUERIES, MAX_TILES (constant loop bound),
// RESULT_QUERIES.
uniform NFT_SAMPLER u_partials;
uniform vec2 u_partials_size;
uniform NFT_SAMPLER u_previous;
uniform vec2 u_previous_size;
uniform vec4 u_reduce;  // (tiles this pass P, first tile, previous result?, unused)

// The tile-local index of query `slot` (0 .. QUERIES − 1 within its group) in partials texel p
// (integers; see the packing at the end of the scan).
float localIndex(vec4 p, float slot) {
#if QUERIES == 4
  return slot < 0.5 ? p.x : slot < 1.5 ? p.y : slot < 2.5 ? p.z : p.w;
#else
  float pairSlot = floor((slot + 0.5) / 2.0);
  float channel = (pairSlot < 0.5 ? p.x : pairSlot < 1.5 ? p.y : pairSlot < 2.5 ? p.z : p.w) + PACK_OFFSET;
  float high = floor((channel + 0.5) / PACK_BASE);
  return slot - 2.0 * pairSlot < 0.5 ? channel - PACK_BASE * high : high;
#endif
}

void main() {
  vec2 index = nft_texel_index();
  float q = index.y * RESULT_QUERIES + index.x;
  float groupIndex = floor((q + 0.5) / float(QUERIES));
  float slot = q - float(QUERIES) * groupIndex;
  loadQuery(q);

  float best = NONE_D;
  float second = NONE_D;
  float bestIndex = 65535.0;
  if (u_reduce.z > 0.5) {
    vec4 a = floor(texture2D(u_previous, (index + 0.5) / u_previous_size) * 255.0 + 0.5);
    bestIndex = a.r + 256.0 * a.g;
    best = bestIndex > 65534.5 ? NONE_D : targetDistance(bestIndex);
    second = decode16(a.b, a.a);
  }
  for (int j = 0; j < MAX_TILES; j++) {
    float fj = float(j);
    if (fj >= u_reduce.x) break;
    vec4 p = floor(texture2D(u_partials, (vec2(groupIndex, fj) + 0.5) / u_partials_size) * PARTIALS_SCALE + 0.5);
    float candidate = (u_reduce.y + fj) * TILE_F + localIndex(p, slot);
    float d = targetDistance(candidate);
    second = min(second, max(best, d));
    bestIndex = d < best ? candidate : bestIndex;
    best = min(best, d);
  }
  if (best >= NONE_D * 0.5) bestIndex = 65535.0;
  float c2 = code16(second);
  float indexHigh = floor(bestIndex / 256.0);
  float c2High = floor(c2 / 256.0);
  gl_FragColor = vec4(bestIndex - 256.0 * indexHigh, indexHigh, c2High, c2 - 256.0 * c2High) * (1.0 / 255.0);
}
