// The WebAssembly module's bindings (embind): nft::Session on a WebGL 1 canvas, for web/nft.js.
// The pages never call these directly: nft.js turns images, video elements and config objects
// into the pixel buffers and JSON text below, and wraps each result. The tracker is the native
// library's code unchanged (../shared/DESIGN.md): only the GL context (gpu/context_web.cpp) and
// this file are the web build's own.
//
// Errors: every nft::Error (and any other C++ exception) becomes a JavaScript Error whose name is
// "NftError" and whose message is the C++ what() — embind alone would hand JavaScript a bare
// pointer.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "config/config.h"
#include "gpu/context.h"
#include "nft/nft.h"

namespace {

using emscripten::val;

// Throws a JavaScript Error from C++: called last in a catch handler, with the message kept in
// static storage (the JavaScript throw unwinds the wasm frames without running destructors).
EM_JS(void, nft_throw_js_error, (const char* message), {
  const error = new Error(UTF8ToString(message));
  error.name = 'NftError';
  throw error;
});

[[noreturn]] void rethrowAsJs() {
  static std::string message;
  try {
    throw;
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown C++ exception";
  }
  nft_throw_js_error(message.c_str());
  std::terminate();  // not reached: the JavaScript throw leaves this frame
}

template <typename Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (...) {
    rethrowAsJs();
  }
}

val matrix16(const std::array<float, 16>& m) {
  val out = val::array();
  for (float v : m) out.call<void>("push", v);
  return out;
}

val corners(const std::vector<cv::Point2f>& points) {
  val out = val::array();
  for (const cv::Point2f& p : points) {
    val xy = val::array();
    xy.call<void>("push", p.x);
    xy.call<void>("push", p.y);
    out.call<void>("push", xy);
  }
  return out;
}

val targetResult(const nft::TargetResult& r) {
  val out = val::object();
  out.set("id", r.id);
  out.set("name", r.name);
  out.set("state", nft::toString(r.state));
  out.set("found", r.found);
  out.set("corners", corners(r.corners));
  val outline = val::array();  // polylines of [x, y] (TargetResult::outline)
  for (const std::vector<cv::Point2f>& line : r.outline) outline.call<void>("push", corners(line));
  out.set("outline", outline);
  out.set("inliers", r.inliers);
  out.set("reprojectionErrorPx", r.reprojectionErrorPx);
  out.set("rejection", r.rejection);
  if (r.found) {
    val h = val::array();
    for (int i = 0; i < 9; ++i) h.call<void>("push", r.homography.val[i]);
    out.set("homography", h);  // row-major 3×3
    val pose = val::object();
    val R = val::array();
    for (int i = 0; i < 9; ++i) R.call<void>("push", r.pose.R.val[i]);
    pose.set("R", R);  // row-major 3×3, target → camera
    val t = val::array();
    for (int i = 0; i < 3; ++i) t.call<void>("push", r.pose.t[i]);
    pose.set("t", t);
    out.set("pose", pose);
    out.set("viewMatrix", matrix16(nft::Session::viewMatrix(r.pose)));
  }
  return out;
}

val frameResult(const nft::FrameResult& r) {
  val out = val::object();
  out.set("frame", static_cast<double>(r.frame));
  out.set("width", r.frameSize.width);
  out.set("height", r.frameSize.height);
  out.set("searchInFlight", r.searchInFlight);  // always false: the web build detects in process()
  val targets = val::array();
  for (const nft::TargetResult& t : r.targets) targets.call<void>("push", targetResult(t));
  out.set("targets", targets);
  val timings = val::object();
  timings.set("convert", r.timings.convert);
  timings.set("fast", r.timings.fast);
  timings.set("describe", r.timings.describe);
  timings.set("match", r.timings.match);
  timings.set("ransac", r.timings.ransac);
  timings.set("detectionPose", r.timings.detectionPose);
  timings.set("pyramid", r.timings.pyramid);
  timings.set("coarse", r.timings.coarse);
  timings.set("fine", r.timings.fine);
  timings.set("trackingPose", r.timings.trackingPose);
  timings.set("refine", r.timings.refine);
  timings.set("total", r.timings.total);
  out.set("timingsMs", timings);
  return out;
}

/// A JavaScript geometry object, { kind: 'cylinder', radiusMetres: 0.033 } or { kind: 'cone',
/// topRadiusMetres, bottomRadiusMetres, sideLengthMetres, coneLabel: 'sector' | 'rectangle' }, as an
/// nft::TargetGeometry; undefined or null is planar, a missing size 0 (the Session checks the sizes).
/// @throws nft::InputError naming geometry.kind or geometry.coneLabel for another name.
nft::TargetGeometry geometryOf(const val& g) {
  nft::TargetGeometry geometry;
  if (g.isUndefined() || g.isNull()) return geometry;
  const auto text = [&](const char* key, const char* fallback) {
    return g[key].isUndefined() ? std::string(fallback) : g[key].as<std::string>();
  };
  const auto number = [&](const char* key) { return g[key].isUndefined() ? 0.0 : g[key].as<double>(); };
  const std::string kind = text("kind", "planar");
  if (kind == "cylinder") geometry.kind = nft::GeometryKind::Cylinder;
  else if (kind == "cone") geometry.kind = nft::GeometryKind::Cone;
  else if (kind != "planar")
    throw nft::InputError("addTarget: geometry.kind '" + kind + "': expected 'planar', 'cylinder' or 'cone'");
  const std::string label = text("coneLabel", "sector");
  if (label == "rectangle") geometry.coneLabel = nft::ConeLabel::Rectangle;
  else if (label != "sector")
    throw nft::InputError("addTarget: geometry.coneLabel '" + label + "': expected 'sector' or 'rectangle'");
  geometry.radiusMetres = number("radiusMetres");
  geometry.topRadiusMetres = number("topRadiusMetres");
  geometry.bottomRadiusMetres = number("bottomRadiusMetres");
  geometry.sideLengthMetres = number("sideLengthMetres");
  return geometry;
}

/// A Session and the WebGL context it runs on: the context is made on the page's canvas and
/// owned here; the Session adopts it (SessionOptions::adoptCurrentContext), so augmentations are
/// drawn into that canvas.
class WebSession {
 public:
  /// @param canvasSelector CSS selector of the page's <canvas>, e.g. "#view".
  /// @param configJson     the configuration as JSON text (a YAML flow mapping: yaml-cpp reads
  ///                       it), keys as in config/default.yaml; "{}" for the defaults.
  WebSession(const std::string& canvasSelector, const std::string& configJson)
      : context_(nft::gpu::Context::createOnCanvas(canvasSelector)), session_(options(configJson)) {}

  /// Adds a target from tightly packed RGBA pixels at wasm address `pixels` (width·height·4 bytes),
  /// printed on the surface `geometry` (geometryOf()).
  int addTargetRgba(std::uintptr_t pixels, int width, int height, const std::string& name, double widthMetres,
                    const val& geometry) {
    context_.makeCurrent();
    nft::TargetOptions options;
    options.name = name;
    options.widthMetres = widthMetres;
    options.geometry = geometryOf(geometry);
    const cv::Mat rgba(height, width, CV_8UC4, reinterpret_cast<void*>(pixels));
    cv::Mat bgra;
    cv::cvtColor(rgba, bgra, cv::COLOR_RGBA2BGRA);
    return session_.addTarget(bgra, options);
  }

  /// Adds a trained target model (a .nftm file's bytes, `bytes` of them at wasm address `data`,
  /// e.g. what the recognition service's GET /targets/ID answers) with Session::addTargetModel.
  /// @param name        how results name it; "" = "model-N" (N counts the models added so).
  /// @param widthMetres the printed width, metres; 0 = the model's.
  /// @throws nft::InputError as Session::addTargetModel for no bytes, a corrupt or truncated model.
  int addTargetModel(std::uintptr_t data, int bytes, const std::string& name, double widthMetres) {
    context_.makeCurrent();
    const auto* begin = reinterpret_cast<const unsigned char*>(data);
    const std::vector<unsigned char> model(begin, begin + std::max(bytes, 0));
    nft::TargetOptions options;
    options.name = name;
    options.widthMetres = widthMetres;
    return session_.addTargetModel(model, options);
  }

  /// Adds an instant target (Session::addTargetFromFrame) from a frame of tightly packed RGBA
  /// pixels at wasm address `pixels`; `quad`: a JavaScript array of 8 numbers, the corners x1, y1,
  /// ..., x4, y4 (upper-left, upper-right, lower-right, lower-left, frame pixels).
  int addTargetFromFrameRgba(std::uintptr_t pixels, int width, int height, const val& quad, const std::string& name,
                             double widthMetres) {
    context_.makeCurrent();
    const std::vector<double> xy = emscripten::vecFromJSArray<double>(quad);
    std::vector<cv::Point2f> corners;
    for (size_t i = 0; i + 1 < xy.size(); i += 2)
      corners.emplace_back(static_cast<float>(xy[i]), static_cast<float>(xy[i + 1]));
    nft::ImageView view;
    view.data = reinterpret_cast<const std::uint8_t*>(pixels);
    view.width = width;
    view.height = height;
    view.format = nft::PixelFormat::Rgba8;
    return session_.addTargetFromFrame(view, corners, name, widthMetres);
  }

  /// Tracks one frame of tightly packed RGBA pixels at wasm address `pixels`; the buffer must stay
  /// unchanged until render() has drawn it.
  val processRgba(std::uintptr_t pixels, int width, int height, double timestampMs) {
    context_.makeCurrent();
    nft::ImageView view;
    view.data = reinterpret_cast<const std::uint8_t*>(pixels);
    view.width = width;
    view.height = height;
    view.format = nft::PixelFormat::Rgba8;
    last_ = session_.process(view, static_cast<long long>(timestampMs * 1e6));
    return frameResult(*last_);
  }

  /// Draws the last frame and its augmentations into the canvas's viewport (x, y from the
  /// bottom left, pixels).
  void render(int x, int y, int width, int height) {
    context_.makeCurrent();
    if (!last_) throw nft::InputError("render: no frame processed yet (call process() first)");
    session_.render(*last_, nft::Viewport{x, y, width, height});
  }

  val projectionMatrix(double nearPlane, double farPlane) const {
    return matrix16(session_.projectionMatrix(nearPlane, farPlane));
  }
  void removeTarget(int id) {
    context_.makeCurrent();
    session_.removeTarget(id);
  }
  void resetTracking() { session_.resetTracking(); }
  void setOverlayVisible(bool visible) { session_.setOverlayVisible(visible); }
  void setAugmentationsVisible(bool visible) { session_.setAugmentationsVisible(visible); }

  val info() const {
    val out = val::object();
    out.set("version", std::string(nft::version()));
    out.set("gpuRenderer", session_.gpuRenderer());
    out.set("glVersion", session_.glVersion());
    out.set("context", session_.contextDescription());
    val targets = val::array();
    for (const nft::TargetInfo& t : session_.targets()) {
      val target = val::object();
      target.set("id", t.id);
      target.set("name", t.name);
      target.set("widthMetres", t.widthMetres);
      target.set("width", t.imageSize.width);
      target.set("height", t.imageSize.height);
      target.set("stars", t.quality.stars);
      target.set("keypoints", t.quality.keypoints);
      target.set("geometry", nft::toString(t.geometry.kind));
      targets.call<void>("push", target);
    }
    out.set("targets", targets);
    return out;
  }

 private:
  static nft::SessionOptions options(const std::string& configJson) {
    nft::SessionOptions o;
    o.config = nft::config::parseConfig(configJson, "<JavaScript config>");
    o.configSource = "<JavaScript config>";
    o.adoptCurrentContext = true;
    return o;
  }

  nft::gpu::Context context_;  // declared first: destroyed after the Session that adopted it
  nft::Session session_;
  std::optional<nft::FrameResult> last_;
};

// The bound entry points: each turns C++ exceptions into JavaScript Errors (see the top).
WebSession* makeSession(const std::string& canvas, const std::string& configJson) {
  return guarded([&] { return new WebSession(canvas, configJson); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(nft_web) {
  using namespace emscripten;
  class_<WebSession>("WebSession")
      .constructor(&makeSession, allow_raw_pointers())
      .function("addTargetRgba",
                optional_override([](WebSession& s, std::uintptr_t p, int w, int h, std::string name, double m, val g) {
                  return guarded([&] { return s.addTargetRgba(p, w, h, name, m, g); });
                }))
      .function("addTargetModel", optional_override([](WebSession& s, std::uintptr_t p, int n, std::string name, double m) {
                  return guarded([&] { return s.addTargetModel(p, n, name, m); });
                }))
      .function("addTargetFromFrameRgba",
                optional_override([](WebSession& s, std::uintptr_t p, int w, int h, val quad, std::string name, double m) {
                  return guarded([&] { return s.addTargetFromFrameRgba(p, w, h, quad, name, m); });
                }))
      .function("processRgba", optional_override([](WebSession& s, std::uintptr_t p, int w, int h, double ms) {
                  return guarded([&] { return s.processRgba(p, w, h, ms); });
                }))
      .function("render", optional_override([](WebSession& s, int x, int y, int w, int h) {
                  guarded([&] { s.render(x, y, w, h); });
                }))
      .function("projectionMatrix", optional_override([](const WebSession& s, double n, double f) {
                  return guarded([&] { return s.projectionMatrix(n, f); });
                }))
      .function("removeTarget", optional_override([](WebSession& s, int id) { guarded([&] { s.removeTarget(id); }); }))
      .function("resetTracking", optional_override([](WebSession& s) { guarded([&] { s.resetTracking(); }); }))
      .function("setOverlayVisible", optional_override([](WebSession& s, bool v) { guarded([&] { s.setOverlayVisible(v); }); }))
      .function("setAugmentationsVisible",
                optional_override([](WebSession& s, bool v) { guarded([&] { s.setAugmentationsVisible(v); }); }))
      .function("info", optional_override([](const WebSession& s) { return guarded([&] { return s.info(); }); }));
}
