// nft_gpuinfo: what the OpenGL ES 2.0 GPU of this machine offers the tracker — EGL platform,
// GL strings, the fragment precision p per qualifier (seeds/000 table 3), the maximum texture
// size and the optional extensions. Exit code 1 when no context can be made.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "gpu/float_codec.h"
#include "gpu/gpu_error.h"

namespace {

using nft::gpu::Capabilities;
using nft::gpu::Extension;
using nft::gpu::PrecisionFormat;
using nft::gpu::Qualifier;

nlohmann::json precisionJson(const PrecisionFormat& f) {
  if (!f.supported()) return nullptr;
  return {{"p", f.precision}, {"range_min", f.rangeMin}, {"range_max", f.rangeMax}};
}

nlohmann::json toJson(const nft::gpu::Context& context, const Capabilities& caps) {
  nlohmann::json j;
  j["egl"] = {{"platform", context.platformDescription()},
              {"vendor", context.eglVendor()},
              {"version", context.eglVersion()}};
  j["gl_version"] = caps.glVersion;
  j["gl_renderer"] = caps.glRenderer;
  j["gl_vendor"] = caps.glVendor;
  j["glsl_version"] = caps.glslVersion;
  j["software_renderer"] = caps.softwareRenderer;
  for (int q = 0; q < 3; ++q) {
    const auto name = std::string(toString(static_cast<Qualifier>(q)));
    j["fragment_float_precision"][name] = precisionJson(caps.fragmentFloat[static_cast<size_t>(q)]);
    j["vertex_float_precision"][name] = precisionJson(caps.vertexFloat[static_cast<size_t>(q)]);
  }
  j["encoding_precision_p"] = nft::gpu::resolvePrecisionBits(caps);
  j["max_texture_size"] = caps.maxTextureSize;
  j["max_texture_image_units"] = caps.maxTextureImageUnits;
  j["max_vertex_texture_image_units"] = caps.maxVertexTextureImageUnits;
  j["max_draw_buffers"] = caps.maxDrawBuffers;
  for (int e = 0; e < nft::gpu::kExtensionCount; ++e) {
    const auto ext = static_cast<Extension>(e);
    j["extensions"][std::string(toString(ext))] = caps.has(ext);
  }
  j["half_float_renderable"] = caps.halfFloatRenderable;
  j["float_renderable"] = caps.floatRenderable;
  j["core_only"] = caps.coreOnly;
  return j;
}

std::string precisionText(const PrecisionFormat& f) {
  if (!f.supported()) return "not supported";
  return "p = " + std::to_string(f.precision) + "  (range -2^" + std::to_string(f.rangeMin) + " .. 2^" +
         std::to_string(f.rangeMax) + ")";
}

void printText(const nft::gpu::Context& context, const Capabilities& caps) {
  std::printf("EGL platform:        %s\n", context.platformDescription().c_str());
  std::printf("EGL vendor/version:  %s / %s\n", context.eglVendor().c_str(), context.eglVersion().c_str());
  std::printf("GL_VERSION:          %s\n", caps.glVersion.c_str());
  std::printf("GL_RENDERER:         %s\n", caps.glRenderer.c_str());
  std::printf("GL_VENDOR:           %s\n", caps.glVendor.c_str());
  std::printf("GLSL version:        %s\n", caps.glslVersion.c_str());
  std::printf("Software renderer:   %s\n", caps.softwareRenderer ? "yes (CPU rasteriser, e.g. Mesa llvmpipe)" : "no");
  std::printf("Fragment shader float precision (seeds/000 table 3):\n");
  for (int q = 0; q < 3; ++q)
    std::printf("  %-8s %s\n", std::string(toString(static_cast<Qualifier>(q))).c_str(),
                precisionText(caps.fragmentFloat[static_cast<size_t>(q)]).c_str());
  std::printf("Vertex shader float precision:\n");
  for (int q = 0; q < 3; ++q)
    std::printf("  %-8s %s\n", std::string(toString(static_cast<Qualifier>(q))).c_str(),
                precisionText(caps.vertexFloat[static_cast<size_t>(q)]).c_str());
  std::printf("RGBA8 float encoding p: %d\n", nft::gpu::resolvePrecisionBits(caps));
  std::printf("Max texture size:    %d\n", caps.maxTextureSize);
  std::printf("Texture units:       %d fragment, %d vertex\n", caps.maxTextureImageUnits,
              caps.maxVertexTextureImageUnits);
  std::printf("Draw buffers:        %d (colour attachments one pass can write)\n", caps.maxDrawBuffers);
  std::printf("Optional extensions%s:\n", caps.coreOnly ? " (masked off: --core-only)" : "");
  for (int e = 0; e < nft::gpu::kExtensionCount; ++e) {
    const auto ext = static_cast<Extension>(e);
    std::printf("  [%s] %s\n", caps.has(ext) ? "yes" : " no", std::string(toString(ext)).c_str());
  }
  std::printf("Render to half float: %s\n", caps.halfFloatRenderable ? "yes" : "no");
  std::printf("Render to float:      %s\n", caps.floatRenderable ? "yes" : "no");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nft_gpuinfo: report the OpenGL ES 2.0 capabilities the tracker will use "
               "(EGL platform, renderer, fragment precision p, texture limits, extensions)."};
  std::string platform = "auto";
  int device = -1;
  bool coreOnly = false;
  bool json = false;
  app.add_option("--platform", platform,
                 "EGL platform: auto, surfaceless, device or default (auto honours NFT_EGL_PLATFORM)")
      ->check(CLI::IsMember({"auto", "surfaceless", "device", "default"}))
      ->capture_default_str();
  app.add_option("--device", device, "EGL device index with --platform device (-1: first that works)")
      ->capture_default_str();
  app.add_flag("--core-only", coreOnly, "report as the pipeline sees it with every optional extension masked off");
  app.add_flag("--json", json, "print JSON instead of text");
  CLI11_PARSE(app, argc, argv);

  try {
    nft::gpu::ContextOptions options;
    options.platform = nft::gpu::parseEglPlatform(platform);
    options.deviceIndex = device;
    const nft::gpu::Context context = nft::gpu::Context::createHeadless(options);
    const Capabilities caps = nft::gpu::probeCapabilities(coreOnly);
    if (json) std::cout << toJson(context, caps).dump(2) << "\n";
    else printText(context, caps);
  } catch (const std::exception& e) {
    std::cerr << "nft_gpuinfo: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
