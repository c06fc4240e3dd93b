#include "gpu/rect_batch.h"

#include <GLES2/gl2.h>

#include "gpu/gpu_error.h"
#include "gpu/nft_gpu_shaders.h"

namespace nft::gpu {

namespace {
// Per vertex: position (2), local (2), data0 (4), data1 (4), data2 (4).
constexpr int kFloatsPerVertex = 16;
constexpr int kVerticesPerRect = 6;  // two triangles; no index buffer, so no 65536-vertex cap
}  // namespace

RectBatch::RectBatch() {
  glGenBuffers(1, &vertexBuffer_);
  checkGl("creating a RectBatch vertex buffer");
}

RectBatch::~RectBatch() {
  if (vertexBuffer_ != 0) glDeleteBuffers(1, &vertexBuffer_);
}

RectBatch::RectBatch(RectBatch&& other) noexcept : vertexBuffer_(other.vertexBuffer_), count_(other.count_) {
  other.vertexBuffer_ = 0;
  other.count_ = 0;
}

RectBatch& RectBatch::operator=(RectBatch&& other) noexcept {
  if (this != &other) {
    if (vertexBuffer_ != 0) glDeleteBuffers(1, &vertexBuffer_);
    vertexBuffer_ = other.vertexBuffer_;
    count_ = other.count_;
    other.vertexBuffer_ = 0;
    other.count_ = 0;
  }
  return *this;
}

Program RectBatch::makeProgram(std::string name, const std::vector<ShaderSource>& fragmentPieces,
                               const std::vector<std::string>& defines) {
  std::vector<ShaderSource> fragment{shaders::prelude, shaders::rect_batch};
  fragment.insert(fragment.end(), fragmentPieces.begin(), fragmentPieces.end());
  return Program(std::move(name), {shaders::rect_batch_vert}, fragment, defines);
}

void RectBatch::set(const std::vector<Item>& items) {
  std::vector<float> vertices;
  vertices.reserve(items.size() * kVerticesPerRect * kFloatsPerVertex);
  for (const Item& item : items) {
    const Rect& r = item.rect;
    if (r.width <= 0 || r.height <= 0)
      throw GpuError("RectBatch::set: empty rectangle " + std::to_string(r.width) + "x" + std::to_string(r.height));
    const float x0 = static_cast<float>(r.x), y0 = static_cast<float>(r.y);
    const float w = static_cast<float>(r.width), h = static_cast<float>(r.height);
    // Corners of the two triangles: (0,0) (1,0) (0,1) / (0,1) (1,0) (1,1).
    const float corners[kVerticesPerRect][2] = {{0, 0}, {1, 0}, {0, 1}, {0, 1}, {1, 0}, {1, 1}};
    for (const auto& c : corners) {
      vertices.push_back(x0 + c[0] * w);
      vertices.push_back(y0 + c[1] * h);
      vertices.push_back(c[0] * w);
      vertices.push_back(c[1] * h);
      vertices.insert(vertices.end(), item.data.begin(), item.data.end());
    }
  }
  glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(float)), vertices.data(),
               GL_STREAM_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  checkGl("RectBatch::set");
  count_ = static_cast<int>(items.size());
}

void RectBatch::draw(const Program& program, const Framebuffer& target, int count) const {
  if (count < 0 || count > count_)
    throw GpuError("batch '" + program.name() + "': cannot draw " + std::to_string(count) + " of " +
                   std::to_string(count_) + " rectangles");
  if (count == 0) return;
  target.bind();
  glViewport(0, 0, target.width(), target.height());
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DITHER);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  program.setUniform("u_target_size", static_cast<float>(target.width()), static_cast<float>(target.height()));
  program.use();
  program.bindTextures();
  glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
  const GLsizei stride = kFloatsPerVertex * sizeof(float);
  // Attribute 0 is bound to a_position by Program; the others are looked up.
  const GLint local = glGetAttribLocation(program.id(), "a_local");
  const GLint data0 = glGetAttribLocation(program.id(), "a_data0");
  const GLint data1 = glGetAttribLocation(program.id(), "a_data1");
  const GLint data2 = glGetAttribLocation(program.id(), "a_data2");
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, nullptr);
  const struct {
    GLint location;
    GLint size;
    size_t offset;
  } attributes[] = {{local, 2, 2}, {data0, 4, 4}, {data1, 4, 8}, {data2, 4, 12}};
  for (const auto& a : attributes) {
    if (a.location < 0) continue;  // unused by this program's fragment shader
    glEnableVertexAttribArray(static_cast<GLuint>(a.location));
    glVertexAttribPointer(static_cast<GLuint>(a.location), a.size, GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<const void*>(a.offset * sizeof(float)));
  }
  glDrawArrays(GL_TRIANGLES, 0, count * kVerticesPerRect);
  glDisableVertexAttribArray(0);
  for (const auto& a : attributes)
    if (a.location >= 0) glDisableVertexAttribArray(static_cast<GLuint>(a.location));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  checkGl(("drawing batch '" + program.name() + "'").c_str());
}

}  // namespace nft::gpu
