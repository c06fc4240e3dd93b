#pragma once
// What the current OpenGL ES 2.0 context can do: the capability probe. Everything the gpu/
// layer uses beyond GLES 2.0 core is decided here, once, and can be masked off ("core-only")
// to run the core-only fallbacks on a desktop driver that offers more than a phone does.

#include <array>
#include <set>
#include <string>
#include <string_view>

namespace nft::gpu {

/// Result of glGetShaderPrecisionFormat for one qualifier: representable range
/// [-2^rangeMin, 2^rangeMax] and relative precision 2^-precision. For floats, `precision` is
/// the p of seeds/000 (section 4.5, table 3). All zero when the qualifier is unsupported
/// (highp in the fragment shader is optional in GLES2).
struct PrecisionFormat {
  int rangeMin = 0;
  int rangeMax = 0;
  int precision = 0;
  bool supported() const { return rangeMin != 0 || rangeMax != 0 || precision != 0; }
};

/// GLSL ES precision qualifiers, used as indices into the per-qualifier arrays.
enum class Qualifier { Lowp = 0, Mediump = 1, Highp = 2 };
/// "lowp", "mediump", "highp".
std::string_view toString(Qualifier q);

/// The optional extensions the project may use, each behind this probe with a core fallback.
enum class Extension {
  OesTextureFloat = 0,       ///< GL_OES_texture_float: RGBA32F textures (sampling).
  OesTextureHalfFloat,       ///< GL_OES_texture_half_float: RGBA16F textures (sampling).
  ExtColorBufferHalfFloat,   ///< GL_EXT_color_buffer_half_float: render to RGBA16F.
  ExtColorBufferFloat,       ///< GL_EXT_color_buffer_float: render to RGBA32F (ES 3 drivers).
  ExtShaderTextureLod,       ///< GL_EXT_shader_texture_lod: texture2DLodEXT in fragment shaders.
  OesStandardDerivatives,    ///< GL_OES_standard_derivatives: dFdx/dFdy/fwidth.
  ExtDisjointTimerQuery,     ///< GL_EXT_disjoint_timer_query: GPU pass timings.
  ExtDrawBuffers,            ///< GL_EXT_draw_buffers: several colour outputs (gl_FragData[i]).
  Count
};
constexpr int kExtensionCount = static_cast<int>(Extension::Count);
/// The GL name, e.g. "GL_OES_texture_float".
std::string_view toString(Extension e);

/// The probe's result. Plain data; copyable.
struct Capabilities {
  std::string glVersion;    ///< GL_VERSION, e.g. "OpenGL ES 3.2 Mesa 22.3.6".
  std::string glRenderer;   ///< GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
  std::string glVendor;     ///< GL_VENDOR.
  std::string glslVersion;  ///< GL_SHADING_LANGUAGE_VERSION.

  /// Float precision per qualifier (index: Qualifier), fragment and vertex shader.
  std::array<PrecisionFormat, 3> fragmentFloat{};
  std::array<PrecisionFormat, 3> vertexFloat{};

  int maxTextureSize = 0;          ///< GL_MAX_TEXTURE_SIZE, texels per side.
  int maxRenderbufferSize = 0;     ///< GL_MAX_RENDERBUFFER_SIZE.
  std::array<int, 2> maxViewportDims{};  ///< GL_MAX_VIEWPORT_DIMS (width, height).
  int maxTextureImageUnits = 0;    ///< GL_MAX_TEXTURE_IMAGE_UNITS (fragment shader samplers).
  int maxVertexTextureImageUnits = 0;  ///< GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS (may be 0).
  /// Colour outputs a fragment shader can write: GL_MAX_DRAW_BUFFERS_EXT with
  /// GL_EXT_draw_buffers (usable, see extensions), else 1.
  int maxDrawBuffers = 1;

  /// Every extension GL_EXTENSIONS lists (unaffected by coreOnly).
  std::set<std::string> advertisedExtensions;
  /// Usable extensions (index: Extension): advertised and not masked by coreOnly.
  std::array<bool, kExtensionCount> extensions{};
  /// An RGBA16F / RGBA32F texture made a complete framebuffer (measured, not assumed: GLES2
  /// leaves float render targets to the driver). False when coreOnly or unsupported.
  bool halfFloatRenderable = false;
  bool floatRenderable = false;
  /// True when the probe was asked to mask every optional extension off.
  bool coreOnly = false;
  /// True for CPU rasterisers (Mesa llvmpipe/softpipe, SwiftShader), judged by GL_RENDERER.
  /// Their "GPU" time is CPU time, and llvmpipe's timer queries do not cover its raster
  /// threads (measured: 5 ms by query against 29 ms wall-clock for the same pass).
  bool softwareRenderer = false;

  bool has(Extension e) const { return extensions[static_cast<size_t>(e)]; }

  /// The storage precision p for the RGBA8 float encoding (seeds/000 section 4.5): the
  /// fragment shader's highp precision where highp exists, else mediump's. Bits, e.g. 23.
  int fragmentPrecisionBits() const;
};

/// Whether a GL_RENDERER string names a CPU rasteriser: Mesa's llvmpipe ("llvmpipe (LLVM 15.0.6,
/// 256 bits)") or softpipe, Google's SwiftShader ("Google SwiftShader", "ANGLE (... SwiftShader
/// Device ...)"), or Mesa's classic "Software Rasterizer"; case-insensitive substring match. A
/// hardware GPU's name ("Mali-G78", "Adreno (TM) 640", "NVIDIA H100 80GB HBM3/PCIe/SSE2",
/// "PowerVR Rogue GE8320", "V3D 4.2") is not one. Pure: the probe's softwareRenderer is this of
/// GL_RENDERER, and detection::resolveBackend() picks the CPU lanes where it is true.
bool isSoftwareRenderer(std::string_view glRenderer);

/// Probes the context current on this thread. With `coreOnly` — or when the environment asks
/// for it (coreOnlyFromEnvironment()) —, reports every optional extension as absent (and float
/// targets as not renderable), so callers take the GLES 2.0 core paths. Leaves no GL object
/// behind.
/// @throws GpuError if no context is current (GL_VERSION is null).
Capabilities probeCapabilities(bool coreOnly = false);

/// The core-only switch for whole programs: true when the environment variable NFT_CORE_ONLY is
/// set to anything but "" or "0". probeCapabilities() then masks every optional extension off
/// whatever its argument, so nft_replay, nft_preview, the tests, ... run the GLES 2.0 core
/// fallbacks a phone would take (NFT_CORE_ONLY=1 build/release/apps/nft_replay), without a flag
/// of their own. Read at each probe.
bool coreOnlyFromEnvironment();

/// Debug builds (NDEBUG undefined): aborts with a message naming `e` and `where` unless `caps`
/// allows `e`. Placed right before the GL calls that need an optional extension (and after the
/// decision to use it), so that a path which skipped the probe fails on every debug and
/// core-only run on a desktop instead of first on a phone. Release builds: does nothing.
void debugAssertExtension(const Capabilities& caps, Extension e, const char* where);

}  // namespace nft::gpu
