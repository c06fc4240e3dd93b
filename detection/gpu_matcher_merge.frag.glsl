// GpuMatcher merge pass, after a scan with SCAN_DISTANCES (gpu_matcher_scan.frag.glsl): per
// query, the nearest target and the nearest and second-nearest distances over the tiles of one
// scan pass, merged with the previous pass's result. The scan already left, per query and tile,
// the tile's nearest index, its d² (exact to about 1e-6) and the tile's second-nearest d², so
// nothing is recomputed: the global second-nearest is the smaller of the winning tile's second
// and the other tiles' nearest. One texel fetch per tile and query.
// The scan wrote query slot c (query QUERIES·g + c) to partials texture c at texel (g, tile):
// this pass samples u_partials<c> by the query's slot.
// Outputs (GL_EXT_draw_buffers), one RGBA8 texel each per query, RESULT_QUERIES queries per row,
// query q at texel (q mod R, q / R) — the layouts the reduce and refine passes write:
// gl_FragData[0] = (index & 255, index >> 8, d2 >> 8, d2 & 255),
// gl_FragData[1] = (d1 >> 8, d1 & 255, d2 >> 8, d2 & 255), d1 and d2 as 16-bit codes
// (gpu_matcher_common.glsl), index 65535 = none.
// Defines: those of gpu_matcher_common.glsl, QUERIES (4 or 8), MAX_TILES (constant loop bound),
// RESULT_QUERIES.
uniform NFT_SAMPLER u_partials0;
uniform NFT_SAMPLER u_partials1;
uniform NFT_SAMPLER u_partials2;
uniform NFT_SAMPLER u_partials3;
#if QUERIES == 8
uniform NFT_SAMPLER u_partials4;
uniform NFT_SAMPLER u_partials5;
uniform NFT_SAMPLER u_partials6;
uniform NFT_SAMPLER u_partials7;
#endif
uniform vec2 u_partials_size;  // every partials texture's size
uniform NFT_SAMPLER u_previous_index;
uniform NFT_SAMPLER u_previous_distances;
uniform vec2 u_previous_size;
uniform vec4 u_merge;  // (tiles this pass P, first tile, previous result?, unused)

// The partials texel at `uv` of query slot `slot`. Branches, not a select of every texture:
// a fragment fetches only from the textures its lanes need.
vec4 partial(float slot, vec2 uv) {
  if (slot < 0.5) return texture2D(u_partials0, uv);
  if (slot < 1.5) return texture2D(u_partials1, uv);
  if (slot < 2.5) return texture2D(u_partials2, uv);
#if QUERIES == 8
  if (slot < 3.5) return texture2D(u_partials3, uv);
  if (slot < 4.5) return texture2D(u_partials4, uv);
  if (slot < 5.5) return texture2D(u_partials5, uv);
  if (slot < 6.5) return texture2D(u_partials6, uv);
  return texture2D(u_partials7, uv);
#else
  return texture2D(u_partials3, uv);
#endif
}

// d² of a result's 16-bit distance code; NONE for none.
float squaredOf(float high, float low) {
  float d = decode16(high, low);
  return d >= NONE_D * 0.5 ? NONE : d * d;
}

void main() {
  vec2 index = nft_texel_index();
  float q = index.y * RESULT_QUERIES + index.x;
  float group = floor((q + 0.5) / float(QUERIES));
  float slot = q - float(QUERIES) * group;

  // Nearest and second-nearest d², and the nearest's index.
  float best = NONE;
  float second = NONE;
  float bestIndex = 65535.0;
  if (u_merge.z > 0.5) {
    vec2 uv = (index + 0.5) / u_previous_size;
    vec4 a = floor(texture2D(u_previous_index, uv) * 255.0 + 0.5);
    vec4 b = floor(texture2D(u_previous_distances, uv) * 255.0 + 0.5);
    bestIndex = a.r + 256.0 * a.g;
    best = bestIndex > 65534.5 ? NONE : squaredOf(b.r, b.g);
    second = squaredOf(b.b, b.a);
  }
  for (int j = 0; j < MAX_TILES; j++) {
    float fj = float(j);
    if (fj >= u_merge.x) break;
    vec4 p = partial(slot, (vec2(group, fj) + 0.5) / u_partials_size);
    float d = (p.y + p.z) * (1.0 / 512.0);
    // The first of equals stays: earlier tiles hold lower indices.
    bool nearer = d < best;
    second = min(second, nearer ? min(best, d + p.w) : d);
    bestIndex = nearer ? (u_merge.y + fj) * TILE_F + floor(p.x + 0.5) : bestIndex;
    best = min(best, d);
  }
  if (best >= NONE * 0.5) bestIndex = 65535.0;
  float c1 = code16(sqrt(best));
  float c2 = code16(sqrt(second));
  float indexHigh = floor(bestIndex / 256.0);
  float c1High = floor(c1 / 256.0);
  float c2High = floor(c2 / 256.0);
  vec2 c2Bytes = vec2(c2High, c2 - 256.0 * c2High);
  gl_FragData[0] = vec4(bestIndex - 256.0 * indexHigh, indexHigh, c2Bytes) * (1.0 / 255.0);
  gl_FragData[1] = vec4(c1High, c1 - 256.0 * c1High, c2Bytes) * (1.0 / 255.0);
}
