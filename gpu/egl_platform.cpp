// The names of gpu::EglPlatform (gpu/context.h), shared by the native and the web context.
#include <stdexcept>
#include <string>

#include "gpu/context.h"

namespace nft::gpu {

std::string_view toString(EglPlatform platform) {
  switch (platform) {
    case EglPlatform::Auto: return "auto";
    case EglPlatform::Surfaceless: return "surfaceless";
    case EglPlatform::Device: return "device";
    case EglPlatform::Default: return "default";
  }
  return "?";
}

EglPlatform parseEglPlatform(std::string_view name) {
  for (EglPlatform p : {EglPlatform::Auto, EglPlatform::Surfaceless, EglPlatform::Device, EglPlatform::Default})
    if (name == toString(p)) return p;
  throw std::invalid_argument("unknown EGL platform '" + std::string(name) +
                              "' (expected auto, surfaceless, device or default)");
}

}  // namespace nft::gpu
