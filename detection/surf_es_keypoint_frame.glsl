// The keypoint's frame for the box lattice of detection/surf_descriptor.h:
// c(a, b) = (x, y) + (a − GRID/2)·s·u + (b − GRID/2)·s·v. Oriented, (cos a, sin a) comes from
// the orientation pass's texel at v_data1.w, v_data2.w; upright it is (1, 0).
#ifdef NFT_ORIENTED
uniform sampler2D u_orientation;
uniform vec2 u_orientation_size;
#endif

vec2 g_origin;  // c(0, 0)
vec2 g_u;       // s·u
vec2 g_v;       // s·v

void nft_keypoint_frame() {
#ifdef NFT_ORIENTED
  vec2 cs = nft_decode_pair(texture2D(u_orientation, vec2(v_data1.w, v_data2.w) / u_orientation_size)) / 127.0;
#else
  vec2 cs = vec2(1.0, 0.0);
#endif
  g_u = v_data0.z * cs;
  g_v = v_data0.z * vec2(-cs.y, cs.x);
  g_origin = v_data0.xy - 0.5 * GRID * (g_u + g_v);
}

// Mean of the box at lattice point (a, b).
float nft_lattice_box_mean(vec2 ab) {
  return NFT_Q(nft_box_mean(NFT_Q(g_origin + ab.x * g_u + ab.y * g_v), v_data0.z, v_data1.xyz, v_data2.xyz, v_data0.w));
}
