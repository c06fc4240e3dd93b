// camera: live natural-feature-tracking AR on a Linux dev board with the nft library.
//
//   camera --target book.jpg                      # first V4L2 camera (/dev/video0)
//   camera --target book.jpg --camera /dev/video2 --size 640x480 --raw-yuyv
//   camera --target cover.jpg --video book.mp4 --frames 60 --screenshot shot.png
//
// Two threads:
//  - the capture thread reads frames (cv::VideoCapture: a V4L2 camera, or a video file paced at
//    its frame rate) and drops each one into a one-slot hand-off (LatestFrameSlot below);
//  - the main thread owns the window and its OpenGL ES 2.0 context (GLFW, made through EGL) and
//    the nft::Session that adopted that context; per frame it takes the newest frame,
//    session.process(), session.render() into the window, glfwSwapBuffers(), glfwPollEvents().
// The Session makes every GL call on the thread that created it, so process() and render() stay
// on the main thread; the capture thread never touches GL or the Session.
//
// Dependencies: nft, OpenCV (videoio, imgcodecs, imgproc), GLFW and the C++17 standard library.

// GLFW includes <GLES2/gl2.h> for the GL types and constants; GL_GLES_PROTOTYPES 0 leaves out its
// function prototypes because this program links no GL library itself: the few GL functions it
// calls are loaded through glfwGetProcAddress (GlFunctions below).
#define GL_GLES_PROTOTYPES 0
#define GLFW_INCLUDE_ES2
#include <GLFW/glfw3.h>

#include <nft/nft.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

namespace {

using Clock = std::chrono::steady_clock;

// --- Command line ---------------------------------------------------------------------------

struct Options {
  std::string target;          // --target: the target image (or .nftm model), required
  double widthMetres = 0.0;    // --width-m: printed target width; 0 = the config's target.width_m
  std::string config;          // --config: YAML file (see nft/config/config.h), "" = defaults
  std::string camera = "0";    // --camera: V4L2 index or device path
  cv::Size size;               // --size: camera resolution to ask for; empty = the driver's
  bool rawYuyv = false;        // --raw-yuyv: hand raw YUYV frames to the Session
  std::string video;           // --video: a video file instead of the camera
  bool fast = false;           // --fast: video files unpaced, no frame dropped
  long long frames = 0;        // --frames: stop after this many processed frames, 0 = never
  std::string screenshot;      // --screenshot: PNG of the window after the last frame
  bool hidden = false;         // --hidden: do not show the window
};

const char* const kUsage = R"(camera: live AR with the nft library (V4L2 camera or video file in, GLFW window out)

usage: camera --target IMG [options]

  --target IMG        target image (PNG, JPEG, ...) or trained model (.nftm); required
  --width-m W         printed width of the target, metres (default: the config's target.width_m)
  --config YAML       configuration file (keys: nft/config/config.h; default: built-in defaults)
  --camera N|DEV      V4L2 camera index or device path (default 0, i.e. /dev/video0)
  --size WxH          camera resolution to request, e.g. 640x480 (default: the driver's)
  --raw-yuyv          pass raw YUYV frames to the tracker (nft::ImageView, PixelFormat::Yuyv)
                      instead of OpenCV's BGR; with --video the frames are converted to YUYV,
                      to try that path without a camera
  --video FILE        read a video file instead of the camera, paced at its frame rate
  --fast              with --video: no pacing and no dropped frames (every frame is processed,
                      as fast as the tracker goes)
  --frames N          stop after N processed frames
  --screenshot PNG    after the last frame, save the window's picture; exit code 1 if it is blank
  --hidden            do not show the window (e.g. under xvfb-run)
  --help              this text

keys: q or Esc quits.
exit codes: 0 done, 1 error (no camera or file, tracker error, blank screenshot), 2 bad arguments.
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Options parseArguments(int argc, char** argv) {
  Options options;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw UsageError(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  auto number = [](const std::string& flag, const std::string& text) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || !std::isfinite(v)) throw UsageError(flag + " " + text + ": expected a number");
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg == "--target") {
      options.target = value(i);
    } else if (arg == "--width-m") {
      options.widthMetres = number(arg, value(i));
      if (options.widthMetres <= 0) throw UsageError("--width-m must be > 0");
    } else if (arg == "--config") {
      options.config = value(i);
    } else if (arg == "--camera") {
      options.camera = value(i);
    } else if (arg == "--size") {
      const std::string text = value(i);
      int w = 0, h = 0;
      char x = 0, extra = 0;
      if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w <= 0 || h <= 0)
        throw UsageError("--size " + text + ": expected WIDTHxHEIGHT, e.g. 640x480");
      options.size = {w, h};
    } else if (arg == "--raw-yuyv") {
      options.rawYuyv = true;
    } else if (arg == "--video") {
      options.video = value(i);
    } else if (arg == "--fast") {
      options.fast = true;
    } else if (arg == "--frames") {
      const double n = number(arg, value(i));
      if (n < 1 || n != static_cast<long long>(n)) throw UsageError("--frames must be a whole number >= 1");
      options.frames = static_cast<long long>(n);
    } else if (arg == "--screenshot") {
      options.screenshot = value(i);
    } else if (arg == "--hidden") {
      options.hidden = true;
    } else {
      throw UsageError("unknown argument " + arg);
    }
  }
  if (options.target.empty()) throw UsageError("--target IMG is required");
  if (options.fast && options.video.empty()) throw UsageError("--fast applies to --video only");
  return options;
}

// --- Frames and the one-slot hand-off -------------------------------------------------------

struct Frame {
  cv::Mat pixels;            // BGR (CV_8UC3), or YUYV (CV_8UC2: Y0 U / Y1 V byte pairs)
  bool yuyv = false;
  long long timestampNs = 0; // capture time (camera) or presentation time (file), monotonic
  long long index = 0;       // frame number at the source
};

// Hands frames from the capture thread to the render thread through ONE slot. A new frame
// overwrites one the render thread has not taken yet (a dropped frame, counted), and the render
// thread always takes the newest. Live AR wants latency over completeness: a queue would make
// the tracker fall further behind the camera whenever a frame takes longer than the camera's
// period (a detection frame, a slow GPU), and the cube would trail the real book by the queue's
// length; dropping stale frames keeps what is drawn at most one frame behind the camera.
// (Tracking copes with skipped frames: the tracking lane searches around the predicted pose,
// and the detection lane needs no history.)
class LatestFrameSlot {
 public:
  // Capture side. lossless = false: overwrite an untaken frame (counted as dropped).
  // lossless = true (--fast): wait until the render thread has taken the previous frame.
  void put(Frame frame, bool lossless) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (lossless) changed_.wait(lock, [&] { return !slot_ || closed_; });
    if (closed_) return;
    if (slot_) ++dropped_;
    slot_ = std::move(frame);
    changed_.notify_all();
  }
  // Render side: the newest frame, waiting up to `timeout` for one; nothing on timeout, or when
  // the slot is closed and empty.
  std::optional<Frame> take(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, timeout, [&] { return slot_ || closed_; });
    std::optional<Frame> frame = std::move(slot_);
    slot_.reset();
    if (frame) changed_.notify_all();  // wakes a lossless put()
    return frame;
  }
  // Either side: no more frames. The capture thread calls it at the end of the source (with the
  // reason), the render thread when it quits; the frame still in the slot can be taken.
  void close(const std::string& reason = {}) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_) endReason_ = reason;
    closed_ = true;
    changed_.notify_all();
  }
  // Capture side: sleeps until `deadline` (frame pacing); false when closed meanwhile.
  bool sleepUntil(Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    return !changed_.wait_until(lock, deadline, [&] { return closed_; });
  }
  bool closed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return closed_;
  }
  bool closedAndEmpty() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return closed_ && !slot_;
  }
  long long dropped() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return dropped_;
  }
  std::string endReason() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return endReason_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Frame> slot_;
  bool closed_ = false;
  long long dropped_ = 0;
  std::string endReason_;
};

// --- Frame sources: a V4L2 camera or a video file --------------------------------------------

struct Source {
  cv::VideoCapture capture;
  std::string name;
  bool isFile = false;
  double fps = 30.0;         // a file's frame rate (pacing, timestamps)
  bool yuyv = false;         // frames are handed out as YUYV
  cv::Size size;             // the frames' size, from the first frame
};

// A webcam's YUYV from a BGR frame (BT.601; U and V averaged over each pixel pair), to try the
// raw-buffer path with a video file. A camera delivers this layout itself.
cv::Mat bgrToYuyv(const cv::Mat& bgr) {
  if (bgr.cols % 2 != 0) throw std::runtime_error("--raw-yuyv needs an even frame width, got " + std::to_string(bgr.cols));
  cv::Mat yuv;
  cv::cvtColor(bgr, yuv, cv::COLOR_BGR2YUV);
  cv::Mat yuyv(bgr.rows, bgr.cols, CV_8UC2);
  for (int r = 0; r < bgr.rows; ++r) {
    const cv::Vec3b* in = yuv.ptr<cv::Vec3b>(r);
    uchar* out = yuyv.ptr<uchar>(r);
    for (int c = 0; c < bgr.cols; c += 2, out += 4) {
      out[0] = in[c][0];
      out[1] = static_cast<uchar>((in[c][1] + in[c + 1][1] + 1) / 2);
      out[2] = in[c + 1][0];
      out[3] = static_cast<uchar>((in[c][2] + in[c + 1][2] + 1) / 2);
    }
  }
  return yuyv;
}

Source openSource(const Options& options) {
  Source source;
  if (!options.video.empty()) {
    source.name = options.video;
    source.isFile = true;
    if (!std::filesystem::is_regular_file(options.video))
      throw std::runtime_error("video file " + options.video + ": no such file");
    if (!source.capture.open(options.video))
      throw std::runtime_error("video file " + options.video + ": OpenCV cannot decode it");
    const double fps = source.capture.get(cv::CAP_PROP_FPS);
    source.fps = (std::isfinite(fps) && fps > 0 && fps < 1000) ? fps : 30.0;
  } else {
    // A number is an index (/dev/videoN); anything else a device path.
    const bool isIndex = !options.camera.empty() &&
                         options.camera.find_first_not_of("0123456789") == std::string::npos;
    source.name = isIndex ? "/dev/video" + options.camera : options.camera;
    if (!std::filesystem::exists(source.name))
      throw std::runtime_error("camera " + source.name + ": no such device (is a camera plugged in? `ls /dev/video*`)");
    const bool opened = isIndex ? source.capture.open(std::stoi(options.camera), cv::CAP_V4L2)
                                : source.capture.open(options.camera, cv::CAP_V4L2);
    if (!opened)
      throw std::runtime_error("camera " + source.name + ": cannot open it through V4L2 (busy, no permission for the video group, or not a capture device)");
    if (options.rawYuyv) {
      // Raw YUYV: the pixel format first, then no conversion to BGR: OpenCV hands out the driver's
      // buffer as CV_8UC2 rows of Y0 U Y1 V.
      source.capture.set(cv::CAP_PROP_FOURCC, cv::VideoWriter::fourcc('Y', 'U', 'Y', 'V'));
      source.capture.set(cv::CAP_PROP_CONVERT_RGB, 0);
    }
    if (!options.size.empty()) {
      source.capture.set(cv::CAP_PROP_FRAME_WIDTH, options.size.width);
      source.capture.set(cv::CAP_PROP_FRAME_HEIGHT, options.size.height);
    }
    if (options.rawYuyv) {
      const int fourcc = static_cast<int>(source.capture.get(cv::CAP_PROP_FOURCC));
      if (fourcc != cv::VideoWriter::fourcc('Y', 'U', 'Y', 'V'))
        throw std::runtime_error("camera " + source.name + " does not deliver YUYV (its format: '" +
                                 std::string{char(fourcc & 0xff), char((fourcc >> 8) & 0xff), char((fourcc >> 16) & 0xff),
                                             char((fourcc >> 24) & 0xff)} +
                                 "'); run without --raw-yuyv");
    }
  }
  source.yuyv = options.rawYuyv;
  return source;
}

// Reads the next frame; false at the end of a file or when the camera stops delivering.
bool readFrame(Source& source, Frame& frame, long long index) {
  cv::Mat pixels;
  if (!source.capture.read(pixels) || pixels.empty()) return false;
  frame.index = index;
  if (source.isFile) {
    // The file's own clock: frame i is shown at i / fps.
    frame.timestampNs = static_cast<long long>(static_cast<double>(index) * 1e9 / source.fps);
  } else {
    // The time read() returned the frame: its capture time plus the driver's latency.
    frame.timestampNs = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  }
  frame.yuyv = source.yuyv;
  if (source.yuyv && source.isFile) {
    pixels = bgrToYuyv(pixels);
  } else if (source.yuyv && pixels.type() != CV_8UC2) {
    // Some backends hand a raw buffer out as one row of bytes: give it the frame's shape.
    const int w = static_cast<int>(source.capture.get(cv::CAP_PROP_FRAME_WIDTH));
    const int h = static_cast<int>(source.capture.get(cv::CAP_PROP_FRAME_HEIGHT));
    if (pixels.type() != CV_8UC1 || !pixels.isContinuous() || pixels.total() != static_cast<std::size_t>(w) * h * 2)
      throw std::runtime_error("camera " + source.name + ": raw frame of " + std::to_string(pixels.total()) +
                               " elements of type " + std::to_string(pixels.type()) + " is not " + std::to_string(w) + "x" +
                               std::to_string(h) + " YUYV; run without --raw-yuyv");
    pixels = pixels.reshape(2, h);
  }
  frame.pixels = std::move(pixels);
  return true;
}

// The capture thread: reads until the source ends or the slot is closed by the render thread.
// `first` (already read, to size the window) is handed over first.
void captureLoop(Source& source, LatestFrameSlot& slot, Frame first, bool fast) {
  std::string reason;
  try {
    const bool pace = source.isFile && !fast;
    const Clock::time_point start = Clock::now();
    Frame frame = std::move(first);
    for (long long index = 0;; ++index) {
      if (index > 0 && !readFrame(source, frame, index)) {
        reason = source.isFile ? "end of " + source.name : "camera " + source.name + " stopped delivering frames";
        break;
      }
      // A file is paced at its frame rate, as a camera would deliver it: frame i is due at
      // start + i / fps. Frames the tracker cannot keep up with are dropped by the slot.
      if (pace && !slot.sleepUntil(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(index / source.fps))))
        break;  // closed by the render thread
      slot.put(std::move(frame), /*lossless=*/fast);
      frame = Frame{};
      if (slot.closed()) break;  // the render thread quit
    }
  } catch (const std::exception& e) {
    reason = std::string("capture: ") + e.what();
  }
  slot.close(reason);
}

// --- The window's GL -------------------------------------------------------------------------

// The GL ES 2.0 functions this file calls itself, loaded from the current context's driver.
struct GlFunctions {
  PFNGLCLEARCOLORPROC clearColor = nullptr;
  PFNGLCLEARPROC clear = nullptr;
  PFNGLPIXELSTOREIPROC pixelStorei = nullptr;
  PFNGLREADPIXELSPROC readPixels = nullptr;
  PFNGLGETERRORPROC getError = nullptr;
};

GlFunctions loadGl() {
  GlFunctions gl;
  auto load = [](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(glfwGetProcAddress(name));
    if (function == nullptr) throw std::runtime_error(std::string("the GL driver does not give ") + name);
  };
  load(gl.clearColor, "glClearColor");
  load(gl.clear, "glClear");
  load(gl.pixelStorei, "glPixelStorei");
  load(gl.readPixels, "glReadPixels");
  load(gl.getError, "glGetError");
  return gl;
}

// The window's current picture, top row first, as BGR: glReadPixels of the default framebuffer
// (the back buffer, which render() has just drawn; GL's row 0 is the bottom).
cv::Mat readWindow(const GlFunctions& gl, int width, int height) {
  cv::Mat rgba(height, width, CV_8UC4);
  gl.pixelStorei(GL_PACK_ALIGNMENT, 1);
  gl.readPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data);
  gl.pixelStorei(GL_PACK_ALIGNMENT, 4);
  if (const GLenum error = gl.getError(); error != GL_NO_ERROR)
    throw std::runtime_error("glReadPixels failed: GL error " + std::to_string(error));
  cv::Mat bgr, topDown;
  cv::cvtColor(rgba, bgr, cv::COLOR_RGBA2BGR);
  cv::flip(bgr, topDown, 0);
  return topDown;
}

void onGlfwError(int code, const char* description) {
  std::fprintf(stderr, "GLFW error 0x%X: %s\n", static_cast<unsigned>(code), description ? description : "?");
}

void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
  if (action == GLFW_PRESS && (key == GLFW_KEY_Q || key == GLFW_KEY_ESCAPE)) glfwSetWindowShouldClose(window, GLFW_TRUE);
}

// The window and GLFW, released in the right order on every path.
struct Window {
  GLFWwindow* handle = nullptr;
  Window(cv::Size size, const std::string& title, bool visible) {
    glfwSetErrorCallback(onGlfwError);
    if (glfwInit() != GLFW_TRUE)
      throw std::runtime_error("glfwInit failed: no display? Set DISPLAY, or run under xvfb-run");
    //! [window_context]
    // An OpenGL ES 2.0 context made through EGL: the Session adopts it (it uses EGL and GLES2).
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 2);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);  // the cube needs a depth buffer
    //! [window_context]
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    handle = glfwCreateWindow(size.width, size.height, title.c_str(), nullptr, nullptr);
    if (handle == nullptr) {
      glfwTerminate();
      throw std::runtime_error("cannot create a window with an OpenGL ES 2.0 context through EGL (see the GLFW error above)");
    }
    glfwMakeContextCurrent(handle);
    glfwSwapInterval(1);  // vsync: no tearing; the display's rate is above the camera's anyway
    glfwSetKeyCallback(handle, onKey);
  }
  ~Window() {
    glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(handle);
    glfwTerminate();
  }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
};

std::string describe(const nft::TargetResult& t) {
  if (t.found)
    return t.name + ": found (" + nft::toString(t.state) + ", " + std::to_string(t.inliers) + " inliers)";
  return t.name + ": not found" + (t.rejection.empty() ? "" : " (" + t.rejection + ")");
}

// --- The app ---------------------------------------------------------------------------------

int run(const Options& options) {
  Source source = openSource(options);
  Frame first;
  if (!readFrame(source, first, 0))
    throw std::runtime_error((source.isFile ? "video file " : "camera ") + source.name + " delivered no frame");
  source.size = first.pixels.size();
  const std::string pacing = !source.isFile ? "" : options.fast ? ", unpaced" : cv::format(", paced at %.2f fps", source.fps);
  std::printf("source: %s, %dx%d%s, %s frames\n", source.name.c_str(), source.size.width, source.size.height,
              pacing.c_str(), source.yuyv ? "raw YUYV" : "BGR");

  Window window(source.size, "nft camera - " + source.name, !options.hidden);
  const GlFunctions gl = loadGl();

  //! [adopt_context]
  // The Session adopts the window's context, current on this thread (its GL thread from now on).
  nft::SessionOptions sessionOptions;  // the defaults, or the YAML file's settings
  if (!options.config.empty()) sessionOptions = nft::sessionOptionsFromFile(options.config);
  sessionOptions.adoptCurrentContext = true;
  nft::Session session(sessionOptions);
  //! [adopt_context]
  std::printf("GL: %s (%s), context %s\n", session.gpuRenderer().c_str(), session.glVersion().c_str(),
              session.contextDescription().c_str());
  for (const std::string& warning : session.warnings()) std::printf("config warning: %s\n", warning.c_str());

  const nft::TargetId targetId = session.addTarget(options.target, "", options.widthMetres);
  const nft::TargetInfo target = session.target(targetId);
  std::printf("target: %s, %dx%d, %d keypoints, %d tracking patches, %d/5 stars, %.1f s to %s\n", target.name.c_str(),
              target.imageSize.width, target.imageSize.height, target.quality.keypoints, target.trackingPatches,
              target.quality.stars, target.loadSeconds, target.trained ? "train" : "load");

  // Clear the window while the first frame is on its way.
  gl.clearColor(0.f, 0.f, 0.f, 1.f);
  gl.clear(GL_COLOR_BUFFER_BIT);
  glfwSwapBuffers(window.handle);

  LatestFrameSlot slot;
  std::thread capture(captureLoop, std::ref(source), std::ref(slot), std::move(first), options.fast);
  // Stops and joins the capture thread on every way out of this function.
  struct Joiner {
    LatestFrameSlot& slot;
    std::thread& thread;
    ~Joiner() {
      slot.close();
      if (thread.joinable()) thread.join();
    }
  } joiner{slot, capture};

  Frame current;              // the frame render() draws: its pixels must live until the next process()
  nft::FrameResult result;    // the last frame's result
  long long processed = 0, found = 0;
  // Statistics printed every second.
  Clock::time_point lastPrint = Clock::now();
  long long framesSincePrint = 0, droppedAtPrint = 0;
  double processMsSincePrint = 0;

  while (!glfwWindowShouldClose(window.handle) && (options.frames == 0 || processed < options.frames)) {
    std::optional<Frame> next = slot.take(std::chrono::milliseconds(50));
    if (!next) {
      glfwPollEvents();  // keep the window responsive while waiting for the camera
      if (slot.closedAndEmpty()) break;
      continue;
    }
    current = std::move(*next);

    //! [frame_loop]
    if (current.yuyv) {
      // A camera's raw buffer, passed without a copy: the tracker reads the luma bytes in place.
      nft::ImageView view;
      view.data = current.pixels.data;
      view.width = current.pixels.cols;
      view.height = current.pixels.rows;
      view.stride = static_cast<int>(current.pixels.step);
      view.format = nft::PixelFormat::Yuyv;
      result = session.process(view, current.timestampNs);
    } else {
      result = session.process(current.pixels, current.timestampNs);
    }

    int width = 0, height = 0;
    glfwGetFramebufferSize(window.handle, &width, &height);  // pixels, not screen coordinates
    if (width > 0 && height > 0) session.render(result, nft::Viewport{0, 0, width, height});  // 0: minimised
    glfwSwapBuffers(window.handle);
    glfwPollEvents();
    //! [frame_loop]

    ++processed;
    ++framesSincePrint;
    processMsSincePrint += result.timings.total;
    const bool anyFound = std::any_of(result.targets.begin(), result.targets.end(),
                                      [](const nft::TargetResult& t) { return t.found; });
    found += anyFound ? 1 : 0;

    const Clock::time_point now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - lastPrint).count();
    if (seconds >= 1.0) {
      const long long dropped = slot.dropped();
      std::printf("%5.1f fps, %lld dropped (%lld in all), process %.1f ms, frame %lld: %s\n",
                  framesSincePrint / seconds, dropped - droppedAtPrint, dropped,
                  processMsSincePrint / framesSincePrint, current.index,
                  result.targets.empty() ? "no target" : describe(result.targets.front()).c_str());
      lastPrint = now;
      framesSincePrint = 0;
      processMsSincePrint = 0;
      droppedAtPrint = dropped;
    }
  }
  slot.close();
  if (capture.joinable()) capture.join();
  const std::string endReason = slot.endReason();
  std::printf("%lld frames processed, target found in %lld, %lld dropped%s%s\n", processed, found, slot.dropped(),
              endReason.empty() ? "" : "; ", endReason.c_str());
  // A file's end is the normal way out; a camera that stops, or a capture error, is a failure.
  if (endReason.rfind("capture:", 0) == 0 || (!source.isFile && !endReason.empty())) {
    std::fprintf(stderr, "camera: %s\n", endReason.c_str());
    return 1;
  }

  if (!options.screenshot.empty()) {
    if (processed == 0) {
      std::fprintf(stderr, "camera: no frame processed, no screenshot\n");
      return 1;
    }
    // Draw the last frame once more into the back buffer (after glfwSwapBuffers its content is
    // undefined) and read it back; `current` still holds that frame's pixels.
    int width = 0, height = 0;
    glfwGetFramebufferSize(window.handle, &width, &height);
    if (width <= 0 || height <= 0) {
      std::fprintf(stderr, "camera: the window has no framebuffer (minimised?), no screenshot\n");
      return 1;
    }
    session.render(result, nft::Viewport{0, 0, width, height});
    const cv::Mat picture = readWindow(gl, width, height);
    if (!cv::imwrite(options.screenshot, picture)) {
      std::fprintf(stderr, "camera: cannot write %s\n", options.screenshot.c_str());
      return 1;
    }
    cv::Scalar mean, stddev;
    cv::meanStdDev(picture, mean, stddev);
    const double spread = std::max({stddev[0], stddev[1], stddev[2]});
    std::printf("screenshot: %s, %dx%d, pixel standard deviation %.1f\n", options.screenshot.c_str(), width, height, spread);
    if (spread < 1.0) {
      std::fprintf(stderr, "camera: the screenshot is blank (every pixel the same colour)\n");
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // one line at a time, also into a pipe or a log
  try {
    return run(parseArguments(argc, argv));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "camera: %s\n\n%s", e.what(), kUsage);
    return 2;
  } catch (const nft::Error& e) {
    std::fprintf(stderr, "camera: nft error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "camera: %s\n", e.what());
    return 1;
  }
}
