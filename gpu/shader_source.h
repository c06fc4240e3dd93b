#pragma once
// A named piece of GLSL ES 1.00 source. The .glsl files beside the C++ that uses them are
// embedded at build time as ShaderSource constants (cmake/EmbedShaders.cmake).

#include <string_view>

namespace nft::gpu {

/// One piece of shader source. `name` is the file it came from (relative to the project root,
/// e.g. "gpu/float_codec.glsl"), or any label for sources built at run time; compile errors
/// name it. `text` is the GLSL ES 1.00 source without a `#version` line (Program adds it).
struct ShaderSource {
  std::string_view name;
  std::string_view text;
};

}  // namespace nft::gpu
