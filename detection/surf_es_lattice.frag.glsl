// SurfEs lattice pass (RGBA8 storage): the (GRID+1) × (GRID+1) box means of one keypoint
// (one rectangle per keypoint), each encoded with the float codec at precision p. The sum
// pass then forms the Haar wavelets from them (seeds/000 section 4.2).
void main() {
  nft_keypoint_frame();
  gl_FragColor = nft_encode_float(nft_lattice_box_mean(nft_local_index()), u_codec);
}
