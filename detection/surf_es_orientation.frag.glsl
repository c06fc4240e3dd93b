// SurfEs orientation pass: one fragment per keypoint (a 1×1 rectangle). The intensity
// centroid over the disc of radius 6s (detection/surf_descriptor.h): the 113 lattice points
// (i, j), i² + j² <= 36, weighted by the mean of the s × s box around (x, y) + s·(i, j).
// A given angle (v_data1.w >= 0, degrees) is passed through. Writes (cos a, sin a)·127 as a
// pair texel (gpu/float_codec.glsl).
// v_data0 = (x + 0.5, y + 0.5, s, f); v_data1.xyz, v_data2.xyz = the two pyramid levels.
void main() {
  vec2 direction;
  if (v_data1.w >= 0.0) {
    float a = radians(v_data1.w);
    direction = vec2(cos(a), sin(a));
  } else {
    vec2 moment = vec2(0.0);
    for (int j = -6; j <= 6; ++j) {
      for (int i = -6; i <= 6; ++i) {
        vec2 ij = vec2(float(i), float(j));
        if (dot(ij, ij) <= 36.0) {
          vec2 c = NFT_Q(v_data0.xy + v_data0.z * ij);
          moment += ij * NFT_Q(nft_box_mean(c, v_data1.xyz, v_data2.xyz, v_data0.w));
        }
      }
    }
    float len = length(moment);
    direction = len > 0.0 ? moment / len : vec2(1.0, 0.0);
  }
  gl_FragColor = nft_encode_pair(direction * 127.0);
}
