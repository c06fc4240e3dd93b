#pragma once
// A linked GLSL ES 1.00 program built from embedded source pieces (MinGPU-ES's GpuProgram,
// seeds/000 section 3.4). GLSL ES 1.00 has no #include, so a shader is a list of pieces —
// e.g. the prelude, a function library such as gpu/float_codec.glsl, then the pass itself —
// concatenated after "#version 100" and the requested #defines. Errors are mapped back to
// the piece and line they came from.

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/shader_source.h"

namespace nft::gpu {

class Texture;

/// The line number of the first error in a shader compiler's info log (else of its first
/// located message); 0 if none is recognised. Understands the location formats of Mesa
/// ("0:12(5): error: …"), NVIDIA ("0(12) : error C…") and ARM/Qualcomm ("ERROR: 0:12: …").
int firstErrorLine(const std::string& log);

/// One shader stage exactly as Program hands it to the driver (glShaderSource): for tools that
/// check the shaders the code really compiles, e.g. tests/gpu/shader_sources.cpp, which feeds
/// them to glslangValidator.
struct AssembledShader {
  std::string program;              ///< the Program's name
  bool fragment = false;            ///< fragment stage (else vertex)
  std::vector<std::string> pieces;  ///< names of the pieces, in order (ShaderSource::name)
  std::string source;               ///< "#version 100", the #defines, then the pieces
};
/// Called with every stage's source right before it is compiled; empty: none (the default).
using ShaderSourceObserver = std::function<void(const AssembledShader&)>;
/// Installs `observer` (an empty function removes it) and returns the previous one. Process-wide
/// and not synchronised: set it before building programs, on the thread that builds them.
ShaderSourceObserver setShaderSourceObserver(ShaderSourceObserver observer);

/// The vertex attribute every program gets at location 0 (bound before linking).
inline constexpr const char* kPositionAttribute = "a_position";

/// A compiled and linked program. Move-only; deletes the GL program on destruction (the
/// context that made it must be current then).
class Program {
 public:
  /// Compiles and links. Each stage's source is "#version 100\n", one "#define <d>\n" per
  /// entry of `defines` (e.g. "NFT_NO_HIGHP", "BINS 64"), then the pieces in order; the
  /// fragment stage has "#extension <e> : require\n" for each of `fragmentExtensions` (e.g.
  /// "GL_EXT_draw_buffers") right after #version. The caller checks the extensions are usable
  /// (Capabilities): a driver without one refuses the shader.
  /// @param name  label for errors and timers, e.g. "float_codec_roundtrip".
  /// @throws ShaderError naming the program, the stage, the piece and its line, with the
  ///         driver's log and the offending source line; GpuError if GL fails otherwise.
  Program(std::string name, const std::vector<ShaderSource>& vertexPieces,
          const std::vector<ShaderSource>& fragmentPieces, const std::vector<std::string>& defines = {},
          const std::vector<std::string>& fragmentExtensions = {});
  ~Program();
  Program(Program&& other) noexcept;
  Program& operator=(Program&& other) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  const std::string& name() const { return name_; }
  unsigned int id() const { return id_; }
  /// glUseProgram(id()).
  void use() const;

  /// Location of a uniform, -1 if the program has none of that name (or the compiler removed
  /// it as unused). Cached.
  int uniformLocation(const std::string& uniform) const;
  /// Whether the program has an active uniform of that name.
  bool hasUniform(const std::string& uniform) const { return uniformLocation(uniform) >= 0; }

  /// Uniform setters; they make the program current. Setting a uniform the program lacks
  /// throws GpuError naming it — a misspelt name must not pass silently.
  void setUniform(const std::string& uniform, float x) const;
  void setUniform(const std::string& uniform, float x, float y) const;
  void setUniform(const std::string& uniform, float x, float y, float z, float w) const;
  void setUniform(const std::string& uniform, int x) const;
  /// Points sampler `uniform` at texture unit `unit` and records `texture` for that unit;
  /// bindTextures() binds it right before drawing, so texture work done in between (which
  /// binds other textures) cannot change what the pass reads. `texture` must outlive the
  /// draws that use it. @throws GpuError for an unknown sampler or a negative unit.
  void setTexture(const std::string& uniform, int unit, const Texture& texture) const;
  /// Same for a GL_TEXTURE_2D that no gpu::Texture owns, by its GL name: a texture another
  /// library made on this context (e.g. a GStreamer GstGLMemory's, gst_gl_memory_get_texture_id),
  /// which a pass reads but must not delete. The caller keeps it alive for the draws that use it.
  /// @throws GpuError as above.
  void setTexture(const std::string& uniform, int unit, unsigned int textureId) const;
  /// Binds every texture recorded by setTexture to its unit (then selects unit 0 again).
  /// Called by the pass runner and the renderer right before a draw.
  void bindTextures() const;

 private:
  int requireLocation(const std::string& uniform) const;
  std::string name_;
  unsigned int id_ = 0;
  mutable std::unordered_map<std::string, int> locations_;
  mutable std::unordered_map<int, unsigned int> textures_;  // unit -> GL texture name
};

}  // namespace nft::gpu
