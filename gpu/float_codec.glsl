// Precision-adaptive encoding of one float in an RGBA8 texel (seeds/000 section 4.5, table 1,
// listing 1), for GPUs whose only renderable format is RGBA8:
//   f = r - 128 + (g + 256 b + 65536 a) / 2^p,   f in [-128, 128 - 2^-p],
// r, g, b, a the channel bytes, p the GPU's fragment precision (or a lower override).
// Mirrored byte for byte by gpu/float_codec.cpp; include after gpu/prelude.glsl.
//
// `codec` = (2^p, 2^-p); u_codec is the uniform gpu::setCodecPrecision() sets, passed as
// `codec` by shaders that use one p. Scaling by 2^-p with a multiply keeps decoding exact on
// GPUs whose division is approximate. The alpha byte (p > 16) exists only with highp: a mediump-only
// GPU has p <= 13 and cannot even hold the constant 65536 (mediump guarantees 2^14).
uniform vec2 u_codec;

#if defined(GL_FRAGMENT_PRECISION_HIGH) && !defined(NFT_NO_HIGHP)
#define NFT_CODEC_ALPHA 1
#endif

// Encodes `value` (precondition: -128 <= value < 128) as a texel colour. Values outside are
// saturated to [-128, 128 - 2^-p]: a value an ulp under 128 that a GPU's arithmetic rounds up to
// 128.0 must stay 127.99.., not wrap to 127.0 (seen on an NVIDIA H200). Inside, the clamp changes
// nothing: the C++ encoder's bytes are the same. (128 - 2^-p is 128.0 itself for p > 17, so the
// bound is at most 128 - 2^-17, the largest float under 128.)
vec4 nft_encode_float(float value, vec2 codec) {
  value = clamp(value, -128.0, 128.0 - max(codec.y, 1.0 / 131072.0));
  // The fraction as an integer in [0, 2^p).
  float fraction = floor(fract(value) * codec.x);
  vec4 c;
#ifdef NFT_CODEC_ALPHA
  c.a = floor(fraction * (1.0 / 65536.0));
  fraction -= c.a * 65536.0;
#else
  c.a = 0.0;
#endif
  c.b = floor(fraction * (1.0 / 256.0));
  c.g = fraction - c.b * 256.0;
  c.r = floor(value) + 128.0;
  return c * (1.0 / 255.0);
}

// Decodes a texel written by nft_encode_float (or by the C++ encoder) with the same p.
float nft_decode_float(vec4 texel, vec2 codec) {
  vec4 c = floor(texel * 255.0 + 0.5);
#ifdef NFT_CODEC_ALPHA
  float fraction = c.g + c.b * 256.0 + c.a * 65536.0;
#else
  float fraction = c.g + c.b * 256.0;
#endif
  return (c.r - 128.0) + fraction * codec.y;
}

// Two values in one texel at 8.8 fixed point (seeds/000 section 4.2 stores each Haar response
// in two channels): v in [-128, 128) as bytes floor(v) + 128 and floor(fract(v) · 256);
// resolution 2^-8, truncating. Mirrored by gpu::encodePairRgba8 / decodePairRgba8.
vec4 nft_encode_pair(vec2 v) {
  vec2 whole = floor(v);
  vec2 fraction = floor((v - whole) * 256.0);
  return vec4(whole.x + 128.0, fraction.x, whole.y + 128.0, fraction.y) * (1.0 / 255.0);
}

vec2 nft_decode_pair(vec4 texel) {
  vec4 c = floor(texel * 255.0 + 0.5);
  return vec2(c.x - 128.0 + c.y * (1.0 / 256.0), c.z - 128.0 + c.w * (1.0 / 256.0));
}
