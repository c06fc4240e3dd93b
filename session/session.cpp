// nft::Session (include/nft/session.h): the pipeline of the module folders behind the public API.
// The pieces are the modules' own (tracker::Tracker, render::Renderer through FrameRenderer,
// detection's training through target_loader.h); this file holds the Session's state — context,
// targets, calibration, the last frame — and turns the modules' exceptions into nft::Error.
#include "nft/session.h"

#include <GLES2/gl2.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>
#include <utility>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "config/config_error.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "gpu/gpu_error.h"
#include "render/offscreen_target.h"
#include "session/frame_input.h"
#include "session/frame_quad.h"
#include "session/frame_renderer.h"
#include "session/gl_matrices.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "session/target_tracking.h"
#include "session/working_frame.h"
#include "detection/target_database.h"
#include "tracker/tracker.h"

namespace nft {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

/// Runs `f`, turning the modules' exceptions into the public hierarchy: configuration errors
/// into ConfigError, GL/EGL errors into GpuError, the rest (bad arguments, unreadable or unusable
/// files) into InputError; `context` (the API call) prefixes messages that do not name it.
template <class F>
auto translated(const std::string& context, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const config::ConfigError& e) {
    throw ConfigError(e.what(), e.source(), e.line(), e.keyPath());
  } catch (const gpu::GpuError& e) {
    throw GpuError(context + ": " + e.what());
  } catch (const cv::Exception& e) {
    throw InputError(context + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError(context + ": " + e.what());
  } catch (const std::runtime_error& e) {
    throw InputError(context + ": " + e.what());
  }
}

TargetInfo infoOf(const session::LoadedTarget& t, const std::string& name) {
  TargetInfo info;
  info.name = name;
  info.source = t.source;
  info.widthMetres = t.model.widthMetres;
  info.imageSize = t.model.image.size();
  info.originalSize = t.originalSize;
  info.trackingPatches = static_cast<int>(t.model.patches.size());
  info.trained = t.trained;
  info.loadSeconds = t.seconds;
  info.quality = session::qualityOf(t.model);
  info.geometry = session::publicGeometry(t.model.geometry);
  return info;
}

/// Keeps the caller's framebuffer binding and viewport across the Session's GPU passes (which bind
/// their own): an app that adopted its context finds its state as it left it.
class CallerGlState {
 public:
  CallerGlState() {
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_);
    glGetIntegerv(GL_VIEWPORT, viewport_);
  }
  ~CallerGlState() {
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_));
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  CallerGlState(const CallerGlState&) = delete;
  CallerGlState& operator=(const CallerGlState&) = delete;

 private:
  GLint framebuffer_ = 0;
  GLint viewport_[4] = {0, 0, 0, 0};
};

void checkWidth(double widthMetres, const std::string& context) {
  if (!std::isfinite(widthMetres) || widthMetres < 0.0)
    throw InputError(context + ": widthMetres = " + std::to_string(widthMetres) +
                     ": expected a width in metres > 0, or 0 for the default");
}

}  // namespace

SessionOptions sessionOptionsFromFile(const std::string& path) {
  SessionOptions o;
  o.config = translated("config", [&] { return config::loadConfig(path); });
  o.configSource = path;
  return o;
}

struct Session::Impl {
  SessionOptions options;
  session::PipelineOptions pipeline;
  // Destroyed in reverse order: the GL objects below before the context.
  std::optional<gpu::Context> context;
  gpu::Capabilities caps;
  std::thread::id thread;
  bool gpuReleased = false;

  /// The camera at the frames' size once known (the options' calibration, or the config's camera
  /// section sized on the first frame).
  std::optional<tracker::CameraCalibration> calibration;
  /// The frame the lanes run on (session/working_frame.h), fixed with the calibration.
  std::optional<session::WorkingFrame> working;
  std::optional<session::TargetTracking> tracking;
  std::optional<session::FrameRenderer> renderer;
  std::optional<render::OffscreenTarget> offscreen;

  bool overlayVisible = true;
  bool augmentationsVisible = true;
  long long frames = 0;
  int frameTargets = 0;    // instant targets added so far (their default names)
  int modelTargets = 0;    // models added from bytes so far (their default names)
  cv::Mat scratch;         // grey conversions
  cv::Mat workingScratch;  // the working frame (when smaller than the frame)
  cv::Mat detectionScratch;  // the detection frame (when smaller than the frame and finer than the working one)
  cv::Mat lastMat;         // keeps a cv::Mat frame's pixels alive for render()
  ImageView lastView;      // the last frame (data null before the first)
  cv::Mat rgb;             // the background's pixels

  explicit Impl(const SessionOptions& o) : options(o) {
    translated("Session", [&] {
      config::validate(options.config, options.configSource);
      pipeline = session::pipelineOptions(options.config, options.configSource);
      overlayVisible = pipeline.overlay;
      // A calibration file named by the config is read now, so a bad one fails here, not at the
      // first frame (it is sized to the frames then).
      if (!options.calibration && !options.config.camera.calibration.empty())
        (void)tracker::loadCalibration(options.config.camera.calibration);
      makeContext();
      tracking.emplace(pipeline);
      if (options.calibration) {
        const Calibration& c = *options.calibration;
        if (c.imageSize.width <= 0 || c.imageSize.height <= 0)
          throw ConfigError("SessionOptions::calibration: imageSize " + sizeText(c.imageSize) +
                            ": expected a positive size");
        setCamera(tracker::CameraCalibration{c.K, c.distortion, c.imageSize,
                                             c.source.empty() ? "SessionOptions::calibration" : c.source});
      }
    });
  }

  // The GL objects above free themselves on the current context when the members are destroyed
  // (after this body): make it the Session's own again when an owned one was displaced (by
  // another Session or the app) on this thread. An adopted context is the app's to keep current.
  ~Impl() {
    if (context && context->ownsContext() && std::this_thread::get_id() == thread && !context->isCurrent()) {
      try {
        context->makeCurrent();
      } catch (...) {  // a destructor must not throw: the objects are then freed where they can be
      }
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void makeContext() {
    if (options.adoptCurrentContext) {
      context.emplace(gpu::Context::adoptCurrent());
    } else {
      gpu::ContextOptions co;
      co.platform = gpu::parseEglPlatform(options.eglPlatform);
      context.emplace(gpu::Context::createHeadless(co));
    }
    caps = gpu::probeCapabilities();
    thread = std::this_thread::get_id();
    gpuReleased = false;
  }

  /// Every call that touches GL: on the Session's thread, with its GPU objects there. An owned
  /// context is made current again if something else (another Session) took the thread.
  void checkCall(const char* call, bool needsGpu = true) const {
    if (std::this_thread::get_id() != thread)
      throw GpuError(std::string(call) +
                     ": called from another thread than the Session's (the one that created it or last called "
                     "restoreGpu()): its GL context is current there only");
    if (needsGpu && gpuReleased)
      throw GpuError(std::string(call) + ": the GPU objects were released (releaseGpu()): call restoreGpu() first");
    if (needsGpu && context && context->ownsContext() && !context->isCurrent())
      translated(call, [&] { context->makeCurrent(); });
  }

  TargetId add(session::LoadedTarget loaded, const std::string& name, double widthMetres) {
    if (widthMetres > 0) loaded.model.widthMetres = widthMetres;
    // A curved label's width sizes its surface: a model file's given another width is checked anew.
    detection::validateTargetGeometry(loaded.model.geometry, loaded.model.widthMetres, loaded.model.image.size(),
                                      "target '" + name + "'");
    TargetInfo info = infoOf(loaded, name);
    const TargetId id = tracking->add(std::move(loaded.model), std::move(info));
    renderer.reset();  // drawn for the targets' sizes
    return id;
  }

  /// Refuses a frame of another size than the camera's, once that is known.
  void checkFrameSize(cv::Size size, const std::string& call) const {
    if (calibration && size != calibration->imageSize)
      throw InputError(call + ": frame size " + sizeText(size) + " differs from " +
                       (frames > 0 ? "the Session's frames so far, " : "the calibration's, ") +
                       sizeText(calibration->imageSize) +
                       ": every frame must have one size (make a new Session for another)");
  }

  /// The camera at the frames' size, and the working frame the lanes run on: they get the
  /// calibration scaled to it.
  void setCamera(const tracker::CameraCalibration& c) {
    const session::WorkingFrame w(c.imageSize, options.config.target.minFrameFraction);
    // A single target's detection searches the finer detection frame (working_frame.h).
    tracking->setCalibration(tracker::scaledTo(c, w.workingSize()), caps,
                             w.finerDetection() ? w.detectionSize() : cv::Size());
    calibration = c;
    working = w;
  }

  /// Fixes the camera on the first frame; later frames must have its size.
  void acceptFrameSize(cv::Size size, const std::string& call = "process") {
    checkFrameSize(size, call);
    if (calibration) return;
    setCamera(session::cameraCalibration(options.config.camera, size));
  }

  /// A frame's trackable image (trackableImage(), grey) at the working frame's size: downscaled
  /// when the working frame is smaller. `full` gets the full-resolution grey image the final
  /// refinement reads.
  cv::Mat workingImage(const ImageView& view, cv::Mat& full) {
    full = session::trackableImage(view, scratch);
    if (working->factor() == 1) return full;
    return working->toWorking(full, workingScratch);
  }

  /// Session::addTargetFromFrame for a checked view (see session.h).
  TargetId addFromFrame(const ImageView& view, const std::vector<cv::Point2f>& quad, const std::string& name,
                        double widthMetres) {
    const cv::Size size(view.width, view.height);
    checkFrameSize(size, "addTargetFromFrame");
    const std::string label = name.empty() ? "frame target " + std::to_string(frameTargets + 1) : name;
    session::checkFrameQuad(quad, size, "addTargetFromFrame('" + label + "')");
    session::PipelineOptions trainOptions = pipeline;
    if (widthMetres > 0) trainOptions.training.widthMetres = widthMetres;
    const CallerGlState callerState;
    const cv::Mat image = session::rectifyQuad(session::trackableImage(view, scratch), quad);
    session::LoadedTarget loaded = session::trainTargetImage(image, label, trainOptions, caps);
    loaded.source = "<frame>";
    const cv::Size modelSize = loaded.model.image.size();
    // Added before the camera is fixed, so that a name already taken leaves the Session as it was.
    const TargetId id = add(std::move(loaded), label, widthMetres);
    ++frameTargets;
    acceptFrameSize(size, "addTargetFromFrame");
    tracking->startTracking(id, working->toWorking(session::quadHomography(modelSize, quad)));
    return id;
  }

  FrameResult process(const ImageView& view, long long timestampNs) {
    checkCall("process");
    session::checkView(view, "process");
    const auto start = Clock::now();
    const CallerGlState callerState;
    acceptFrameSize({view.width, view.height});
    const auto convertStart = Clock::now();
    cv::Mat full;
    const cv::Mat image = workingImage(view, full);
    // The detection frame, where finer than the working one.
    const cv::Mat detection = working->finerDetection() ? working->toDetection(full, detectionScratch) : cv::Mat();
    FrameResult r;
    r.timings.convert = msSince(convertStart);
    r.frame = frames;
    r.timestampNs = timestampNs;
    r.frameSize = {view.width, view.height};
    tracking->track(image, r, detection);
    for (TargetResult& t : r.targets) working->toFrame(t);
    tracking->refine(full, *calibration, working->factor(), r);
    tracking->smooth(*calibration, r);
    r.searchInFlight = tracking->searchInFlight();
    lastView = view;
    ++frames;
    r.timings.total = msSince(start);
    return r;
  }

  void ensureRenderer() {
    if (renderer) return;
    static const detection::TargetModel kNoTarget = [] {
      detection::TargetModel m;
      m.image = cv::Mat(1, 1, CV_8UC1, cv::Scalar(0));
      return m;
    }();
    const std::vector<TargetInfo> all = tracking->infos();
    const detection::TargetModel& model = all.empty() ? kNoTarget : tracking->model(all.front().id);
    renderer.emplace(caps, *calibration, model, pipeline.style, overlayVisible);
    renderer->setAugmentationsVisible(augmentationsVisible);
  }

  void draw(const FrameResult& result, const render::DrawTarget& target) {
    if (lastView.data == nullptr) throw InputError("render: no frame processed yet: call process() first");
    if (result.frameSize != cv::Size(lastView.width, lastView.height))
      throw InputError("render: the result is of a " + sizeText(result.frameSize) + " frame, the last frame is " +
                       sizeText({lastView.width, lastView.height}));
    ensureRenderer();
    session::toRgb(lastView, rgb);
    std::vector<std::pair<const TargetResult*, cv::Size2d>> drawn;
    for (const TargetResult& t : result.targets) {
      try {
        drawn.emplace_back(&t, session::targetSizeOf(tracking->model(t.id)));
      } catch (const InputError&) {  // removed since: nothing to draw for it
      }
    }
    const double fps = result.timings.total > 0 ? 1000.0 / result.timings.total : 0.0;
    renderer->draw(rgb, drawn, fps, target);
  }
};

Session::Session(const SessionOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Session::Session(const std::string& configPath) : Session(sessionOptionsFromFile(configPath)) {}
// Members go in reverse order: the renderer and tracker (GL objects) before the context.
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

TargetId Session::addTarget(const std::string& path, const std::string& name, double widthMetres) {
  TargetOptions options;
  options.name = name;
  options.widthMetres = widthMetres;
  return addTarget(path, options);
}

TargetId Session::addTarget(const std::string& path, const TargetOptions& target) {
  impl_->checkCall("addTarget");
  checkWidth(target.widthMetres, "addTarget('" + path + "')");
  return translated("addTarget", [&] {
    session::PipelineOptions options = impl_->pipeline;
    if (target.widthMetres > 0) options.training.widthMetres = target.widthMetres;
    options.training.geometry = session::detectionGeometry(target.geometry);
    const CallerGlState callerState;
    session::LoadedTarget loaded = session::loadTarget(path, options, impl_->caps);
    if (!loaded.trained && target.geometry.curved() && loaded.model.geometry != options.training.geometry)
      throw InputError("addTarget('" + path + "'): geometry " + toString(target.geometry.kind) +
                       " differs from the model file's (" + detection::toString(loaded.model.geometry.kind) +
                       "): a model keeps the geometry it was trained with (nft_train --geometry); give the planar "
                       "default for a model file, or train the image with this geometry");
    const std::string shownName =
        target.name.empty() ? std::filesystem::path(path).filename().string() : target.name;
    return impl_->add(std::move(loaded), shownName, target.widthMetres);
  });
}

TargetId Session::addTarget(const cv::Mat& image, const std::string& name, double widthMetres) {
  TargetOptions options;
  options.name = name;
  options.widthMetres = widthMetres;
  return addTarget(image, options);
}

TargetId Session::addTarget(const cv::Mat& image, const TargetOptions& target) {
  impl_->checkCall("addTarget");
  const std::string label = target.name.empty() ? std::string("<image>") : target.name;
  checkWidth(target.widthMetres, "addTarget('" + label + "')");
  if (image.empty()) throw InputError("addTarget('" + label + "'): the image is empty (0x0)");
  if (image.type() != CV_8UC1 && image.type() != CV_8UC3 && image.type() != CV_8UC4)
    throw InputError("addTarget('" + label + "'): image type " + cv::typeToString(image.type()) +
                     ": expected CV_8UC1 (grey), CV_8UC3 (BGR) or CV_8UC4 (BGRA)");
  return translated("addTarget", [&] {
    cv::Mat gray = image;
    if (image.channels() == 3) cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
    if (image.channels() == 4) cv::cvtColor(image, gray, cv::COLOR_BGRA2GRAY);
    session::PipelineOptions options = impl_->pipeline;
    if (target.widthMetres > 0) options.training.widthMetres = target.widthMetres;
    options.training.geometry = session::detectionGeometry(target.geometry);
    const CallerGlState callerState;
    session::LoadedTarget loaded = session::trainTargetImage(gray, label, options, impl_->caps);
    loaded.source = "<image>";
    return impl_->add(std::move(loaded), label, target.widthMetres);
  });
}

TargetId Session::addTargetModel(const std::vector<unsigned char>& model, const TargetOptions& target) {
  impl_->checkCall("addTargetModel");
  const std::string label = target.name.empty() ? "model-" + std::to_string(impl_->modelTargets + 1) : target.name;
  checkWidth(target.widthMetres, "addTargetModel('" + label + "')");
  if (model.empty()) throw InputError("addTargetModel('" + label + "'): the model is empty (0 bytes)");
  const TargetId id = translated("addTargetModel", [&] {
    session::PipelineOptions options = impl_->pipeline;
    if (target.widthMetres > 0) options.training.widthMetres = target.widthMetres;
    session::LoadedTarget loaded = session::loadTargetModel(model, label, options);
    if (target.geometry.curved() && loaded.model.geometry != session::detectionGeometry(target.geometry))
      throw InputError("addTargetModel('" + label + "'): geometry " + toString(target.geometry.kind) +
                       " differs from the model's (" + detection::toString(loaded.model.geometry.kind) +
                       "): a model keeps the geometry it was trained with (nft_train --geometry)");
    const CallerGlState callerState;
    return impl_->add(std::move(loaded), label, target.widthMetres);
  });
  if (target.name.empty()) ++impl_->modelTargets;
  return id;
}

TargetId Session::addTargetFromFrame(const cv::Mat& frame, const std::vector<cv::Point2f>& quad,
                                     const std::string& name, double widthMetres) {
  impl_->checkCall("addTargetFromFrame");
  const ImageView view = session::viewOf(frame, "addTargetFromFrame");
  return addTargetFromFrame(view, quad, name, widthMetres);
}

TargetId Session::addTargetFromFrame(const ImageView& frame, const std::vector<cv::Point2f>& quad,
                                     const std::string& name, double widthMetres) {
  impl_->checkCall("addTargetFromFrame");
  checkWidth(widthMetres, "addTargetFromFrame('" + name + "')");
  session::checkView(frame, "addTargetFromFrame");
  return translated("addTargetFromFrame", [&] { return impl_->addFromFrame(frame, quad, name, widthMetres); });
}

std::vector<TargetId> Session::loadDatabase(const std::string& path) {
  impl_->checkCall("loadDatabase");
  return translated("loadDatabase", [&] {
    if (!std::filesystem::is_regular_file(path))
      throw InputError("loadDatabase: target database '" + path + "' does not exist (expected a .nftdb file made by "
                       "nft_train --database)");
    // Compact: the targets stay in the mapped file until verified or found (stored_target.h).
    detection::TargetDatabaseLoadOptions loadOptions;
    loadOptions.keepCompact = true;
    detection::TargetDatabase database = detection::TargetDatabase::load(path, loadOptions);
    const CallerGlState callerState;
    std::vector<TargetId> ids = impl_->tracking->addDatabase(std::move(database), path);
    impl_->renderer.reset();
    return ids;
  });
}

void Session::removeTarget(TargetId id) {
  impl_->checkCall("removeTarget", false);
  translated("removeTarget", [&] {
    const CallerGlState callerState;
    impl_->tracking->remove(id);
  });
  impl_->renderer.reset();
}

std::vector<TargetInfo> Session::targets() const { return impl_->tracking->infos(); }

TargetInfo Session::target(TargetId id) const { return impl_->tracking->info(id); }

void Session::resetTracking() { impl_->tracking->resetTracking(); }
FrameResult Session::process(const cv::Mat& frame, long long timestampNs) {
  impl_->checkCall("process");
  const ImageView view = session::viewOf(frame, "process");
  FrameResult r = translated("process", [&] { return impl_->process(view, timestampNs); });
  impl_->lastMat = frame;  // keeps the pixels for render() (shared, not copied)
  return r;
}

FrameResult Session::process(const ImageView& frame, long long timestampNs) {
  FrameResult r = translated("process", [&] { return impl_->process(frame, timestampNs); });
  impl_->lastMat.release();
  return r;
}

std::optional<Calibration> Session::calibration() const {
  if (!impl_->calibration) return std::nullopt;
  const tracker::CameraCalibration& c = *impl_->calibration;
  return Calibration{c.K, c.distortion, c.imageSize, c.source};
}

void Session::render(const FrameResult& result, const Viewport& viewport) {
  impl_->checkCall("render");
  if (viewport.width <= 0 || viewport.height <= 0)
    throw InputError("render: viewport " + std::to_string(viewport.width) + "x" + std::to_string(viewport.height) +
                     ": expected a width and height > 0");
  translated("render", [&] {
    const CallerGlState callerState;  // the renderer leaves framebuffer 0 bound: the caller's comes back
    GLint framebuffer = 0, depthBits = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);
    glGetIntegerv(GL_DEPTH_BITS, &depthBits);
    render::DrawTarget target;
    target.framebuffer = static_cast<unsigned int>(framebuffer);
    target.width = viewport.width;
    target.height = viewport.height;
    target.x = viewport.x;
    target.y = viewport.y;
    target.yDown = framebuffer != 0;  // offscreen: row 0 on top, as read back into a cv::Mat
    target.hasDepth = depthBits > 0;
    impl_->draw(result, target);
  });
}

cv::Mat Session::renderToImage(const FrameResult& result) {
  impl_->checkCall("renderToImage");
  return translated("renderToImage", [&] {
    if (impl_->lastView.data == nullptr) throw InputError("renderToImage: no frame processed yet: call process() first");
    const cv::Size size(impl_->lastView.width, impl_->lastView.height);
    if (!impl_->offscreen || impl_->offscreen->width() != size.width || impl_->offscreen->height() != size.height)
      impl_->offscreen.emplace(impl_->caps, size.width, size.height);
    const CallerGlState callerState;
    impl_->draw(result, impl_->offscreen->drawTarget());
    return impl_->offscreen->read();
  });
}

void Session::setOverlayVisible(bool visible) {
  impl_->overlayVisible = visible;
  if (impl_->renderer) impl_->renderer->setOverlayVisible(visible);
}

void Session::setAugmentationsVisible(bool visible) {
  impl_->augmentationsVisible = visible;
  if (impl_->renderer) impl_->renderer->setAugmentationsVisible(visible);
}

std::array<float, 16> Session::projectionMatrix(double nearPlane, double farPlane) const {
  if (!impl_->calibration)
    throw InputError("projectionMatrix: the camera is not known yet: give SessionOptions::calibration or process a frame");
  return translated("projectionMatrix", [&] {
    return session::columnMajor(
        session::glProjection(impl_->calibration->K, impl_->calibration->imageSize, nearPlane, farPlane));
  });
}

std::array<float, 16> Session::viewMatrix(const Pose& pose) { return session::columnMajor(session::glView(pose.R, pose.t)); }

void Session::releaseGpu() {
  impl_->checkCall("releaseGpu", false);
  if (impl_->gpuReleased) return;
  impl_->offscreen.reset();
  impl_->renderer.reset();
  impl_->tracking->releaseGpu();
  impl_->context.reset();  // destroys an owned context; forgets an adopted one
  impl_->gpuReleased = true;
}

void Session::restoreGpu() {
  if (!impl_->gpuReleased) return;
  translated("restoreGpu", [&] {
    impl_->makeContext();
    const CallerGlState callerState;
    impl_->tracking->restoreGpu(impl_->caps);
  });
}

bool Session::hasGpu() const { return !impl_->gpuReleased; }
const config::Config& Session::config() const { return impl_->options.config; }
std::string Session::gpuRenderer() const { return impl_->caps.glRenderer; }
std::string Session::glVersion() const { return impl_->caps.glVersion; }
std::string Session::contextDescription() const {
  return impl_->context ? impl_->context->platformDescription() : std::string("released");
}
std::vector<std::string> Session::warnings() const { return impl_->pipeline.warnings; }

}  // namespace nft
