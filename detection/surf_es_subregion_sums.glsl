// The heart of the SURF descriptor (detection/surf_descriptor.h; seeds/000 sections 4.2-4.3):
// for one subregion of 5 × 5 samples, Haar wavelets from the 6 × 6 box means around them,
// Gaussian-weighted (σ = SIGMA·s), summed as (Σ w dx', Σ w dy', Σ|w dx'|, Σ|w dy'|) in a
// gather loop (no reductions in GLES2). The including shader defines nft_mean_at(a, b), the
// box mean at lattice point (first_a + a, first_b + b) of the keypoint.
float nft_mean_at(float a, float b);

vec4 nft_subregion_sums(float firstA, float firstB) {
  // Separable Gaussian: w(i, j) = wx(i)·wy(j).
  float k = 0.5 / (SIGMA * SIGMA);
  float centre = 0.5 * (GRID - 1.0);
  float wx[5];
  for (int i = 0; i < 5; i++) {
    float o = firstA + float(i) - centre;
    wx[i] = exp(-o * o * k);
  }
  vec4 sums = vec4(0.0);
  float above[6];
  float here[6];
  for (int a = 0; a < 6; a++) above[a] = nft_mean_at(float(a), 0.0);
  for (int b = 1; b < 6; b++) {
    float oy = firstB + float(b) - 1.0 - centre;
    float wy = exp(-oy * oy * k);
    for (int a = 0; a < 6; a++) here[a] = nft_mean_at(float(a), float(b));
    for (int i = 0; i < 5; i++) {
      // Sample (firstA + i, firstB + b − 1): quadrants above[i], above[i+1], here[i], here[i+1].
      float dx = 0.5 * ((above[i + 1] + here[i + 1]) - (above[i] + here[i]));
      float dy = 0.5 * ((here[i] + here[i + 1]) - (above[i] + above[i + 1]));
      vec2 r = NFT_Q(vec2(dx, dy) * (wx[i] * wy));
      sums = NFT_Q(sums + vec4(r, abs(r)));
    }
    for (int a = 0; a < 6; a++) above[a] = here[a];
  }
  return sums;
}
