// render::Renderer on the GPU test context (llvmpipe without a GPU): projection against
// cv::projectPoints measured in the read-back image, background and letterboxing, depth test,
// textured quad, the debugging overlay (text box, patch points, match lines), and state
// hygiene between the renderer and the gpu/ compute passes.

#include <GLES2/gl2.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "gpu/framebuffer.h"
#include "gpu/quad_pass.h"
#include "gpu/rect_batch.h"
#include "gpu/texture.h"
#include "gpu/gpu_test.h"
#include "render/camera.h"
#include "render/offscreen_target.h"
#include "render/overlay.h"
#include "render/renderer.h"

namespace nft::render {
namespace {

using gpu::testing::GpuTest;

constexpr int kW = 640, kH = 480;
const cv::Size2d kTargetSize{0.20, 0.15};  // metres

Camera testCamera() {
  Camera camera;
  // Non-square pixels and a principal point off the pixel grid, so that a half-pixel slip in
  // the K → GL mapping shows.
  camera.K = cv::Matx33d(520.0, 0.0, 321.3, 0.0, 515.0, 238.6, 0.0, 0.0, 1.0);
  camera.imageSize = {kW, kH};
  camera.near = 0.01;
  camera.far = 10.0;
  return camera;
}

// Camera above and in front of the target: the top face and two sides of the cube visible.
Pose testPose() { return {{0.45, -0.35, 0.12}, {-0.09, -0.05, 0.42}}; }

std::vector<cv::Point2d> project(const std::vector<cv::Point3d>& points, const Camera& camera, const Pose& pose) {
  std::vector<cv::Point2d> out;
  cv::projectPoints(points, pose.rvec, pose.tvec, camera.K, cv::noArray(), out);
  return out;
}

std::vector<cv::Point3d> targetCorners() {
  const double w = kTargetSize.width, h = kTargetSize.height;
  return {{0, 0, 0}, {w, 0, 0}, {w, h, 0}, {0, h, 0}};
}

// The cube of the default style: base centred on the target, "up" is −z.
std::vector<cv::Point3d> cubeTopCorners(const AugmentationStyle& style) {
  const double w = kTargetSize.width, h = kTargetSize.height;
  const double a = 0.5 * style.cubeSize * w, z = -style.cubeHeight * w;
  return {{w / 2 - a, h / 2 - a, z}, {w / 2 + a, h / 2 - a, z}, {w / 2 + a, h / 2 + a, z}, {w / 2 - a, h / 2 + a, z}};
}

AugmentationStyle nothing() {
  AugmentationStyle s;
  s.background = false;
  s.axes = s.cube = s.outline = s.texturedQuad = false;
  return s;
}

cv::Mat colourMask(const cv::Mat& bgr, const cv::Vec3b& colour, int tolerance = 8) {
  cv::Mat mask;
  const cv::Scalar c(colour[0], colour[1], colour[2]);
  cv::inRange(bgr, c - cv::Scalar::all(tolerance), c + cv::Scalar::all(tolerance), mask);
  return mask;
}

double distanceToLine(cv::Point2d p, cv::Point2d a, cv::Point2d b) {
  const cv::Point2d d = b - a;
  return std::abs(d.x * (p.y - a.y) - d.y * (p.x - a.x)) / std::hypot(d.x, d.y);
}

cv::Point2d intersect(const cv::Vec4f& l1, const cv::Vec4f& l2) {
  // Lines as (vx, vy, x0, y0) from cv::fitLine.
  const double a1 = l1[0], b1 = l1[1], a2 = l2[0], b2 = l2[1];
  const double det = a1 * (-b2) - b1 * (-a2);
  const double dx = l2[2] - l1[2], dy = l2[3] - l1[3];
  const double s = (dx * (-b2) - dy * (-a2)) / det;
  return {l1[2] + s * a1, l1[3] + s * b1};
}

// Measures a convex quadrilateral in a mask: fits a line to the evidence along each expected
// edge (away from the corners) and intersects neighbouring edges. `filled`: the evidence is the
// mask's boundary, taken half-way between an inside and an outside pixel (sub-pixel, unbiased);
// else the drawn pixels' centres (a 1-px line). Returns the measured corners in `expected`'s order.
std::vector<cv::Point2d> measureQuad(const cv::Mat& mask, const std::vector<cv::Point2d>& expected, bool filled) {
  std::vector<cv::Point2d> evidence;
  if (filled) {
    for (int y = 0; y < mask.rows; ++y)
      for (int x = 0; x < mask.cols; ++x) {
        const bool in = mask.at<uchar>(y, x) != 0;
        if (x + 1 < mask.cols && in != (mask.at<uchar>(y, x + 1) != 0)) evidence.emplace_back(x + 0.5, y);
        if (y + 1 < mask.rows && in != (mask.at<uchar>(y + 1, x) != 0)) evidence.emplace_back(x, y + 0.5);
      }
  } else {
    for (int y = 0; y < mask.rows; ++y)
      for (int x = 0; x < mask.cols; ++x)
        if (mask.at<uchar>(y, x) != 0) evidence.emplace_back(x, y);
  }
  const size_t n = expected.size();
  std::vector<cv::Vec4f> lines(n);
  for (size_t i = 0; i < n; ++i) {
    const cv::Point2d a = expected[i], b = expected[(i + 1) % n];
    const double length = std::hypot(b.x - a.x, b.y - a.y);
    std::vector<cv::Point2f> onEdge;
    for (const cv::Point2d& p : evidence) {
      const double along = ((p - a).dot(b - a)) / length;
      if (along > 4.0 && along < length - 4.0 && distanceToLine(p, a, b) <= 2.0)
        onEdge.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
    }
    EXPECT_GE(onEdge.size(), 10u) << "edge " << i << " has almost nothing drawn along it";
    if (onEdge.size() < 2) return {};
    cv::fitLine(onEdge, lines[i], cv::DIST_L2, 0, 0.001, 0.001);
  }
  std::vector<cv::Point2d> corners(n);
  for (size_t i = 0; i < n; ++i) corners[i] = intersect(lines[(i + n - 1) % n], lines[i]);
  return corners;
}

// The issue asks for 1 px. The measurement itself is good to ~0.15 px on llvmpipe, so the
// tests hold the renderer to 0.4 px: a half-pixel slip in the K → GL mapping (OpenCV pixel
// centres at integers, GL's at +0.5) measures 0.57 px and fails.
constexpr double kMaxVertexErrorPx = 0.4;

double maxError(const std::vector<cv::Point2d>& measured, const std::vector<cv::Point2d>& expected) {
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::hypot(measured[i].x - expected[i].x, measured[i].y - expected[i].y));
  return worst;
}

class RendererTest : public GpuTest {
 protected:
  // A random colour frame as the detection lane would have uploaded it (Rgb8, row 0 = top).
  cv::Mat randomFrame(int width, int height, unsigned seed = 7) {
    cv::Mat bgr(height, width, CV_8UC3);
    cv::RNG rng(seed);
    rng.fill(bgr, cv::RNG::UNIFORM, 0, 256);
    return bgr;
  }
  gpu::Texture upload(const cv::Mat& bgr) {
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return gpu::Texture(caps(), rgb.cols, rgb.rows, gpu::TextureFormat::Rgb8, rgb.data);
  }
  gpu::Texture black(int width = kW, int height = kH) { return upload(cv::Mat::zeros(height, width, CV_8UC3)); }
};

TEST(CameraTest, GlProjectionMatchesProjectPoints) {
  const Camera camera = testCamera();
  const Pose pose = testPose();
  for (bool yDown : {true, false}) {
    const cv::Matx44d mvp = projectionMatrix(camera, yDown) * modelViewMatrix(pose);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-0.3, 0.3);
    std::vector<cv::Point3d> points;
    for (int i = 0; i < 100; ++i) points.emplace_back(u(rng), u(rng), u(rng) * 0.5);
    const std::vector<cv::Point2d> expected = project(points, camera, pose);
    for (size_t i = 0; i < points.size(); ++i) {
      const cv::Vec4d clip = mvp * cv::Vec4d(points[i].x, points[i].y, points[i].z, 1.0);
      // Viewport transform over the image (0, 0, W, H); window coordinates → OpenCV pixels.
      const double xw = (clip[0] / clip[3] + 1.0) * 0.5 * kW, yw = (clip[1] / clip[3] + 1.0) * 0.5 * kH;
      const double u0 = xw - 0.5, v0 = yDown ? yw - 0.5 : kH - yw - 0.5;
      EXPECT_NEAR(u0, expected[i].x, 1e-9);
      EXPECT_NEAR(v0, expected[i].y, 1e-9);
      const double zNdc = clip[2] / clip[3];
      EXPECT_GT(zNdc, -1.0);
      EXPECT_LT(zNdc, 1.0);
    }
  }
  Camera bad = camera;
  bad.near = 0.0;
  EXPECT_THROW(projectionMatrix(bad, true), std::invalid_argument);
}

TEST(CameraTest, ImageRectKeepsTheAspectRatio) {
  EXPECT_EQ(imageRectIn({640, 480}, 640, 480), cv::Rect(0, 0, 640, 480));
  EXPECT_EQ(imageRectIn({640, 480}, 640, 640), cv::Rect(0, 80, 640, 480));    // letterbox
  EXPECT_EQ(imageRectIn({640, 480}, 800, 480), cv::Rect(80, 0, 640, 480));    // pillarbox
  EXPECT_EQ(imageRectIn({640, 480}, 320, 240), cv::Rect(0, 0, 320, 240));
  EXPECT_EQ(imageRectIn({1280, 720}, 640, 480), cv::Rect(0, 60, 640, 360));
  EXPECT_THROW(imageRectIn({0, 480}, 640, 480), std::invalid_argument);
}

TEST_F(RendererTest, OutlineLandsOnProjectedTargetCorners) {
  const Camera camera = testCamera();
  AugmentationStyle style = nothing();
  style.outline = true;
  style.outlineColor = cv::Scalar(255, 0, 255);
  style.outlineWidth = 1.0f;
  Renderer renderer(caps(), camera, kTargetSize, style);
  OffscreenTarget out(caps(), kW, kH);
  const gpu::Texture frame = black();
  renderer.drawFrame(frame, testPose(), out);
  const cv::Mat image = out.read();

  const std::vector<cv::Point2d> expected = project(targetCorners(), camera, testPose());
  for (const cv::Point2d& c : expected) ASSERT_TRUE(cv::Rect(8, 8, kW - 16, kH - 16).contains(c)) << c;
  const cv::Mat mask = colourMask(image, {255, 0, 255});
  // Every drawn pixel lies on the projected outline (within 1 px), and nothing else was drawn.
  std::vector<cv::Point> drawn;
  cv::findNonZero(mask, drawn);
  ASSERT_GT(drawn.size(), 200u);
  double worstStray = 0;
  for (const cv::Point& p : drawn) {
    double d = 1e9;
    for (size_t i = 0; i < 4; ++i) d = std::min(d, distanceToLine(p, expected[i], expected[(i + 1) % 4]));
    worstStray = std::max(worstStray, d);
  }
  EXPECT_LE(worstStray, 1.0);
  EXPECT_EQ(cv::countNonZero(cv::Mat(image.reshape(1) != 0)), static_cast<int>(drawn.size()) * 2)
      << "pixels other than the outline's were drawn";

  const std::vector<cv::Point2d> measured = measureQuad(mask, expected, false);
  ASSERT_EQ(measured.size(), 4u);
  const double error = maxError(measured, expected);
  std::cout << "[ outline ] max corner error " << error << " px, max distance of a drawn pixel from the outline "
            << worstStray << " px\n";
  RecordProperty("max_corner_error_px", std::to_string(error));
  EXPECT_LE(error, kMaxVertexErrorPx);
}

TEST_F(RendererTest, ACurvedTargetsSurfaceSegmentsAreDrawnAndItsCubeIsNot) {
  // Issue 47, item 5: an augmentation with surface segments (a curved label's edges, silhouette
  // and grid) draws them where they project, in the outline colour, instead of the flat outline;
  // the cube, which stands on a plane, is not drawn.
  const Camera camera = testCamera();
  AugmentationStyle style = nothing();
  style.outline = true;
  style.cube = true;
  style.outlineColor = cv::Scalar(255, 0, 255);
  style.outlineWidth = 1.0f;
  Renderer renderer(caps(), camera, kTargetSize, style);
  OffscreenTarget out(caps(), kW, kH);
  // A ring of a 5 cm cylinder about the vertical axis through (0.1, ·, 0.05): its front half.
  Augmentation a{testPose(), kTargetSize, {}};
  std::vector<cv::Point3d> ring;
  for (int k = 0; k <= 36; ++k) {
    const double phi = -M_PI / 2 + M_PI * k / 36;
    ring.emplace_back(0.1 + 0.05 * std::sin(phi), 0.075, 0.05 - 0.05 * std::cos(phi));
  }
  for (size_t i = 1; i < ring.size(); ++i) {
    a.surfaceSegments.emplace_back(ring[i - 1].x, ring[i - 1].y, ring[i - 1].z);
    a.surfaceSegments.emplace_back(ring[i].x, ring[i].y, ring[i].z);
  }
  renderer.drawFrame(black(), std::vector<Augmentation>{a}, out.drawTarget());
  const cv::Mat image = out.read();
  const cv::Mat mask = colourMask(image, {255, 0, 255});
  std::vector<cv::Point> drawn;
  cv::findNonZero(mask, drawn);
  ASSERT_GT(drawn.size(), 60u);
  const std::vector<cv::Point2d> expected = project(ring, camera, testPose());
  double worst = 0;
  for (const cv::Point& p : drawn) {
    double d = 1e9;
    for (size_t i = 1; i < expected.size(); ++i) d = std::min(d, distanceToLine(p, expected[i - 1], expected[i]));
    worst = std::max(worst, d);
  }
  EXPECT_LE(worst, 1.0) << "every drawn pixel on the projected ring";
  EXPECT_EQ(cv::countNonZero(cv::Mat(image.reshape(1) != 0)), static_cast<int>(drawn.size()) * 2)
      << "nothing but the segments: no flat outline, no cube";
}

TEST_F(RendererTest, CubeTopVerticesLandOnProjectedVerticesAndHiddenFacesStayHidden) {
  const Camera camera = testCamera();
  const Pose pose = testPose();
  AugmentationStyle style = nothing();
  style.cube = true;
  const std::array<cv::Vec3b, 6> colours = {cv::Vec3b(255, 255, 255), cv::Vec3b(0, 0, 255), cv::Vec3b(0, 255, 0),
                                            cv::Vec3b(255, 0, 0),     cv::Vec3b(0, 255, 255), cv::Vec3b(255, 0, 255)};
  std::array<cv::Scalar, 6> faceColours;
  for (size_t k = 0; k < 6; ++k) faceColours[k] = cv::Scalar(colours[k][0], colours[k][1], colours[k][2]);
  style.cubeFaceColors = faceColours;
  Renderer renderer(caps(), camera, kTargetSize, style);
  OffscreenTarget out(caps(), kW, kH);
  const gpu::Texture frame = black();
  renderer.drawFrame(frame, pose, out);
  const cv::Mat image = out.read();

  // Which faces the camera sees (outward normal towards the camera), from the pose alone.
  cv::Matx33d R;
  cv::Rodrigues(pose.rvec, R);
  const cv::Vec3d camInTarget = -(R.t() * pose.tvec);
  const double w = kTargetSize.width, h = kTargetSize.height;
  const double a = 0.5 * style.cubeSize * w, top = -style.cubeHeight * w;
  // Bottom, top, −y, +y, −x, +x: camera on the outer side of each face's plane.
  const bool visible[6] = {camInTarget[2] > 0, camInTarget[2] < top, camInTarget[1] < h / 2 - a,
                           camInTarget[1] > h / 2 + a, camInTarget[0] < w / 2 - a, camInTarget[0] > w / 2 + a};
  ASSERT_TRUE(visible[1]) << "test pose must show the top face";
  ASSERT_FALSE(visible[0]);
  int hiddenFaces = 0;
  for (size_t k = 0; k < 6; ++k) {
    const int count = cv::countNonZero(colourMask(image, colours[k]));
    if (visible[k]) {
      EXPECT_GT(count, 300) << "visible face " << k << " barely drawn";
    } else {
      ++hiddenFaces;
      EXPECT_LE(count, 2) << "face " << k << " is behind the cube but " << count << " of its pixels show";
    }
  }
  EXPECT_GE(hiddenFaces, 2);

  // The top face's four vertices, measured from its boundary in the image.
  const std::vector<cv::Point2d> expected = project(cubeTopCorners(style), camera, pose);
  const std::vector<cv::Point2d> measured = measureQuad(colourMask(image, colours[1]), expected, true);
  ASSERT_EQ(measured.size(), 4u);
  const double error = maxError(measured, expected);

  // The silhouette: every pixel well inside the projected cube's hull is drawn, every pixel
  // well outside is not.
  std::vector<cv::Point3d> all = cubeTopCorners(style);
  for (const cv::Point3d& p : cubeTopCorners(style)) all.emplace_back(p.x, p.y, 0.0);
  std::vector<cv::Point2f> projected;
  for (const cv::Point2d& p : project(all, camera, pose)) projected.emplace_back(p);
  std::vector<cv::Point2f> hull;
  cv::convexHull(projected, hull);
  int wrong = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const double d = cv::pointPolygonTest(hull, cv::Point2f(float(x), float(y)), true);
      const cv::Vec3b px = image.at<cv::Vec3b>(y, x);
      const bool isDrawn = px != cv::Vec3b(0, 0, 0);
      if ((d > 1.0 && !isDrawn) || (d < -1.0 && isDrawn)) ++wrong;
    }
  EXPECT_EQ(wrong, 0) << "pixels more than 1 px inside the cube's silhouette undrawn, or outside it drawn";
  std::cout << "[ cube ] max top-vertex error " << error << " px\n";
  RecordProperty("max_top_vertex_error_px", std::to_string(error));
  EXPECT_LE(error, kMaxVertexErrorPx);
}

TEST_F(RendererTest, WithoutDepthTestTheBottomFaceWouldShow) {
  // The control for the test above: the bottom face is emitted last, so only the depth test
  // hides it. Without a depth buffer the renderer refuses the cube instead of drawing wrong.
  AugmentationStyle style = nothing();
  style.cube = true;
  Renderer renderer(caps(), testCamera(), kTargetSize, style);
  OffscreenTarget out(caps(), kW, kH);
  DrawTarget noDepth = out.drawTarget();
  noDepth.hasDepth = false;
  const gpu::Texture frame = black();
  EXPECT_THROW(renderer.drawFrame(frame, testPose(), noDepth), std::invalid_argument);
  EXPECT_NO_THROW(renderer.drawFrame(frame, std::nullopt, noDepth));  // background only is fine
}

TEST_F(RendererTest, FrameWithoutPoseShowsTheBackgroundOnly) {
  const cv::Mat input = randomFrame(kW, kH);
  const gpu::Texture frame = upload(input);
  Renderer renderer(caps(), testCamera(), kTargetSize);  // every augmentation on by default
  OffscreenTarget out(caps(), kW, kH);
  renderer.drawFrame(frame, std::nullopt, out);
  const cv::Mat image = out.read();
  ASSERT_EQ(image.type(), CV_8UC3);
  ASSERT_EQ(image.size(), input.size());
  EXPECT_EQ(cv::norm(image, input, cv::NORM_INF), 0.0) << "background differs from the uploaded frame";

  // With a pose the augmentations change the picture (the same renderer, same frame).
  renderer.drawFrame(frame, testPose(), out);
  EXPECT_GT(cv::norm(out.read(), input, cv::NORM_L1), 0.0);
}

TEST_F(RendererTest, GrayFrameIsDrawnAsGray) {
  cv::Mat gray(kH, kW, CV_8UC1);
  cv::randu(gray, 0, 256);
  const gpu::Texture frame(caps(), kW, kH, gpu::TextureFormat::Luminance8, gray.data);
  Renderer renderer(caps(), testCamera(), kTargetSize);
  OffscreenTarget out(caps(), kW, kH);
  renderer.drawFrame(frame, std::nullopt, out);
  cv::Mat expected;
  cv::cvtColor(gray, expected, cv::COLOR_GRAY2BGR);
  EXPECT_EQ(cv::norm(out.read(), expected, cv::NORM_INF), 0.0);
}

TEST_F(RendererTest, OtherAspectRatiosAreLetterboxedOrPillarboxed) {
  const cv::Mat input = randomFrame(kW, kH, 11);
  const gpu::Texture frame = upload(input);
  AugmentationStyle style;
  style.clearColor = cv::Scalar(10, 20, 30);
  Renderer renderer(caps(), testCamera(), kTargetSize, style);
  for (const cv::Size size : {cv::Size(640, 640), cv::Size(800, 480)}) {
    OffscreenTarget out(caps(), size.width, size.height);
    renderer.drawFrame(frame, std::nullopt, out);
    const cv::Mat image = out.read();
    const cv::Rect rect = imageRectIn({kW, kH}, size.width, size.height);
    EXPECT_EQ(cv::norm(image(rect), input, cv::NORM_INF), 0.0) << size;
    cv::Mat bars = image.clone();
    bars(rect).setTo(cv::Scalar(10, 20, 30));
    const cv::Mat clear(bars.size(), bars.type(), cv::Scalar(10, 20, 30));
    EXPECT_EQ(cv::norm(bars, clear, cv::NORM_INF), 0.0) << "bars not in clearColor, " << size;
  }
}

TEST_F(RendererTest, FrameRegionOfAPaddedTexture) {
  // A 640×480 frame in the top-left of a 1024×512 texture (padded for mipmapping).
  const cv::Mat input = randomFrame(kW, kH, 5);
  cv::Mat padded(512, 1024, CV_8UC3, cv::Scalar(0, 0, 255));
  input.copyTo(padded(cv::Rect(0, 0, kW, kH)));
  const gpu::Texture frame = upload(padded);
  Renderer renderer(caps(), testCamera(), kTargetSize);
  OffscreenTarget out(caps(), kW, kH);
  renderer.drawFrame(frame, {0, 0, kW, kH}, std::nullopt, out.drawTarget());
  EXPECT_EQ(cv::norm(out.read(), input, cv::NORM_INF), 0.0);
  EXPECT_THROW(renderer.drawFrame(frame, {600, 0, kW, kH}, std::nullopt, out.drawTarget()), std::invalid_argument);
}

TEST_F(RendererTest, WindowTargetsAreFlippedRowOrder) {
  // yDown = false (a window's default framebuffer): row 0 of the framebuffer is the bottom.
  const cv::Mat input = randomFrame(kW, kH, 9);
  const gpu::Texture frame = upload(input);
  Renderer renderer(caps(), testCamera(), kTargetSize);
  OffscreenTarget out(caps(), kW, kH);
  DrawTarget window = out.drawTarget();
  window.yDown = false;
  renderer.drawFrame(frame, std::nullopt, window);
  cv::Mat flipped;
  cv::flip(out.read(), flipped, 0);
  EXPECT_EQ(cv::norm(flipped, input, cv::NORM_INF), 0.0);
}

TEST_F(RendererTest, TexturedQuadMapsTheImageOntoTheTarget) {
  const Camera camera = testCamera();
  const Pose pose = testPose();
  // Four quadrants: blue, green / red, white (BGR), image 40 × 30 (the target's aspect).
  cv::Mat quad(30, 40, CV_8UC3);
  quad(cv::Rect(0, 0, 20, 15)).setTo(cv::Scalar(255, 0, 0));
  quad(cv::Rect(20, 0, 20, 15)).setTo(cv::Scalar(0, 255, 0));
  quad(cv::Rect(0, 15, 20, 15)).setTo(cv::Scalar(0, 0, 255));
  quad(cv::Rect(20, 15, 20, 15)).setTo(cv::Scalar(255, 255, 255));
  AugmentationStyle style = nothing();
  style.texturedQuad = true;
  Renderer renderer(caps(), camera, kTargetSize, style);
  renderer.setQuadTexture(quad);
  OffscreenTarget out(caps(), kW, kH);
  const gpu::Texture frame = black();
  renderer.drawFrame(frame, pose, out);
  const cv::Mat image = out.read();
  const double w = kTargetSize.width, h = kTargetSize.height;
  const std::vector<cv::Point2d> centres =
      project({{w / 4, h / 4, 0}, {3 * w / 4, h / 4, 0}, {w / 4, 3 * h / 4, 0}, {3 * w / 4, 3 * h / 4, 0}}, camera, pose);
  const cv::Vec3b expected[4] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
  for (size_t i = 0; i < 4; ++i) {
    const cv::Point p(static_cast<int>(std::lround(centres[i].x)), static_cast<int>(std::lround(centres[i].y)));
    EXPECT_EQ(image.at<cv::Vec3b>(p), expected[i]) << "quadrant " << i << " at " << p;
  }
  // Outside the target: the (black) frame.
  const cv::Point2d outside = project({{-0.02, -0.02, 0}}, camera, pose)[0];
  EXPECT_EQ(image.at<cv::Vec3b>(cv::Point(int(outside.x), int(outside.y))), cv::Vec3b(0, 0, 0));
  EXPECT_THROW(renderer.setQuadTexture(cv::Mat(4, 4, CV_32FC1)), std::invalid_argument);
}

// A compute pass that reads an input texture on unit 1 and writes a pattern of it and the
// texel index, as the detection lane's passes do.
const gpu::ShaderSource kComputePass{"tests/render_compute.frag.glsl", R"(
uniform sampler2D u_input;
uniform vec2 u_size;
void main() {
  vec2 i = nft_texel_index();
  vec4 s = texture2D(u_input, nft_texel_uv(i, u_size));
  gl_FragColor = vec4(mod(i.x, 256.0) / 255.0, s.g, mod(i.x + 3.0 * i.y, 256.0) / 255.0, s.r);
}
)"};

TEST_F(RendererTest, FrameWithoutPoseShowsTheBackgroundAndTheOverlayOnly) {
  const cv::Mat input = randomFrame(kW, kH, 31);
  const gpu::Texture frame = upload(input);
  Renderer renderer(caps(), testCamera(), kTargetSize);  // every augmentation on by default
  OverlayInfo info;
  info.state = "TRACKING";
  info.fps = 29.97;
  info.inliers = 57;
  renderer.setOverlay(info);
  OffscreenTarget out(caps(), kW, kH);
  renderer.drawFrame(frame, std::nullopt, out);
  const cv::Mat image = out.read();

  const cv::Rect box = renderer.overlayTextRect();
  ASSERT_FALSE(box.empty());
  EXPECT_EQ(box.tl(), cv::Point(4, 4)) << "the text box sits at the picture's top-left corner";
  EXPECT_GT(box.width, 100);
  EXPECT_LT(box.width, kW / 2);
  EXPECT_LT(box.height, 40);
  // Outside the box: exactly the camera frame (no augmentation without a pose).
  cv::Mat outside = cv::Mat::ones(kH, kW, CV_8U) * 255;
  outside(box).setTo(0);
  EXPECT_EQ(cv::norm(image, input, cv::NORM_INF, outside), 0.0) << "pixels outside the overlay's box changed";
  // Inside: every pixel differs (the darkened box) and the text's light pixels are there.
  cv::Mat diff;
  cv::absdiff(image(box), input(box), diff);
  cv::Mat diffGray;
  cv::cvtColor(diff, diffGray, cv::COLOR_BGR2GRAY);
  EXPECT_GT(cv::countNonZero(diffGray), box.area() * 9 / 10) << "the overlay's box barely shows";
  cv::Mat gray;
  cv::cvtColor(image(box), gray, cv::COLOR_BGR2GRAY);
  const int light = cv::countNonZero(gray > 220);
  EXPECT_GT(light, 100) << "no text in the overlay's box";
  EXPECT_EQ(overlayText(info), "TRACKING | 30.0 fps | 57 inliers");

  // The text texture is reused: other text, same box position; hidden overlay = background only.
  info.fps = 12.5;
  renderer.setOverlay(info);
  renderer.drawFrame(frame, std::nullopt, out);
  EXPECT_GT(cv::norm(out.read()(box), image(box), cv::NORM_L1), 0.0) << "changed text did not change the box";
  info.show = false;
  renderer.setOverlay(info);
  renderer.drawFrame(frame, std::nullopt, out);
  EXPECT_EQ(cv::norm(out.read(), input, cv::NORM_INF), 0.0);
}

TEST_F(RendererTest, OverlayPatchesAndMatchesLandOnTheirPixels) {
  Renderer renderer(caps(), testCamera(), kTargetSize, nothing());
  OverlayStyle overlayStyle;
  overlayStyle.patchSize = 3.0f;
  overlayStyle.patchColor = {0, 255, 0};
  overlayStyle.matchColor = {255, 0, 0};
  renderer.setOverlayStyle(overlayStyle);
  OverlayInfo info;
  info.state = "TRACKING";
  info.patches = {{100.f, 300.f}, {401.f, 222.f}, {620.f, 470.f}, {333.f, 123.f}};
  info.matches = {{{50.f, 400.f}, {250.f, 400.f}}};  // a horizontal line on row 400
  renderer.setOverlay(info);
  const gpu::Texture frame = black();
  for (bool yDown : {true, false}) {
    OffscreenTarget out(caps(), kW, kH);
    DrawTarget target = out.drawTarget();
    target.yDown = yDown;
    renderer.drawFrame(frame, std::nullopt, target);
    cv::Mat image = out.read();
    if (!yDown) cv::flip(image, image, 0);  // a window's rows: bottom first
    const cv::Mat green = colourMask(image, {0, 255, 0});
    for (const cv::Point2f& p : info.patches) {
      const cv::Rect around(cvRound(p.x) - 4, cvRound(p.y) - 4, 9, 9);
      const cv::Mat local = green(around & cv::Rect(0, 0, kW, kH));
      const cv::Moments m = cv::moments(local, true);
      ASSERT_GT(m.m00, 0.0) << "no point drawn near " << p << " (yDown " << yDown << ")";
      const cv::Point2d centroid(around.x + m.m10 / m.m00, around.y + m.m01 / m.m00);
      EXPECT_LE(std::abs(centroid.x - p.x), 1.0) << p << " yDown " << yDown;
      EXPECT_LE(std::abs(centroid.y - p.y), 1.0) << p << " yDown " << yDown;
      EXPECT_EQ(m.m00, 9.0) << "a 3-px point covers 3x3 pixels";
    }
    EXPECT_EQ(cv::countNonZero(green), 9 * static_cast<int>(info.patches.size())) << "stray green pixels";
    const cv::Mat blue = colourMask(image, {255, 0, 0});
    EXPECT_GE(cv::countNonZero(blue.row(400).colRange(52, 248)), 190) << "the match line is not on row 400";
    EXPECT_EQ(cv::countNonZero(blue) - cv::countNonZero(blue.row(400)), 0) << "match line off its row";
  }
}

TEST_F(RendererTest, DrawingLeavesComputeResultsAndGlStateUntouched) {
  const cv::Mat inputImage = randomFrame(64, 48, 21);
  cv::Mat inputRgba;
  cv::cvtColor(inputImage, inputRgba, cv::COLOR_BGR2RGBA);
  const gpu::Texture input(caps(), 64, 48, gpu::TextureFormat::Rgba8, inputRgba.data);
  const gpu::Texture output(caps(), 64, 48, gpu::TextureFormat::Rgba8);
  const gpu::Framebuffer outputFb(output);
  const gpu::Program pass = gpu::QuadPass::makeProgram("render_test_compute", {kComputePass});
  pass.setTexture("u_input", 1, input);
  pass.setUniform("u_size", 64.0f, 48.0f);
  quad().run(pass, outputFb);
  const std::vector<std::uint8_t> before = outputFb.readRgba8();

  const gpu::Texture frame = upload(randomFrame(kW, kH));
  AugmentationStyle style;  // everything
  style.texturedQuad = true;
  style.quadOpacity = 0.5;
  Renderer renderer(caps(), testCamera(), kTargetSize, style);
  renderer.setQuadTexture(inputImage);
  OverlayInfo overlay;  // and the overlay with all its parts
  overlay.state = "TRACKING";
  overlay.patches = {{10.f, 10.f}, {300.f, 200.f}};
  overlay.matches = {{{5.f, 5.f}, {100.f, 90.f}}};
  renderer.setOverlay(overlay);
  OffscreenTarget out(caps(), kW, kH);
  renderer.drawFrame(frame, testPose(), out);

  // The state the gpu/ layer expects after a draw.
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  EXPECT_FALSE(glIsEnabled(GL_DEPTH_TEST));
  EXPECT_FALSE(glIsEnabled(GL_BLEND));
  EXPECT_FALSE(glIsEnabled(GL_CULL_FACE));
  EXPECT_FALSE(glIsEnabled(GL_SCISSOR_TEST));
  EXPECT_FALSE(glIsEnabled(GL_STENCIL_TEST));
  GLint value = -1;
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &value);
  EXPECT_EQ(value, 0);
  glGetIntegerv(GL_ELEMENT_ARRAY_BUFFER_BINDING, &value);
  EXPECT_EQ(value, 0);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &value);
  EXPECT_EQ(value, GL_TEXTURE0);
  glGetIntegerv(GL_CURRENT_PROGRAM, &value);
  EXPECT_EQ(value, 0);
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &value);
  EXPECT_EQ(value, 0);
  GLboolean depthMask = GL_FALSE;
  glGetBooleanv(GL_DEPTH_WRITEMASK, &depthMask);
  EXPECT_EQ(depthMask, GL_TRUE);
  GLfloat lineWidth = 0;
  glGetFloatv(GL_LINE_WIDTH, &lineWidth);
  EXPECT_EQ(lineWidth, 1.0f);
  GLint attribs = 0;
  glGetIntegerv(GL_MAX_VERTEX_ATTRIBS, &attribs);
  for (GLuint i = 0; i < static_cast<GLuint>(attribs); ++i) {
    GLint enabled = 1;
    glGetVertexAttribiv(i, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
    EXPECT_EQ(enabled, 0) << "vertex attribute array " << i << " left enabled";
  }

  quad().run(pass, outputFb);
  EXPECT_EQ(outputFb.readRgba8(), before) << "a compute pass after a drawn frame gives other results";
}

TEST_F(RendererTest, ComputePassesLeaveDrawnFramesUntouched) {
  const gpu::Texture frame = upload(randomFrame(kW, kH, 3));
  AugmentationStyle style;
  style.texturedQuad = true;
  style.quadOpacity = 0.6;
  Renderer renderer(caps(), testCamera(), kTargetSize, style);
  renderer.setQuadTexture(randomFrame(32, 24, 4));
  OverlayInfo overlay;
  overlay.state = "TRACKING";
  overlay.patches = {{20.f, 30.f}, {320.f, 240.f}};
  overlay.matches = {{{15.f, 25.f}, {200.f, 150.f}}};
  renderer.setOverlay(overlay);
  OffscreenTarget out(caps(), kW, kH);
  renderer.drawFrame(frame, testPose(), out);
  const cv::Mat first = out.read();

  // Compute work in between: a quad pass over a sub-rectangle (leaves its viewport, program
  // and a texture on unit 1 behind) and a rectangle batch (other attributes and buffers).
  const gpu::Texture input(caps(), 64, 48, gpu::TextureFormat::Rgba8);
  const gpu::Texture output(caps(), 100, 60, gpu::TextureFormat::Rgba8);
  const gpu::Framebuffer outputFb(output);
  const gpu::Program pass = gpu::QuadPass::makeProgram("render_test_compute", {kComputePass});
  pass.setTexture("u_input", 1, input);
  pass.setUniform("u_size", 64.0f, 48.0f);
  quad().run(pass, outputFb, {3, 5, 17, 11});
  gpu::RectBatch batch;
  batch.set({{{1, 1, 5, 5}, {}}, {{10, 10, 8, 4}, {}}});
  batch.draw(gpu::RectBatch::makeProgram(
                 "render_test_batch", {{"tests/batch.frag.glsl", "void main() { gl_FragColor = v_data0 + 0.5; }\n"}}),
             outputFb);

  renderer.drawFrame(frame, testPose(), out);
  EXPECT_EQ(cv::norm(out.read(), first, cv::NORM_INF), 0.0) << "the same frame drawn after compute passes differs";
}

}  // namespace
}  // namespace nft::render
