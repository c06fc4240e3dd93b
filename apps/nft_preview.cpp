// nft_preview: the replay pipeline in a window (render::PreviewWindow, GLES2 through GLFW's EGL
// context): a video file, a folder of frames or a camera (V4L2 through cv::VideoCapture), tracked
// and drawn live. Keys: space pause, n / right step one frame while paused, r reset tracking,
// o overlay, a axes and cube, q / Esc quit. --frames N --screenshot out.png processes N frames
// and saves the window's last picture (how it is tested without a person: under xvfb-run).

#include <CLI/CLI.hpp>

#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "apps/replay/frame_source.h"
#include "apps/replay/replay_session.h"
#include "apps/replay/synthetic_frame_source.h"
#include "nft/session.h"
#include "render/preview_window.h"
#include "synthetic/synthetic_sequence.h"

namespace {

using namespace nft::replay;

/// What the keys ask for; set by the GLFW key callback, consumed by the loop.
struct KeyState {
  bool paused = false;
  bool step = false;
  bool reset = false;
  bool toggleOverlay = false;
  bool toggleAugmentations = false;
  bool quit = false;
};

void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
  if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
  auto* keys = static_cast<KeyState*>(glfwGetWindowUserPointer(window));
  if (keys == nullptr) return;
  switch (key) {
    case GLFW_KEY_SPACE: keys->paused = !keys->paused; break;
    case GLFW_KEY_N:
    case GLFW_KEY_RIGHT: keys->step = true; break;
    case GLFW_KEY_R: keys->reset = true; break;
    case GLFW_KEY_O: keys->toggleOverlay = true; break;
    case GLFW_KEY_A: keys->toggleAugmentations = true; break;
    case GLFW_KEY_Q:
    case GLFW_KEY_ESCAPE: keys->quit = true; break;
    default: break;
  }
}

struct PreviewRequest {
  std::string target, video, configPath, calibrationPath, screenshot;
  int frames = -1;
  bool hidden = false;
};

int runPreview(const PreviewRequest& request) {
  if (request.target.empty() != request.video.empty())
    throw std::runtime_error("--target and --video go together (give both, or neither for the built-in synthetic "
                             "sequence)");
  // From a live camera the search runs as in an app (tracking.async_detection's auto kept): the
  // window's frames are not held up by it. Files and folders replay deterministically.
  nft::SessionOptions sessionOptions = nft::replay::sessionOptions(request.configPath, request.calibrationPath,
                                                                   nft::replay::isCameraSpec(request.video));
  sessionOptions.adoptCurrentContext = true;  // the window's GLES2 context, made below

  std::shared_ptr<const SyntheticSequence> synthetic;
  std::unique_ptr<FrameSource> source;
  if (request.video.empty()) {
    synthetic = std::make_shared<const SyntheticSequence>();
    source = std::make_unique<SyntheticFrameSource>(synthetic);
  } else {
    source = openFrameSource(request.video);
  }
  cv::Mat frame;
  if (!source->read(frame)) throw std::runtime_error("input '" + source->description() + "' has no frames");
  const cv::Size frameSize = frame.size();

  nft::render::PreviewWindowOptions windowOptions;
  windowOptions.width = frameSize.width;
  windowOptions.height = frameSize.height;
  windowOptions.title = "nft_preview - " + source->description();
  windowOptions.visible = !request.hidden;
  nft::render::PreviewWindow window(windowOptions);
  KeyState keys;
  glfwSetWindowUserPointer(window.handle(), &keys);
  glfwSetKeyCallback(window.handle(), onKey);

  {  // The Session's GL objects live in this scope, destroyed before the window's context.
    nft::Session session(sessionOptions);
    for (const std::string& w : session.warnings()) std::fprintf(stderr, "nft_preview: warning: %s\n", w.c_str());
    if (synthetic)
      session.addTarget(synthetic->targetImage(), synthetic->options().targetPath);
    else
      session.addTarget(request.target);
    std::fprintf(stderr, "nft_preview: %s on %s (%s); keys: space pause, n/right step, r reset, o overlay, "
                         "a axes/cube, q/Esc quit\n",
                 source->description().c_str(), session.gpuRenderer().c_str(),
                 window.context().platformDescription().c_str());
    bool overlayVisible = session.config().render.overlay, augmentationsVisible = true;
    auto found = [](const nft::FrameResult& r) { return !r.targets.empty() && r.targets.front().found; };

    nft::FrameResult result = session.process(frame);
    int processed = 1;
    bool ended = false;
    const bool batch = request.frames > 0;
    while (!window.shouldClose() && !keys.quit) {
      if (keys.reset) {
        session.resetTracking();
        keys.reset = false;
      }
      if (keys.toggleOverlay) session.setOverlayVisible(overlayVisible = !overlayVisible);
      if (keys.toggleAugmentations) session.setAugmentationsVisible(augmentationsVisible = !augmentationsVisible);
      keys.toggleOverlay = keys.toggleAugmentations = false;

      const bool advance = !ended && (!keys.paused || keys.step) && !(batch && processed >= request.frames);
      keys.step = false;
      if (advance) {
        cv::Mat next;
        if (source->read(next)) {
          if (next.size() != frameSize)
            throw std::runtime_error("frame " + std::to_string(processed) + " of '" + source->description() + "' is " +
                                     std::to_string(next.cols) + "x" + std::to_string(next.rows) +
                                     " but the preview started at " + std::to_string(frameSize.width) + "x" +
                                     std::to_string(frameSize.height));
          frame = next;
          result = session.process(frame);
          ++processed;
        } else {
          ended = true;
          std::fprintf(stderr, "nft_preview: end of input after %d frames (q or Esc quits)\n", processed);
        }
      }
      const nft::render::DrawTarget drawTarget = window.drawTarget();
      session.render(result, {0, 0, drawTarget.width, drawTarget.height});

      if (batch && (processed >= request.frames || ended)) {
        if (!request.screenshot.empty()) {
          const cv::Mat shot = window.screenshot();
          cv::Scalar mean, stddev;
          cv::meanStdDev(shot, mean, stddev);
          if (!cv::imwrite(request.screenshot, shot))
            throw std::runtime_error("cannot write screenshot '" + request.screenshot + "'");
          if (stddev[0] + stddev[1] + stddev[2] < 1.0)
            throw std::runtime_error("screenshot '" + request.screenshot + "' is blank: the window shows nothing");
          std::printf("nft_preview: %d frames, target %s in the last; screenshot %s (%dx%d, not blank)\n", processed,
                      found(result) ? "found" : "not found", request.screenshot.c_str(), shot.cols, shot.rows);
        } else {
          std::printf("nft_preview: %d frames, target %s in the last\n", processed, found(result) ? "found" : "not found");
        }
        break;
      }
      window.swapBuffers();
      window.pollEvents();
      if (keys.paused || ended) std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nft_preview: track a planar target live in a window.\n"
      "Keys: space pause, n or right arrow step one frame while paused, r reset tracking, o toggle the overlay,\n"
      "a toggle the axes and cube, q or Esc quit. Without --target and --video: the built-in synthetic sequence."};
  PreviewRequest request;
  app.add_option("--target", request.target, "target image (trained at start-up) or model file (.nftm)");
  app.add_option("--video", request.video, "input: video file, folder of frames or camera index (e.g. 0; from a camera the search runs on a worker thread, tracking.async_detection auto)");
  app.add_option("--config", request.configPath, "YAML configuration (config/default.yaml lists every key)");
  app.add_option("--calib", request.calibrationPath, "camera calibration file (OpenCV YAML/XML/JSON)");
  app.add_option("--frames", request.frames, "process N frames, then stop (with --screenshot: save the last picture)")
      ->check(CLI::PositiveNumber);
  app.add_option("--screenshot", request.screenshot, "PNG of the window after the last frame (needs --frames)");
  app.add_flag("--hidden", request.hidden, "do not show the window (it still renders)");
  CLI11_PARSE(app, argc, argv);
  if (!request.screenshot.empty() && request.frames <= 0) {
    std::cerr << "nft_preview: --screenshot needs --frames N\n";
    return 1;
  }
  try {
    return runPreview(request);
  } catch (const std::exception& e) {
    std::cerr << "nft_preview: " << e.what() << "\n";
    return 1;
  }
}
