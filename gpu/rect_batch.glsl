// Fragment-side declarations of a RectBatch pass (see rect_batch.vert.glsl).
varying vec2 v_local;
varying vec4 v_data0;
varying vec4 v_data1;
varying vec4 v_data2;

// Index (i, j) of this fragment's texel inside its rectangle, as exact float integers.
vec2 nft_local_index() {
  return floor(v_local);
}
