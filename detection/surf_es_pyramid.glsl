// Sampling the image pyramid of SurfEs (seeds/000 section 4.2: box means read from the
// mipmap level that matches the box, with trilinear filtering).
//
// The levels live side by side in one RGBA8 atlas (surf_es.cpp builds it): level 0, the W × H
// gray image, at (0, 0); level k >= 1, ceil(W/2^k) × ceil(H/2^k), in a column to its right.
// Reading them as regions gives each fragment an explicit level of detail in core GLES2,
// where fragment shaders have no texture2DLod and the hardware would derive the level from
// screen-space derivatives, which mean nothing when neighbouring fragments belong to
// different keypoints. Trilinear filtering is bilinear filtering in two levels and a mix.
//
// A keypoint's two levels come precomputed (surf_es.cpp) as vec3 (origin in the atlas, 2^-k),
// with the mix factor f between them.
uniform sampler2D u_pyramid;
uniform vec2 u_pyramid_scale;  // 1 / atlas size in texels
uniform vec2 u_image_size;     // (W, H): level 0

// Bilinear sample of a level at g, in level-0 pixel coordinates (pixel c covers [c, c + 1]);
// outside the level the nearest edge texel (clamp-to-edge).
//
// NFT_BOX_PYRAMID: the lookup reads the box pyramid, in the atlas's green channel. Its texel j
// of level k (j = 0..size, the first in the margin before the level) sits on the level's
// corner j, between texels j − 1 and j, and holds their mean (2 × 2 of them in 2D; clamped to
// the level). A bilinear lookup in it at level coordinate x is therefore the mean of the
// bilinear lookups in the level at x − 1/2 and x + 1/2 in each axis, clamp-to-edge included
// (bilinear interpolation is linear between texel centres, so the identity is exact): the four
// quarter-box lookups of BOX_TAPS 2, for a quarter box of one texel, in one lookup.
float nft_level_sample(vec3 level, vec2 g) {
#ifdef NFT_BOX_PYRAMID
  vec2 t = clamp(g * level.z - 0.5, vec2(-0.5), ceil(u_image_size * level.z) - 0.5);
  return texture2D(u_pyramid, (level.xy + t) * u_pyramid_scale).g;
#else
  vec2 t = clamp(g * level.z, vec2(0.5), ceil(u_image_size * level.z) - 0.5);
  return texture2D(u_pyramid, (level.xy + t) * u_pyramid_scale).r;
#endif
}

// Mean intensity of a box centred at g: trilinear between the keypoint's two levels.
float nft_trilinear(vec2 g, vec3 level0, vec3 level1, float f) {
  return mix(nft_level_sample(level0, g), nft_level_sample(level1, g), f);
}

// Mean of the axis-aligned box of side `side` centred at g. BOX_TAPS 1: one trilinear lookup at
// the box's level (the thesis's); BOX_TAPS 2: the mean of its four quarter boxes (side / 2,
// centres at ±side / 4), each a trilinear lookup one level finer (the keypoint's levels are
// then those of side / 2) — closer to the exact box mean: a trilinear lookup's footprint is a
// tent, not a box, and splitting the box halves that shape error (surf_es.cpp, kLodBias).
// With NFT_BOX_PYRAMID the host sets BOX_TAPS 1: one trilinear lookup in the box pyramid reads
// the four quarter boxes at once (surf_es.cpp, kBoxPyramidLodBias).
float nft_box_mean(vec2 g, float side, vec3 level0, vec3 level1, float f) {
#if BOX_TAPS == 2
  float q = 0.25 * side;
  return 0.25 * ((nft_trilinear(g + vec2(-q, -q), level0, level1, f) + nft_trilinear(g + vec2(q, -q), level0, level1, f)) +
                 (nft_trilinear(g + vec2(-q, q), level0, level1, f) + nft_trilinear(g + vec2(q, q), level0, level1, f)));
#else
  return nft_trilinear(g, level0, level1, f);
#endif
}
