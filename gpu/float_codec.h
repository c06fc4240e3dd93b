#pragma once
// The precision-adaptive float encoding of seeds/000 section 4.5 (table 1, listing 1), C++
// side: one float in [-128, 128) stored in one RGBA8 texel for a fragment precision p.
// gpu/float_codec.glsl is the GLSL side; both give the same bytes for the same float.

#include <array>
#include <cstdint>

namespace nft::gpu {

struct Capabilities;
class Program;

/// Range of p accepted: 8 (lowp's GLSL ES minimum) to 24 (three fraction bytes).
inline constexpr int kMinPrecisionBits = 8;
inline constexpr int kMaxPrecisionBits = 24;
/// Encodable values: [kCodecMin, kCodecMax). Scale larger quantities into it first.
inline constexpr float kCodecMin = -128.0f;
inline constexpr float kCodecMax = 128.0f;

/// Encodes `value` as (r, g, b, a) bytes: r = floor(value) + 128, and
/// g + 256 b + 65536 a = floor(fract(value) · 2^p). The decoded value is within 2^-p below
/// `value` (truncation).
/// @throws std::out_of_range if value is NaN or outside [-128, 128);
/// @throws std::invalid_argument if p is outside [8, 24].
std::array<std::uint8_t, 4> encodeFloatRgba8(float value, int precisionBits);

/// Decodes 4 bytes (r, g, b, a) written with precision p: r - 128 + (g + 256 b + 65536 a)·2^-p,
/// computed in float in the same order as the GLSL decoder.
/// @throws std::invalid_argument if p is outside [8, 24].
float decodeFloatRgba8(const std::uint8_t* rgba, int precisionBits);

/// Encodes two values in one RGBA8 texel at 8.8 fixed point (nft_encode_pair in
/// gpu/float_codec.glsl): bytes (floor(x) + 128, floor(fract(x)·256), floor(y) + 128,
/// floor(fract(y)·256)). Truncates by less than 2^-8.
/// @throws std::out_of_range if a value is NaN or outside [-128, 128).
std::array<std::uint8_t, 4> encodePairRgba8(float x, float y);

/// Decodes a texel written by encodePairRgba8 / nft_encode_pair: {x, y}.
std::array<float, 2> decodePairRgba8(const std::uint8_t* rgba);

/// The p a pipeline should encode with: `overrideBits` when > 0 (to emulate a weaker GPU,
/// e.g. 10 for the Mali-400 of seeds/000 table 3), else the probe's
/// Capabilities::fragmentPrecisionBits(), capped at 24.
/// @throws std::invalid_argument if the override is outside [8, 24] or above what the GPU has
///         (a GPU cannot store more precision than it computes with).
int resolvePrecisionBits(const Capabilities& caps, int overrideBits = 0);

/// Sets the codec's uniform u_codec = (2^p, 2^-p) of a program built with
/// gpu/float_codec.glsl. @throws GpuError if the program lacks it; std::invalid_argument
/// for p outside [8, 24].
void setCodecPrecision(const Program& program, int precisionBits);

}  // namespace nft::gpu
