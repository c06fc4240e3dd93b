#include "gpu/program.h"

#include <GLES2/gl2.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <utility>

#include "gpu/gpu_error.h"
#include "gpu/texture.h"

namespace nft::gpu {

namespace {

ShaderSourceObserver& sourceObserver() {
  static ShaderSourceObserver observer;
  return observer;
}

/// Where one piece sits in the assembled source: lines [firstLine, firstLine + lineCount).
struct PieceSpan {
  std::string name;
  int firstLine;
  int lineCount;
  std::string text;
};

int countLines(std::string_view text) {
  int n = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

struct Assembled {
  std::string source;
  std::vector<PieceSpan> spans;
};

Assembled assemble(const std::vector<ShaderSource>& pieces, const std::vector<std::string>& defines,
                   const std::vector<std::string>& extensions) {
  Assembled out;
  std::string header = "#version 100\n";
  for (const std::string& e : extensions) header += "#extension " + e + " : require\n";
  for (const std::string& d : defines) header += "#define " + d + "\n";
  out.spans.push_back({"<#version, #extensions and #defines>", 1, countLines(header), header});
  out.source = header;
  int line = 1 + countLines(header);
  for (const ShaderSource& piece : pieces) {
    out.source.append(piece.text.data(), piece.text.size());
    if (!piece.text.empty() && piece.text.back() != '\n') out.source += '\n';
    const int n = countLines(piece.text);
    out.spans.push_back({std::string(piece.name), line, n, std::string(piece.text)});
    line += n;
  }
  return out;
}

std::string lineOf(std::string_view text, int line) {
  std::istringstream in{std::string(text)};
  std::string s;
  for (int i = 1; std::getline(in, s); ++i)
    if (i == line) return s;
  return "";
}

/// The line in a log line's "<string>:<line>" / "<string>(<line>)" location, or 0.
/// Drivers differ: Mesa "0:12(5): error: …", NVIDIA "0(12) : error C…", ARM/Qualcomm
/// "ERROR: 0:12: …".
int locationLine(const std::string& s) {
  auto digitsEnd = [&](size_t i) {
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])) || (i > 0 && std::isalnum(static_cast<unsigned char>(s[i - 1]))))
      continue;
    const size_t sep = digitsEnd(i);
    if (sep + 1 >= s.size() || (s[sep] != ':' && s[sep] != '(')) continue;
    const size_t end = digitsEnd(sep + 1);
    if (end == sep + 1 || end >= s.size() || (s[end] != ':' && s[end] != ')' && s[end] != '(')) continue;
    return std::stoi(s.substr(sep + 1, end - sep - 1));
  }
  return 0;
}

}  // namespace

ShaderSourceObserver setShaderSourceObserver(ShaderSourceObserver observer) {
  std::swap(sourceObserver(), observer);
  return observer;
}

int firstErrorLine(const std::string& log) {
  std::istringstream in(log);
  int first = 0;
  for (std::string s; std::getline(in, s);) {
    std::string lower = s;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    const int line = locationLine(s);
    if (line > 0 && lower.find("error") != std::string::npos) return line;
    if (first == 0) first = line;
  }
  return first;
}

namespace {

std::string infoLog(GLuint object, bool isShader) {
  GLint length = 0;
  if (isShader) glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
  else glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
  if (length <= 1) return "(the driver gave no log)";
  std::string log(static_cast<size_t>(length), '\0');
  if (isShader) glGetShaderInfoLog(object, length, nullptr, log.data());
  else glGetProgramInfoLog(object, length, nullptr, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

GLuint compile(GLenum stage, const std::string& program, const std::vector<ShaderSource>& pieces,
               const std::vector<std::string>& defines, const std::vector<std::string>& extensions) {
  const Assembled src = assemble(pieces, defines, extensions);
  const char* stageName = stage == GL_VERTEX_SHADER ? "vertex" : "fragment";
  if (const ShaderSourceObserver& observer = sourceObserver()) {
    AssembledShader shown{program, stage == GL_FRAGMENT_SHADER, {}, src.source};
    for (const ShaderSource& piece : pieces) shown.pieces.emplace_back(piece.name);
    observer(shown);
  }
  GLuint shader = glCreateShader(stage);
  if (shader == 0) throw GpuError("program '" + program + "': glCreateShader failed (" + glErrorName(glGetError()) + ")");
  const char* text = src.source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok == GL_TRUE) return shader;

  const std::string log = infoLog(shader, true);
  glDeleteShader(shader);
  const int global = firstErrorLine(log);
  std::string piece = "?";
  int local = 0;
  std::string quoted;
  for (const PieceSpan& span : src.spans) {
    if (global >= span.firstLine && global < span.firstLine + span.lineCount) {
      piece = span.name;
      local = global - span.firstLine + 1;
      quoted = lineOf(span.text, local);
    }
  }
  std::ostringstream msg;
  msg << "shader '" << piece << "'";
  if (local > 0) msg << " line " << local;
  msg << ": " << stageName << " shader of program '" << program << "' does not compile";
  if (local > 0) msg << "\n  " << local << " | " << quoted;
  msg << "\ndriver log:\n" << log;
  throw ShaderError(msg.str(), piece, local);
}

std::string pieceNames(const std::vector<ShaderSource>& pieces) {
  std::string s;
  for (const ShaderSource& p : pieces) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

}  // namespace

Program::Program(std::string name, const std::vector<ShaderSource>& vertexPieces,
                 const std::vector<ShaderSource>& fragmentPieces, const std::vector<std::string>& defines,
                 const std::vector<std::string>& fragmentExtensions)
    : name_(std::move(name)) {
  GLuint vs = compile(GL_VERTEX_SHADER, name_, vertexPieces, defines, {});
  GLuint fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, name_, fragmentPieces, defines, fragmentExtensions);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  id_ = glCreateProgram();
  glAttachShader(id_, vs);
  glAttachShader(id_, fs);
  glBindAttribLocation(id_, 0, kPositionAttribute);
  glLinkProgram(id_);
  // Shaders are flagged for deletion now and go with the program.
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    const std::string log = infoLog(id_, false);
    glDeleteProgram(id_);
    id_ = 0;
    throw ShaderError("program '" + name_ + "' does not link (vertex: " + pieceNames(vertexPieces) +
                          "; fragment: " + pieceNames(fragmentPieces) + ")\ndriver log:\n" + log,
                      "", 0);
  }
  checkGl(("building program '" + name_ + "'").c_str());
}

Program::~Program() {
  if (id_ != 0) glDeleteProgram(id_);
}

Program::Program(Program&& other) noexcept
    : name_(std::move(other.name_)),
      id_(other.id_),
      locations_(std::move(other.locations_)),
      textures_(std::move(other.textures_)) {
  other.id_ = 0;
}

Program& Program::operator=(Program&& other) noexcept {
  if (this != &other) {
    if (id_ != 0) glDeleteProgram(id_);
    name_ = std::move(other.name_);
    id_ = other.id_;
    locations_ = std::move(other.locations_);
    textures_ = std::move(other.textures_);
    other.id_ = 0;
  }
  return *this;
}

void Program::use() const { glUseProgram(id_); }

int Program::uniformLocation(const std::string& uniform) const {
  auto it = locations_.find(uniform);
  if (it != locations_.end()) return it->second;
  const int loc = glGetUniformLocation(id_, uniform.c_str());
  locations_.emplace(uniform, loc);
  return loc;
}

int Program::requireLocation(const std::string& uniform) const {
  const int loc = uniformLocation(uniform);
  if (loc < 0) throw GpuError("program '" + name_ + "' has no active uniform '" + uniform + "'");
  glUseProgram(id_);
  return loc;
}

void Program::setUniform(const std::string& uniform, float x) const { glUniform1f(requireLocation(uniform), x); }
void Program::setUniform(const std::string& uniform, float x, float y) const {
  glUniform2f(requireLocation(uniform), x, y);
}
void Program::setUniform(const std::string& uniform, float x, float y, float z, float w) const {
  glUniform4f(requireLocation(uniform), x, y, z, w);
}
void Program::setUniform(const std::string& uniform, int x) const { glUniform1i(requireLocation(uniform), x); }

void Program::setTexture(const std::string& uniform, int unit, const Texture& texture) const {
  setTexture(uniform, unit, texture.id());
}

void Program::setTexture(const std::string& uniform, int unit, unsigned int textureId) const {
  if (unit < 0) throw GpuError("program '" + name_ + "': negative texture unit for '" + uniform + "'");
  glUniform1i(requireLocation(uniform), unit);
  textures_[unit] = textureId;
}

void Program::bindTextures() const {
  for (const auto& [unit, id] : textures_) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glBindTexture(GL_TEXTURE_2D, id);
  }
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace nft::gpu
