// nftgloverlay's gpu-luma passes (gst/gl_luma_pass.h, gst/gl_colour_background.h) on their own,
// on a headless context: the luma against OpenCV's RGBA→GRAY byte for byte, on widths that are not
// a multiple of 4 (the element's pipeline test runs 640 and 1280 wide clips only), and the
// composite's choice between the input's colour and the rendered pixel at the 2-level threshold.

#include <GLES2/gl2.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "../gpu/gpu_test.h"
#include "gpu/framebuffer.h"
#include "gpu/program.h"
#include "gpu/quad_pass.h"
#include "gpu/shader_source.h"
#include "gpu/texture.h"
#include "gst/gl_colour_background.h"
#include "gst/gl_luma_pass.h"
#include "gst/saved_gl_state.h"

namespace {

using NftGlOverlayPasses = nft::gpu::testing::GpuTest;
using nft::gpu::Framebuffer;
using nft::gpu::Texture;
using nft::gpu::TextureFormat;

/// OpenCV's grey of one RGBA colour.
int greyOf(const cv::Vec4b& rgba) {
  cv::Mat grey;
  cv::cvtColor(cv::Mat(1, 1, CV_8UC4, cv::Scalar(rgba[0], rgba[1], rgba[2], rgba[3])), grey, cv::COLOR_RGBA2GRAY);
  return grey.at<std::uint8_t>(0, 0);
}

TEST_F(NftGlOverlayPasses, TheLumaIsOpenCvsGreyByteForByteAndTheRowsLastPixelFillsItsLastTexel) {
  nft::gst::GlLumaPass pass;
  cv::RNG rng(34);
  // 10,320 random pixels: OpenCV's >>15 coefficients and the >>14 ones differ on about 0.3 % of them.
  for (const cv::Size size : {cv::Size(258, 40), cv::Size(13, 5), cv::Size(16, 3)}) {
    SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height));
    cv::Mat rgba(size, CV_8UC4);
    rng.fill(rgba, cv::RNG::UNIFORM, 0, 256);
    const Texture input(caps(), size.width, size.height, TextureFormat::Rgba8, rgba.data);
    std::vector<std::uint8_t> gray;
    pass.run(input.id(), size.width, size.height, gray);
    const int stride = 4 * ((size.width + 3) / 4);
    ASSERT_EQ(pass.stride(), stride);
    ASSERT_EQ(gray.size(), static_cast<size_t>(stride * size.height));
    cv::Mat expected;
    cv::cvtColor(rgba, expected, cv::COLOR_RGBA2GRAY);
    int differ = 0;
    for (int y = 0; y < size.height; ++y)
      for (int x = 0; x < stride; ++x)  // past the width: the row's last pixel again
        differ += gray[static_cast<size_t>(y * stride + x)] !=
                  expected.at<std::uint8_t>(y, std::min(x, size.width - 1));
    EXPECT_EQ(differ, 0);
  }
  pass.release();
}

TEST_F(NftGlOverlayPasses, TheCompositeShowsTheInputsColourWhereTheRenderedPixelIsItsGreyWithinTwoLevels) {
  // Four stripes of 4 columns, each one input colour; the rendered picture (what Session::render
  // would draw) is, stripe by stripe: the grey exactly, the grey + 2, the grey + 3, red.
  const int width = 16, height = 3;
  const std::vector<cv::Vec4b> colours = {
      {200, 30, 90, 255}, {12, 140, 220, 255}, {90, 90, 10, 255}, {40, 200, 40, 255}};
  cv::Mat input(height, width, CV_8UC4);
  for (int x = 0; x < width; ++x) input.col(x).setTo(cv::Scalar(colours[x / 4]));
  const Texture inputTexture(caps(), width, height, TextureFormat::Rgba8, input.data);
  std::vector<cv::Vec4b> rendered;
  for (int s = 0; s < 4; ++s) {
    const auto g = static_cast<std::uint8_t>(greyOf(colours[static_cast<size_t>(s)]) + (s == 1 ? 2 : s == 2 ? 3 : 0));
    rendered.push_back(s == 3 ? cv::Vec4b(255, 0, 0, 255) : cv::Vec4b(g, g, g, 255));
  }

  nft::gst::GlColourBackground background;
  background.bindTarget(width, height);
  glEnable(GL_SCISSOR_TEST);
  for (int s = 0; s < 4; ++s) {
    const cv::Vec4b& c = rendered[static_cast<size_t>(s)];
    glScissor(4 * s, 0, 4, height);
    glClearColor(c[0] / 255.f, c[1] / 255.f, c[2] / 255.f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
  }
  glDisable(GL_SCISSOR_TEST);

  const Texture output(caps(), width, height, TextureFormat::Rgba8);
  const Framebuffer outputFramebuffer(output);
  outputFramebuffer.bind();
  glViewport(0, 0, width, height);
  glEnable(GL_BLEND);  // GStreamer's state: the pass writes every pixel as computed, and puts it back
  background.composite(inputTexture.id());
  EXPECT_EQ(glIsEnabled(GL_BLEND), GL_TRUE);
  const std::vector<std::uint8_t> pixels = outputFramebuffer.readRgba8();
  const std::vector<cv::Vec4b> expected = {colours[0], colours[1], rendered[2], rendered[3]};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::uint8_t* p = &pixels[static_cast<size_t>((y * width + x) * 4)];
      const cv::Vec4b& e = expected[static_cast<size_t>(x / 4)];
      ASSERT_EQ(cv::Vec4b(p[0], p[1], p[2], p[3]), e) << "pixel (" << x << ", " << y << ")";
    }
  background.release();
}


// The app's program deleted while current lives until ours replaces it; restoring its name then
// would raise GL_INVALID_VALUE in GStreamer's next call. SavedGlState binds none instead, and a
// live program it binds back.
TEST_F(NftGlOverlayPasses, SavedStateRestoresALiveProgramAndNoneForOneDeletedMeanwhile) {
  static const nft::gpu::ShaderSource kFill{"tests/fill.frag.glsl", "void main() { gl_FragColor = vec4(1.0); }\n"};
  const nft::gpu::Program ours = nft::gpu::QuadPass::makeProgram("ours", {kFill});
  GLuint app = 0;
  {
    const nft::gpu::Program live = nft::gpu::QuadPass::makeProgram("app", {kFill});
    app = live.id();
    glUseProgram(app);
    {
      const nft::gst::SavedGlState saved;
      glUseProgram(ours.id());
    }
    GLint current = 0;
    glGetIntegerv(GL_CURRENT_PROGRAM, &current);
    EXPECT_EQ(static_cast<GLuint>(current), app) << "a live program is bound back";
  }  // the app deletes its program while it is current: GL keeps it until another is bound
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  ASSERT_EQ(glIsProgram(app), GL_TRUE) << "still current, so not deleted yet";
  {
    const nft::gst::SavedGlState saved;
    glUseProgram(ours.id());  // the deleted program is gone for good now
  }
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  GLint current = -1;
  glGetIntegerv(GL_CURRENT_PROGRAM, &current);
  EXPECT_EQ(current, 0);
  EXPECT_EQ(glIsProgram(app), GL_FALSE);
}

}  // namespace
