#include "gpu/float_codec.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/capabilities.h"
#include "gpu/program.h"

namespace nft::gpu {

namespace {
void checkBits(int p) {
  if (p < kMinPrecisionBits || p > kMaxPrecisionBits)
    throw std::invalid_argument("float encoding precision p = " + std::to_string(p) + " is outside [" +
                                std::to_string(kMinPrecisionBits) + ", " + std::to_string(kMaxPrecisionBits) + "]");
}
}  // namespace

std::array<std::uint8_t, 4> encodeFloatRgba8(float value, int precisionBits) {
  checkBits(precisionBits);
  if (!(value >= kCodecMin && value < kCodecMax))
    throw std::out_of_range("encodeFloatRgba8: value " + std::to_string(value) + " is outside [-128, 128)");
  // Same float operations as nft_encode_float: each step is exact in IEEE single precision
  // (value - floor(value) is exact, and so is scaling by a power of two).
  const float whole = std::floor(value);
  float fraction = std::floor((value - whole) * std::ldexp(1.0f, precisionBits));
  const float a = std::floor(fraction * (1.0f / 65536.0f));
  fraction -= a * 65536.0f;
  const float b = std::floor(fraction * (1.0f / 256.0f));
  const float g = fraction - b * 256.0f;
  return {static_cast<std::uint8_t>(whole + 128.0f), static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(b),
          static_cast<std::uint8_t>(a)};
}

float decodeFloatRgba8(const std::uint8_t* rgba, int precisionBits) {
  checkBits(precisionBits);
  const float fraction = static_cast<float>(rgba[1]) + static_cast<float>(rgba[2]) * 256.0f +
                         static_cast<float>(rgba[3]) * 65536.0f;
  return (static_cast<float>(rgba[0]) - 128.0f) + fraction * std::ldexp(1.0f, -precisionBits);
}

std::array<std::uint8_t, 4> encodePairRgba8(float x, float y) {
  std::array<std::uint8_t, 4> out{};
  const float values[2] = {x, y};
  for (int i = 0; i < 2; ++i) {
    const float v = values[i];
    if (!(v >= kCodecMin && v < kCodecMax))
      throw std::out_of_range("encodePairRgba8: value " + std::to_string(v) + " is outside [-128, 128)");
    const float whole = std::floor(v);
    out[static_cast<size_t>(2 * i)] = static_cast<std::uint8_t>(whole + 128.0f);
    out[static_cast<size_t>(2 * i + 1)] = static_cast<std::uint8_t>(std::floor((v - whole) * 256.0f));
  }
  return out;
}

std::array<float, 2> decodePairRgba8(const std::uint8_t* rgba) {
  return {static_cast<float>(rgba[0]) - 128.0f + static_cast<float>(rgba[1]) * (1.0f / 256.0f),
          static_cast<float>(rgba[2]) - 128.0f + static_cast<float>(rgba[3]) * (1.0f / 256.0f)};
}

int resolvePrecisionBits(const Capabilities& caps, int overrideBits) {
  const int gpuBits = std::min(caps.fragmentPrecisionBits(), kMaxPrecisionBits);
  if (overrideBits <= 0) return gpuBits;
  checkBits(overrideBits);
  if (overrideBits > gpuBits)
    throw std::invalid_argument("float encoding precision override p = " + std::to_string(overrideBits) +
                                " exceeds the GPU's fragment precision p = " + std::to_string(gpuBits));
  return overrideBits;
}

void setCodecPrecision(const Program& program, int precisionBits) {
  checkBits(precisionBits);
  program.setUniform("u_codec", std::ldexp(1.0f, precisionBits), std::ldexp(1.0f, -precisionBits));
}

}  // namespace nft::gpu
