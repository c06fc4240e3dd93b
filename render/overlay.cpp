#include "render/overlay.h"

#include <GLES2/gl2.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include <opencv2/imgproc.hpp>

#include "gpu/framebuffer.h"
#include "gpu/gpu_error.h"
#include "gpu/nft_gpu_shaders.h"
#include "render/nft_render_shaders.h"

namespace nft::render {

namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;
constexpr int kPadding = 4;  // pixels between the box's edge and the text

cv::Scalar rgba(const cv::Scalar& bgr, double alpha) { return {bgr[2], bgr[1], bgr[0], alpha}; }

void setColor(const gpu::Program& program, const cv::Scalar& bgr) {
  program.setUniform("u_color", static_cast<float>(std::clamp(bgr[2] / 255.0, 0.0, 1.0)),
                     static_cast<float>(std::clamp(bgr[1] / 255.0, 0.0, 1.0)),
                     static_cast<float>(std::clamp(bgr[0] / 255.0, 0.0, 1.0)), 1.0f);
}

void deleteBuffer(unsigned int& buffer) {
  if (buffer != 0) glDeleteBuffers(1, &buffer);
  buffer = 0;
}

}  // namespace

std::string overlayText(const OverlayInfo& info) {
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, " | %.1f fps | %d inliers", info.fps, info.inliers);
  return (info.state.empty() ? std::string("-") : info.state) + numbers;
}

Overlay::Overlay(const gpu::Capabilities& caps, const OverlayStyle& style)
    : caps_(caps),
      style_(style),
      text_("render_overlay_text", {shaders::render_overlay_text_vert},
            {gpu::shaders::prelude, shaders::render_overlay_text_frag}),
      marks_("render_overlay_marks", {shaders::render_overlay_marks_vert},
             {gpu::shaders::prelude, shaders::render_overlay_marks_frag}) {
  glGetFloatv(GL_ALIASED_POINT_SIZE_RANGE, pointSizeRange_);
  glGenBuffers(1, &marksBuffer_);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  gpu::checkGl("creating the overlay's buffers");
}

Overlay::~Overlay() { deleteBuffer(marksBuffer_); }

Overlay::Overlay(Overlay&& other) noexcept
    : caps_(other.caps_),
      style_(other.style_),
      text_(std::move(other.text_)),
      marks_(std::move(other.marks_)),
      unitQuad_(std::move(other.unitQuad_)),
      marksBuffer_(std::exchange(other.marksBuffer_, 0u)),
      pointSizeRange_{other.pointSizeRange_[0], other.pointSizeRange_[1]},
      textTexture_(std::move(other.textTexture_)),
      lastText_(std::move(other.lastText_)),
      textSize_(other.textSize_),
      textRect_(other.textRect_) {
  other.textTexture_.reset();
  other.lastText_.reset();
}

Overlay& Overlay::operator=(Overlay&& other) noexcept {
  if (this != &other) {
    deleteBuffer(marksBuffer_);
    caps_ = other.caps_;
    style_ = other.style_;
    text_ = std::move(other.text_);
    marks_ = std::move(other.marks_);
    unitQuad_ = std::move(other.unitQuad_);
    marksBuffer_ = std::exchange(other.marksBuffer_, 0u);
    pointSizeRange_[0] = other.pointSizeRange_[0];
    pointSizeRange_[1] = other.pointSizeRange_[1];
    textTexture_ = std::move(other.textTexture_);
    lastText_ = std::move(other.lastText_);
    textSize_ = other.textSize_;
    textRect_ = other.textRect_;
    other.textTexture_.reset();
    other.lastText_.reset();
  }
  return *this;
}

void Overlay::setStyle(const OverlayStyle& style) {
  style_ = style;
  lastText_.reset();
}

void Overlay::updateText(const std::string& text) {
  if (lastText_ && *lastText_ == text) return;
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, kFont, style_.fontScale, 1, &baseline);
  cv::Mat image(size.height + baseline + 2 * kPadding, size.width + 2 * kPadding, CV_8UC4,
                rgba(style_.boxColor, 255.0 * std::clamp(style_.boxOpacity, 0.0, 1.0)));
  cv::putText(image, text, {kPadding, kPadding + size.height}, kFont, style_.fontScale, rgba(style_.textColor, 255.0), 1,
              cv::LINE_AA);
  image = image(cv::Rect(0, 0, std::min(image.cols, caps_.maxTextureSize), std::min(image.rows, caps_.maxTextureSize)));
  if (!textTexture_ || textTexture_->width() < image.cols || textTexture_->height() < image.rows) {
    // Room for somewhat longer text, so that a changing number rarely reallocates.
    const int w = std::min(caps_.maxTextureSize, std::max(256, image.cols + 64));
    const int h = std::min(caps_.maxTextureSize, std::max(32, image.rows));
    textTexture_.emplace(caps_, w, h, gpu::TextureFormat::Rgba8);
  }
  const cv::Mat packed = image.isContinuous() ? image : image.clone();
  textTexture_->upload(packed.data, gpu::Rect{0, 0, image.cols, image.rows});
  glBindTexture(GL_TEXTURE_2D, 0);
  textSize_ = {image.cols, image.rows};
  lastText_ = text;
}

void Overlay::draw(const OverlayInfo& info, const DrawTarget& target, const cv::Rect& imageRect, cv::Size imageSize) {
  if (!info.show) {
    textRect_ = cv::Rect();
    return;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, target.framebuffer);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);  // keep alpha
  const float ySign = target.yDown ? 1.0f : -1.0f;

  // --- Matches and patches, in camera-image pixels within the image's viewport.
  if (!info.matches.empty() || !info.patches.empty()) {
    const int viewportY = target.yDown ? imageRect.y : target.height - imageRect.y - imageRect.height;
    glViewport(target.x + imageRect.x, target.y + viewportY, imageRect.width, imageRect.height);
    std::vector<float> v;
    v.reserve(4 * info.matches.size() + 2 * info.patches.size());
    for (const auto& [from, to] : info.matches) v.insert(v.end(), {from.x, from.y, to.x, to.y});
    for (const cv::Point2f& p : info.patches) v.insert(v.end(), {p.x, p.y});
    const float sx = 2.0f / static_cast<float>(imageSize.width), sy = 2.0f / static_cast<float>(imageSize.height);
    // Pixel centre (i, j) → GL window coordinates (i + 0.5, j + 0.5) of the viewport.
    marks_.use();
    marks_.setUniform("u_to_ndc", sx, sy * ySign, 0.5f * sx - 1.0f, (0.5f * sy - 1.0f) * ySign);
    marks_.setUniform("u_point_size", std::clamp(style_.patchSize, pointSizeRange_[0], pointSizeRange_[1]));
    glBindBuffer(GL_ARRAY_BUFFER, marksBuffer_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(v.size() * sizeof(float)), v.data(), GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    if (!info.matches.empty()) {
      setColor(marks_, style_.matchColor);
      glLineWidth(1.0f);
      glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(2 * info.matches.size()));
    }
    if (!info.patches.empty()) {
      setColor(marks_, style_.patchColor);
      glDrawArrays(GL_POINTS, static_cast<GLsizei>(2 * info.matches.size()),
                   static_cast<GLsizei>(info.patches.size()));
    }
    glDisableVertexAttribArray(0);
  }

  // --- Status line: a box at the top-left of the picture, texels 1:1 on pixels.
  updateText(overlayText(info));
  const int x0 = imageRect.x + style_.margin, y0 = imageRect.y + style_.margin;
  textRect_ = cv::Rect(x0, y0, textSize_.width, textSize_.height) & cv::Rect(0, 0, target.width, target.height);
  glViewport(target.x, target.y, target.width, target.height);
  const float W = static_cast<float>(target.width), H = static_cast<float>(target.height);
  text_.setUniform("u_rect", 2.0f * static_cast<float>(x0) / W - 1.0f, 2.0f * static_cast<float>(y0) / H - 1.0f,
                   2.0f * static_cast<float>(textSize_.width) / W, 2.0f * static_cast<float>(textSize_.height) / H);
  text_.setUniform("u_uv_scale", static_cast<float>(textSize_.width) / static_cast<float>(textTexture_->width()),
                   static_cast<float>(textSize_.height) / static_cast<float>(textTexture_->height()));
  text_.setUniform("u_y_sign", ySign);
  text_.setTexture("u_text", 0, *textTexture_);
  unitQuad_.drawUnitQuad(text_);

  glViewport(target.x + imageRect.x,
             target.y + (target.yDown ? imageRect.y : target.height - imageRect.y - imageRect.height),
             imageRect.width, imageRect.height);
  glDisable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ZERO);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
  gpu::checkGl("Overlay::draw");
}

}  // namespace nft::render
