#include "render/renderer.h"

#include <GLES2/gl2.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "gpu/gpu_error.h"
#include "gpu/nft_gpu_shaders.h"
#include "render/nft_render_shaders.h"

namespace nft::render {

namespace {

constexpr int kMeshFloats = 7;       // x, y, z (metres, target frame), r, g, b, a
constexpr int kTexturedFloats = 5;   // x, y, z, u, v
constexpr int kCubeVertices = 36;    // 6 faces × 2 triangles
constexpr int kOutlineVertices = 4;  // line loop
constexpr int kAxisVertices = 6;     // 3 lines

gpu::Program makeBackgroundProgram() {
  return gpu::Program("render_background", {shaders::render_background_vert},
                      {gpu::shaders::prelude, shaders::render_background_frag});
}
gpu::Program makeMeshProgram() {
  return gpu::Program("render_mesh", {shaders::render_mesh_vert}, {gpu::shaders::prelude, shaders::render_mesh_frag});
}
gpu::Program makeTexturedProgram() {
  return gpu::Program("render_textured", {shaders::render_textured_vert},
                      {gpu::shaders::prelude, shaders::render_textured_frag});
}

int attribLocation(const gpu::Program& program, const char* name) {
  const int loc = glGetAttribLocation(program.id(), name);
  if (loc < 0) throw gpu::GpuError("program '" + program.name() + "' has no active attribute '" + name + "'");
  return loc;
}

void validateTargetSize(cv::Size2d size) {
  if (!(size.width > 0.0) || !(size.height > 0.0))
    throw std::invalid_argument("render::Renderer: the target size must be positive, got " +
                                std::to_string(size.width) + " x " + std::to_string(size.height) + " m");
}

struct Rgba {
  float r, g, b, a;
};
Rgba toRgba(const cv::Scalar& bgr, double factor = 1.0) {
  auto channel = [&](double v) { return static_cast<float>(std::clamp(v * factor / 255.0, 0.0, 1.0)); };
  return {channel(bgr[2]), channel(bgr[1]), channel(bgr[0]), 1.0f};
}

void pushVertex(std::vector<float>& v, const cv::Vec3d& p, const Rgba& c) {
  v.insert(v.end(), {static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2]), c.r, c.g, c.b, c.a});
}

// Column-major float copy of a 4×4 matrix for glUniformMatrix4fv.
std::array<float, 16> columnMajor(const cv::Matx44d& m) {
  std::array<float, 16> out{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) out[static_cast<size_t>(c * 4 + r)] = static_cast<float>(m(r, c));
  return out;
}

}  // namespace

Renderer::Renderer(const gpu::Capabilities& caps, const Camera& camera, cv::Size2d targetSize,
                   const AugmentationStyle& style)
    : camera_(camera),
      targetSize_(targetSize),
      style_(style),
      maxTextureSize_(caps.maxTextureSize),
      background_(makeBackgroundProgram()),
      mesh_(makeMeshProgram()),
      textured_(makeTexturedProgram()),
      meshColorAttrib_(attribLocation(mesh_, "a_color")),
      texturedUvAttrib_(attribLocation(textured_, "a_uv")),
      overlay_(caps) {
  validateTargetSize(targetSize);
  projectionMatrix(camera_, true);  // validates the camera
  glGetFloatv(GL_ALIASED_LINE_WIDTH_RANGE, lineWidthRange_);

  const float w = static_cast<float>(targetSize.width), h = static_cast<float>(targetSize.height);
  const GLfloat quad[4 * kTexturedFloats] = {0.f, 0.f, 0.f, 0.f, 0.f,  w, 0.f, 0.f, 1.f, 0.f,
                                             0.f, h,   0.f, 0.f, 1.f,  w, h,   0.f, 1.f, 1.f};
  glGenBuffers(1, &texturedBuffer_);
  glBindBuffer(GL_ARRAY_BUFFER, texturedBuffer_);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);

  glGenBuffers(1, &meshBuffer_);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  gpu::checkGl("creating the renderer's buffers");
}

Renderer::~Renderer() {
  const GLuint buffers[2] = {meshBuffer_, texturedBuffer_};
  for (GLuint b : buffers)
    if (b != 0) glDeleteBuffers(1, &b);
}

Renderer::Renderer(Renderer&& other) noexcept
    : camera_(other.camera_),
      targetSize_(other.targetSize_),
      style_(other.style_),
      maxTextureSize_(other.maxTextureSize_),
      lineWidthRange_{other.lineWidthRange_[0], other.lineWidthRange_[1]},
      background_(std::move(other.background_)),
      mesh_(std::move(other.mesh_)),
      textured_(std::move(other.textured_)),
      meshColorAttrib_(other.meshColorAttrib_),
      texturedUvAttrib_(other.texturedUvAttrib_),
      unitQuad_(std::move(other.unitQuad_)),
      meshBuffer_(other.meshBuffer_),
      texturedBuffer_(other.texturedBuffer_),
      quadTexture_(std::move(other.quadTexture_)),
      overlay_(std::move(other.overlay_)),
      overlayInfo_(std::move(other.overlayInfo_)) {
  other.meshBuffer_ = other.texturedBuffer_ = 0;
  other.quadTexture_.reset();
}

Renderer& Renderer::operator=(Renderer&& other) noexcept {
  if (this != &other) {
    const GLuint buffers[2] = {meshBuffer_, texturedBuffer_};
    for (GLuint b : buffers)
      if (b != 0) glDeleteBuffers(1, &b);
    camera_ = other.camera_;
    targetSize_ = other.targetSize_;
    style_ = other.style_;
    maxTextureSize_ = other.maxTextureSize_;
    lineWidthRange_[0] = other.lineWidthRange_[0];
    lineWidthRange_[1] = other.lineWidthRange_[1];
    background_ = std::move(other.background_);
    mesh_ = std::move(other.mesh_);
    textured_ = std::move(other.textured_);
    meshColorAttrib_ = other.meshColorAttrib_;
    texturedUvAttrib_ = other.texturedUvAttrib_;
    unitQuad_ = std::move(other.unitQuad_);
    meshBuffer_ = other.meshBuffer_;
    texturedBuffer_ = other.texturedBuffer_;
    quadTexture_ = std::move(other.quadTexture_);
    overlay_ = std::move(other.overlay_);
    overlayInfo_ = std::move(other.overlayInfo_);
    other.meshBuffer_ = other.texturedBuffer_ = 0;
    other.quadTexture_.reset();
  }
  return *this;
}

void Renderer::setCamera(const Camera& camera) {
  projectionMatrix(camera, true);  // validates
  camera_ = camera;
}

void Renderer::setQuadTexture(const cv::Mat& image) {
  if (image.empty()) throw std::invalid_argument("Renderer::setQuadTexture: empty image");
  cv::Mat rgba;
  switch (image.type()) {
    case CV_8UC1: cv::cvtColor(image, rgba, cv::COLOR_GRAY2RGBA); break;
    case CV_8UC3: cv::cvtColor(image, rgba, cv::COLOR_BGR2RGBA); break;
    case CV_8UC4: cv::cvtColor(image, rgba, cv::COLOR_BGRA2RGBA); break;
    default:
      throw std::invalid_argument("Renderer::setQuadTexture: image type must be CV_8UC1, CV_8UC3 or CV_8UC4, got " +
                                  cv::typeToString(image.type()));
  }
  if (rgba.cols > maxTextureSize_ || rgba.rows > maxTextureSize_)
    throw gpu::GpuError("Renderer::setQuadTexture: image " + std::to_string(rgba.cols) + "x" +
                        std::to_string(rgba.rows) + " exceeds GL_MAX_TEXTURE_SIZE " + std::to_string(maxTextureSize_) +
                        " (scale it down)");
  gpu::Capabilities caps;
  caps.maxTextureSize = maxTextureSize_;
  gpu::Texture texture(caps, rgba.cols, rgba.rows, gpu::TextureFormat::Rgba8, rgba.data);
  texture.setFilter(gpu::Filter::Linear, gpu::Filter::Linear);
  glBindTexture(GL_TEXTURE_2D, 0);
  quadTexture_ = std::move(texture);
}

void Renderer::drawFrame(const gpu::Texture& cameraFrame, const std::optional<Pose>& pose, const DrawTarget& target) {
  drawFrame(cameraFrame, {0, 0, cameraFrame.width(), cameraFrame.height()}, pose, target);
}

void Renderer::drawFrame(const gpu::Texture& cameraFrame, const gpu::Rect& frameRegion,
                         const std::optional<Pose>& pose, const DrawTarget& target) {
  std::vector<Augmentation> augmentations;
  if (pose) augmentations.push_back({*pose, targetSize_, {}});
  drawFrame(cameraFrame, frameRegion, augmentations, target);
}

void Renderer::drawFrame(const gpu::Texture& cameraFrame, const std::vector<Augmentation>& augmentations,
                         const DrawTarget& target) {
  drawFrame(cameraFrame, {0, 0, cameraFrame.width(), cameraFrame.height()}, augmentations, target);
}

void Renderer::drawFrame(const gpu::Texture& cameraFrame, const gpu::Rect& frameRegion,
                         const std::vector<Augmentation>& augmentations, const DrawTarget& target) {
  const gpu::Rect& r = frameRegion;
  for (const Augmentation& a : augmentations)
    if (!(a.targetSize.width > 0) || !(a.targetSize.height > 0))
      throw std::invalid_argument("Renderer::drawFrame: an augmentation's target size is not positive");
  if (r.width < 1 || r.height < 1 || r.x < 0 || r.y < 0 || r.x + r.width > cameraFrame.width() ||
      r.y + r.height > cameraFrame.height())
    throw std::invalid_argument("Renderer::drawFrame: frame region (" + std::to_string(r.x) + ", " +
                                std::to_string(r.y) + ", " + std::to_string(r.width) + "x" +
                                std::to_string(r.height) + ") is empty or outside the " +
                                std::to_string(cameraFrame.width()) + "x" + std::to_string(cameraFrame.height()) +
                                " texture");
  if (target.width < 1 || target.height < 1)
    throw std::invalid_argument("Renderer::drawFrame: empty target " + std::to_string(target.width) + "x" +
                                std::to_string(target.height));
  if (!augmentations.empty() && style_.cube && !target.hasDepth)
    throw std::invalid_argument("Renderer::drawFrame: the cube needs a depth buffer, and this target has none");

  // Every piece of state this draw relies on, set here (a compute pass may have left anything).
  glBindFramebuffer(GL_FRAMEBUFFER, target.framebuffer);
  glViewport(target.x, target.y, target.width, target.height);
  // The clear stays inside the drawing area (an app may draw elsewhere in its framebuffer).
  glEnable(GL_SCISSOR_TEST);
  glScissor(target.x, target.y, target.width, target.height);
  glDisable(GL_STENCIL_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_DITHER);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glDepthMask(GL_TRUE);
  const Rgba clear = toRgba(style_.clearColor);
  glClearColor(clear.r, clear.g, clear.b, 1.0f);
  glClearDepthf(1.0f);
  glClear(GL_COLOR_BUFFER_BIT | (target.hasDepth ? GL_DEPTH_BUFFER_BIT : 0u));
  glDisable(GL_SCISSOR_TEST);

  // The image's rectangle in the target: the viewport of the background and augmentations.
  const cv::Rect image = imageRectIn(camera_.imageSize, target.width, target.height);
  const int viewportY = target.yDown ? image.y : target.height - image.y - image.height;
  glViewport(target.x + image.x, target.y + viewportY, image.width, image.height);

  if (style_.background) {
    const float tw = static_cast<float>(cameraFrame.width()), th = static_cast<float>(cameraFrame.height());
    background_.setUniform("u_region", static_cast<float>(r.x) / tw, static_cast<float>(r.y) / th,
                           static_cast<float>(r.width) / tw, static_cast<float>(r.height) / th);
    background_.setUniform("u_y_sign", target.yDown ? 1.0f : -1.0f);
    background_.setTexture("u_frame", 0, cameraFrame);
    unitQuad_.drawUnitQuad(background_);
  }

  for (const Augmentation& a : augmentations) drawAugmentations(a, target);
  if (overlayInfo_)
    overlay_.draw(*overlayInfo_, target, image, camera_.imageSize);
  else
    overlay_.draw(OverlayInfo{{}, 0.0, 0, {}, {}, false}, target, image, camera_.imageSize);  // clears textRect
  resetState();
  gpu::checkGl("Renderer::drawFrame");
}

void Renderer::drawAugmentations(const Augmentation& augmentation, const DrawTarget& target) {
  const Pose& pose = augmentation.pose;
  const cv::Size2d targetSize = augmentation.targetSize;
  const bool onSurface = !augmentation.surfaceSegments.empty();
  const bool cube = style_.cube && !onSurface;
  const cv::Matx44d modelView = modelViewMatrix(pose);
  const std::array<float, 16> mvp = columnMajor(projectionMatrix(camera_, target.yDown) * modelView);
  const double w = targetSize.width, h = targetSize.height;
  auto lineWidth = [&](float px) { return std::clamp(px, lineWidthRange_[0], lineWidthRange_[1]); };

  // --- Textured quad: on the plane, blended over the frame, no depth.
  if (style_.texturedQuad && quadTexture_) {
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);  // keep alpha = 1
    textured_.setUniform("u_opacity", static_cast<float>(std::clamp(style_.quadOpacity, 0.0, 1.0)));
    textured_.setTexture("u_image", 0, *quadTexture_);
    textured_.use();
    textured_.bindTextures();
    glUniformMatrix4fv(textured_.uniformLocation("u_mvp"), 1, GL_FALSE, mvp.data());
    const int uv = texturedUvAttrib_;
    glBindBuffer(GL_ARRAY_BUFFER, texturedBuffer_);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(static_cast<GLuint>(uv));
    const GLsizei stride = kTexturedFloats * sizeof(float);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
    glVertexAttribPointer(static_cast<GLuint>(uv), 2, GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<const void*>(3 * sizeof(float)));
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glDisableVertexAttribArray(static_cast<GLuint>(uv));
    glDisableVertexAttribArray(0);
    glDisable(GL_BLEND);
  }

  // --- Mesh geometry of this frame: cube triangles, outline loop (or the surface's segments), axis lines.
  std::vector<float> v;
  v.reserve((kCubeVertices + kOutlineVertices + kAxisVertices + augmentation.surfaceSegments.size()) * kMeshFloats);
  if (cube) {
    const double a = 0.5 * style_.cubeSize * w, c = style_.cubeHeight * w;
    const double x0 = 0.5 * w - a, x1 = 0.5 * w + a, y0 = 0.5 * h - a, y1 = 0.5 * h + a, zt = -c;
    // Faces as 4 corners (any winding: no culling, depth decides) and their outward normals,
    // in the AugmentationStyle::cubeFaceColors order; emitted top first, bottom last, so that
    // only the depth test hides the bottom face.
    struct Face {
      cv::Vec3d p[4];
      cv::Vec3d normal;
    };
    const Face faces[6] = {
        {{{x0, y0, 0}, {x1, y0, 0}, {x1, y1, 0}, {x0, y1, 0}}, {0, 0, 1}},     // bottom
        {{{x0, y0, zt}, {x1, y0, zt}, {x1, y1, zt}, {x0, y1, zt}}, {0, 0, -1}},  // top
        {{{x0, y0, 0}, {x1, y0, 0}, {x1, y0, zt}, {x0, y0, zt}}, {0, -1, 0}},    // −y
        {{{x0, y1, 0}, {x1, y1, 0}, {x1, y1, zt}, {x0, y1, zt}}, {0, 1, 0}},     // +y
        {{{x0, y0, 0}, {x0, y1, 0}, {x0, y1, zt}, {x0, y0, zt}}, {-1, 0, 0}},    // −x
        {{{x1, y0, 0}, {x1, y1, 0}, {x1, y1, zt}, {x1, y0, zt}}, {1, 0, 0}},     // +x
    };
    const cv::Matx33d R = modelView.get_minor<3, 3>(0, 0);
    const cv::Vec3d t(modelView(0, 3), modelView(1, 3), modelView(2, 3));
    for (int k : {1, 2, 3, 4, 5, 0}) {
      const Face& f = faces[k];
      Rgba color{};
      if (style_.cubeFaceColors) {
        color = toRgba((*style_.cubeFaceColors)[static_cast<size_t>(k)]);
      } else if (style_.cubeShaded) {
        const cv::Vec3d centre = 0.25 * (f.p[0] + f.p[1] + f.p[2] + f.p[3]);
        const cv::Vec3d toCamera = -cv::normalize(R * centre + t);
        const double lambert = std::max(0.0, (R * f.normal).dot(toCamera));
        const double ambient = std::clamp(style_.ambient, 0.0, 1.0);
        color = toRgba(style_.cubeColor, ambient + (1.0 - ambient) * lambert);
      } else {
        color = toRgba(style_.cubeColor);
      }
      for (int i : {0, 1, 2, 0, 2, 3}) pushVertex(v, f.p[i], color);
    }
  }
  const int outlineFirst = static_cast<int>(v.size()) / kMeshFloats;
  if (style_.outline) {
    const Rgba color = toRgba(style_.outlineColor);
    if (onSurface)
      for (const cv::Vec3d& p : augmentation.surfaceSegments) pushVertex(v, p, color);
    else
      for (const cv::Vec3d& p : {cv::Vec3d(0, 0, 0), cv::Vec3d(w, 0, 0), cv::Vec3d(w, h, 0), cv::Vec3d(0, h, 0)})
        pushVertex(v, p, color);
  }
  const int axesFirst = static_cast<int>(v.size()) / kMeshFloats;
  if (style_.axes) {
    const double L = style_.axisLength * w;
    const Rgba red{1, 0, 0, 1}, green{0, 1, 0, 1}, blue{0, 0, 1, 1};
    pushVertex(v, {0, 0, 0}, red);
    pushVertex(v, {L, 0, 0}, red);
    pushVertex(v, {0, 0, 0}, green);
    pushVertex(v, {0, L, 0}, green);
    pushVertex(v, {0, 0, 0}, blue);
    pushVertex(v, {0, 0, -L}, blue);
  }
  if (v.empty()) return;

  mesh_.use();
  glUniformMatrix4fv(mesh_.uniformLocation("u_mvp"), 1, GL_FALSE, mvp.data());
  const int colorLoc = meshColorAttrib_;
  glBindBuffer(GL_ARRAY_BUFFER, meshBuffer_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(v.size() * sizeof(float)), v.data(), GL_STREAM_DRAW);
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(static_cast<GLuint>(colorLoc));
  const GLsizei stride = kMeshFloats * sizeof(float);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
  glVertexAttribPointer(static_cast<GLuint>(colorLoc), 4, GL_FLOAT, GL_FALSE, stride,
                        reinterpret_cast<const void*>(3 * sizeof(float)));

  // Outline: on the plane, under the cube (drawn before it, no depth: the cube stands in front);
  // a curved surface's segments likewise (only the parts facing the camera are given).
  if (style_.outline) {
    glDisable(GL_DEPTH_TEST);
    glLineWidth(lineWidth(style_.outlineWidth));
    if (onSurface)
      glDrawArrays(GL_LINES, outlineFirst, static_cast<GLsizei>(augmentation.surfaceSegments.size() / 2 * 2));
    else
      glDrawArrays(GL_LINE_LOOP, outlineFirst, kOutlineVertices);
  }
  if (target.hasDepth) {
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
  }
  if (cube) glDrawArrays(GL_TRIANGLES, 0, kCubeVertices);
  if (style_.axes) {
    glDepthFunc(GL_LEQUAL);
    glLineWidth(lineWidth(style_.axisWidth));
    glDrawArrays(GL_LINES, axesFirst, kAxisVertices);
  }
  glDisableVertexAttribArray(static_cast<GLuint>(colorLoc));
  glDisableVertexAttribArray(0);
}

void Renderer::resetState() const {
  glDisable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ZERO);
  glLineWidth(1.0f);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glUseProgram(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace nft::render
