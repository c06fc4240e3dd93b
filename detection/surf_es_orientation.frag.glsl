// SurfEs orientation, pass 1 of 2: partial intensity-centroid moments (detection/surf_descriptor.h:
// the 113 lattice points (i, j), i² + j² <= 36, weighted by the mean of the s × s box around
// (x, y) + s·(i, j)). One 2 × 2 rectangle per keypoint — a full fragment quad — whose fragment
// q = 0..3 sums the rows j ≡ q (mod 4) and writes its partial moment (Σ i·m, Σ j·m)·MOMENT_SCALE
// as a pair texel; the resolve pass adds the four. The centre box's mean is subtracted from
// every m: over the symmetric disc that leaves the total unchanged (Σ i = Σ j = 0) and keeps the
// partial sums small for the 8.8 fixed-point pair encoding.
// A given angle (v_data1.w >= 0, degrees) is written by fragment 0 as a direction instead.
// v_data0 = (x + 0.5, y + 0.5, s, f); v_data1.xyz, v_data2.xyz = the two pyramid levels.
void main() {
  vec2 local = nft_local_index();
  float q = local.y * 2.0 + local.x;
  vec2 moment = vec2(0.0);
  if (v_data1.w >= 0.0) {
    float a = radians(v_data1.w);
    if (q < 0.5) moment = 64.0 * vec2(cos(a), sin(a));
  } else {
    float centre = NFT_Q(nft_box_mean(v_data0.xy, v_data0.z, v_data1.xyz, v_data2.xyz, v_data0.w));
    for (int t = 0; t < 4; t++) {
      float j = -6.0 + q + 4.0 * float(t);
      for (int ii = -6; ii <= 6; ii++) {
        vec2 ij = vec2(float(ii), j);
        if (j <= 6.0 && dot(ij, ij) <= 36.0) {
          vec2 c = NFT_Q(v_data0.xy + v_data0.z * ij);
          moment += ij * NFT_Q(nft_box_mean(c, v_data0.z, v_data1.xyz, v_data2.xyz, v_data0.w) - centre);
        }
      }
    }
  }
  gl_FragColor = nft_encode_pair(moment * MOMENT_SCALE);
}
