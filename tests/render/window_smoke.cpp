// nft_render_window_test: the GLFW preview window path, end to end (run by ctest under
// xvfb-run: render.window_under_xvfb). Opens a 320×240 PreviewWindow (GLES2 through GLFW's EGL
// context API, adopted as the gpu::Context), uploads a synthetic camera frame, draws a frame
// with a synthetic pose, a flat magenta cube and the overlay (text, patches, matches), reads the back buffer with
// glReadPixels (the screenshot), saves it as PNG to argv[1], and checks that the cube's colour
// is where cv::projectPoints puts the centre of the cube's top face and the camera frame is
// elsewhere. Exit 0 on success, 1 with a message otherwise.

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "gpu/capabilities.h"
#include "gpu/texture.h"
#include "render/preview_window.h"
#include "render/renderer.h"

namespace {

constexpr int kW = 320, kH = 240;

int fail(const std::string& message) {
  std::cerr << "nft_render_window_test: FAIL: " << message << "\n";
  return 1;
}

// A smooth synthetic camera frame (no magenta anywhere): blue-gray gradient with a grid.
cv::Mat syntheticFrame() {
  cv::Mat bgr(kH, kW, CV_8UC3);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>(120 + x / 4), static_cast<uchar>(80 + y / 4),
                                          static_cast<uchar>(60));
  for (int x = 0; x < kW; x += 40) cv::line(bgr, {x, 0}, {x, kH - 1}, cv::Scalar(200, 200, 200), 1);
  for (int y = 0; y < kH; y += 40) cv::line(bgr, {0, y}, {kW - 1, y}, cv::Scalar(200, 200, 200), 1);
  return bgr;
}

int run(const std::string& screenshotPath) {
  nft::render::PreviewWindowOptions options;
  options.width = kW;
  options.height = kH;
  options.title = "nft_render_window_test";
  nft::render::PreviewWindow window(options);
  std::cout << "context: " << window.context().platformDescription() << ", EGL " << window.context().eglVendor()
            << " " << window.context().eglVersion() << "\n";
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  std::cout << "GL_RENDERER: " << caps.glRenderer << "\n";
  const nft::render::DrawTarget target = window.drawTarget();
  if (target.width != kW || target.height != kH)
    return fail("framebuffer is " + std::to_string(target.width) + "x" + std::to_string(target.height) +
                ", expected " + std::to_string(kW) + "x" + std::to_string(kH));

  const cv::Mat frameBgr = syntheticFrame();
  cv::Mat frameRgb;
  cv::cvtColor(frameBgr, frameRgb, cv::COLOR_BGR2RGB);
  const nft::gpu::Texture frame(caps, kW, kH, nft::gpu::TextureFormat::Rgb8, frameRgb.data);

  nft::render::Camera camera;
  camera.K = cv::Matx33d(300.0, 0.0, 159.5, 0.0, 300.0, 119.5, 0.0, 0.0, 1.0);
  camera.imageSize = {kW, kH};
  const cv::Size2d targetSize{0.20, 0.15};
  nft::render::AugmentationStyle style;
  style.cube = true;
  style.cubeShaded = false;
  style.cubeColor = cv::Scalar(255, 0, 255);  // magenta (BGR)
  style.axes = style.outline = true;
  nft::render::Renderer renderer(caps, camera, targetSize, style);
  nft::render::OverlayInfo overlay;
  overlay.state = "TRACKING";
  overlay.fps = 30.0;
  overlay.inliers = 42;
  const nft::render::Pose pose{{0.45, -0.35, 0.12}, {-0.10, -0.06, 0.45}};
  {
    // Patches on the target's projected corners, matches from a little off them (the
    // augmentations' bounding box, left out of the background check below, holds them).
    const double tw = targetSize.width, th = targetSize.height;
    std::vector<cv::Point2f> projected;
    cv::projectPoints(std::vector<cv::Point3f>{{0, 0, 0}, {static_cast<float>(tw), 0, 0},
                                               {static_cast<float>(tw), static_cast<float>(th), 0},
                                               {0, static_cast<float>(th), 0}},
                      pose.rvec, pose.tvec, camera.K, cv::noArray(), projected);
    overlay.patches = projected;
    for (const cv::Point2f& p : projected) overlay.matches.emplace_back(p + cv::Point2f(3.f, 3.f), p);
  }
  renderer.setOverlay(overlay);
  cv::Mat shot;
  for (int i = 0; i < 3; ++i) {  // a few frames, as the preview loop would
    renderer.drawFrame(frame, pose, target);
    if (i == 2) shot = window.screenshot();  // the back buffer, before the swap
    window.swapBuffers();
    window.pollEvents();
  }
  if (!cv::imwrite(screenshotPath, shot)) return fail("could not write " + screenshotPath);
  std::cout << "screenshot: " << screenshotPath << " (" << shot.cols << "x" << shot.rows << ")\n";

  // The top face's centre and its corners, where OpenCV projects them.
  const double w = targetSize.width, h = targetSize.height, a = 0.5 * style.cubeSize * w, z = -style.cubeHeight * w;
  std::vector<cv::Point3d> model = {{w / 2, h / 2, z}};
  std::vector<cv::Point3d> box;
  for (double zz : {0.0, z})
    for (double dx : {-a, a})
      for (double dy : {-a, a}) box.emplace_back(w / 2 + dx, h / 2 + dy, zz);
  std::vector<cv::Point2d> centre, corners;
  cv::projectPoints(model, pose.rvec, pose.tvec, camera.K, cv::noArray(), centre);
  cv::projectPoints(box, pose.rvec, pose.tvec, camera.K, cv::noArray(), corners);
  const cv::Point c(cvRound(centre[0].x), cvRound(centre[0].y));
  if (!cv::Rect(0, 0, kW, kH).contains(c)) return fail("the cube's top is projected outside the window");
  const cv::Vec3b atCentre = shot.at<cv::Vec3b>(c);
  if (cv::norm(cv::Vec3d(atCentre) - cv::Vec3d(255, 0, 255)) > 12.0)
    return fail("pixel (" + std::to_string(c.x) + ", " + std::to_string(c.y) + ") at the cube's top centre is BGR(" +
                std::to_string(atCentre[0]) + ", " + std::to_string(atCentre[1]) + ", " + std::to_string(atCentre[2]) +
                "), not the cube's magenta");
  std::cout << "cube colour at the projected top-face centre (" << c.x << ", " << c.y << ")\n";

  // Elsewhere — away from every augmentation (the target's and the cube's bounding box, the
  // axes near the origin) and the overlay's box — the screenshot is the camera frame.
  std::vector<cv::Point2d> all = corners;
  std::vector<cv::Point2d> targetPixels;
  cv::projectPoints(std::vector<cv::Point3d>{{0, 0, 0}, {w, 0, 0}, {w, h, 0}, {0, h, 0}, {0, 0, -0.3 * w}},
                    pose.rvec, pose.tvec, camera.K, cv::noArray(), targetPixels);
  all.insert(all.end(), targetPixels.begin(), targetPixels.end());
  std::vector<cv::Point2f> allF(all.begin(), all.end());
  cv::Rect augmented = cv::boundingRect(allF);
  augmented.x -= 4;
  augmented.y -= 4;
  augmented.width += 8;
  augmented.height += 8;
  cv::Rect text = renderer.overlayTextRect();
  if (text.empty()) return fail("the overlay's text box was not drawn");
  int compared = 0, differing = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const cv::Point p(x, y);
      if (augmented.contains(p) || text.contains(p)) continue;
      ++compared;
      if (cv::norm(cv::Vec3d(shot.at<cv::Vec3b>(p)) - cv::Vec3d(frameBgr.at<cv::Vec3b>(p))) > 3.0) ++differing;
    }
  if (compared < 1000) return fail("too little background left to compare (" + std::to_string(compared) + " pixels)");
  if (differing > 0)
    return fail(std::to_string(differing) + " of " + std::to_string(compared) +
                " pixels away from the augmentations differ from the camera frame");
  std::cout << "background matches the camera frame on " << compared << " pixels away from the augmentations\n";
  // The overlay box holds light text pixels over a darkened frame.
  cv::Mat gray;
  cv::cvtColor(shot(text), gray, cv::COLOR_BGR2GRAY);
  const int light = cv::countNonZero(gray > 200);
  if (light < 20) return fail("the overlay's box shows no text (" + std::to_string(light) + " light pixels)");
  std::cout << "overlay text box " << text << " with " << light << " text pixels\nPASS\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: nft_render_window_test SCREENSHOT.png\n";
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
