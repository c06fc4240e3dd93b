// The detection lane's pieces from Python: a headless GL context, SURF-ES (GPU) and the CPU SURF
// lane describing given keypoints, the GPU matcher with the ratio test, scale-aware FAST, and
// target training with its quality report (C++ detection/, gpu/, session/target_loader.h).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/cpu_matcher.h"
#include "detection/fast_detector.h"
#include "detection/gpu_matcher.h"
#include "detection/surf_cpu.h"
#include "detection/surf_es.h"
#include "detection/target_model_io.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "gpu/gpu_error.h"
#include "nft/error.h"
#include "nft/types.h"
#include "python/bindings.h"
#include "python/common.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"

namespace nftpy {

namespace {

namespace det = nft::detection;

// --- The GL context -------------------------------------------------------------------------------

/// A headless EGL context with its capability probe, bound to the thread that made it.
struct GpuContextImpl : ThreadBound {
  explicit GpuContextImpl(const nft::gpu::ContextOptions& o)
      : context(nft::gpu::Context::createHeadless(o)), caps(nft::gpu::probeCapabilities()) {}
  /// Checks the thread and makes the context current (another Session or context may have
  /// taken the thread since).
  void use(const char* what) {
    checkThread(what);
    if (!context.isCurrent()) context.makeCurrent();
  }
  nft::gpu::Context context;
  nft::gpu::Capabilities caps;
};
using ContextPtr = std::shared_ptr<GpuContextImpl>;

ContextPtr makeContext(const std::string& platform) {
  nft::gpu::ContextOptions o;
  try {
    o.platform = nft::gpu::parseEglPlatform(platform);
  } catch (const std::invalid_argument& e) {
    valueError(std::string("egl_platform: ") + e.what());
  }
  GpuContextImpl* impl = nullptr;
  {
    py::gil_scoped_release nogil;
    impl = new GpuContextImpl(o);
  }
  // Destroyed on its own thread; from another one (a garbage collection there) the context is
  // left to the process's end: it may still be current on its thread.
  return ContextPtr(impl, [](GpuContextImpl* p) {
    if (p->onOwnerThread()) delete p;
  });
}

/// The calling thread's shared default context (made on first use, kept while something uses it).
ContextPtr defaultContext() {
  thread_local std::weak_ptr<GpuContextImpl> current;
  if (ContextPtr c = current.lock()) return c;
  ContextPtr c = makeContext("auto");
  current = c;
  return c;
}

ContextPtr contextArg(const std::optional<ContextPtr>& c) { return c && *c ? *c : defaultContext(); }

// --- Options parsing ------------------------------------------------------------------------------

det::DescriptorType descriptorType(const py::handle& v) {
  if (py::isinstance<py::int_>(v)) {
    const int n = v.cast<int>();
    if (n == 64) return det::DescriptorType::Surf64;
    if (n == 36) return det::DescriptorType::Surf36;
  } else if (py::isinstance<py::str>(v)) {
    const std::string s = v.cast<std::string>();
    if (s == "surf64") return det::DescriptorType::Surf64;
    if (s == "surf36") return det::DescriptorType::Surf36;
  }
  valueError("type: expected 'surf64' (or 64) or 'surf36' (or 36), got " + py::repr(v).cast<std::string>());
}

det::Orientation orientationArg(const std::string& s) {
  if (s == "oriented") return det::Orientation::Oriented;
  if (s == "upright") return det::Orientation::Upright;
  valueError("orientation: expected 'oriented' or 'upright', got '" + s + "'");
}

det::DescriptorStorage storageArg(const std::string& s) {
  if (s == "auto") return det::DescriptorStorage::Auto;
  if (s == "rgba8") return det::DescriptorStorage::Rgba8;
  if (s == "float") return det::DescriptorStorage::Float;
  valueError("storage: expected 'auto', 'rgba8' or 'float', got '" + s + "'");
}

std::string typeName(det::DescriptorType t) { return t == det::DescriptorType::Surf64 ? "surf64" : "surf36"; }
std::string orientationName(det::Orientation o) { return o == det::Orientation::Oriented ? "oriented" : "upright"; }

/// Runs `f` and turns std::invalid_argument into ValueError with the argument's name in front.
template <typename F>
auto invalidAsValue(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(what) + ": " + e.what());
  }
}

py::object describeResult(const cv::Mat& descriptors, const std::vector<det::Keypoint>& keypoints, bool withKeypoints) {
  py::array d = matToArray(descriptors.empty() ? cv::Mat(0, descriptors.cols, CV_32F) : descriptors);
  if (!withKeypoints) return std::move(d);
  return py::make_tuple(d, keypointsTo(keypoints));
}

// --- SURF-ES --------------------------------------------------------------------------------------

class PySurfEs {
 public:
  PySurfEs(const std::optional<ContextPtr>& context, const py::object& type, const std::string& orientation,
           const std::string& storage, int precisionBits, int boxTaps, int maxWidth, int maxHeight, int maxKeypoints)
      : ctx_(contextArg(context)) {
    options_.type = descriptorType(type);
    options_.orientation = orientationArg(orientation);
    options_.storage = storageArg(storage);
    options_.precisionBits = precisionBits;
    options_.boxTaps = boxTaps;
    options_.maxWidth = maxWidth;
    options_.maxHeight = maxHeight;
    options_.maxKeypoints = maxKeypoints;
    if (boxTaps != 1 && boxTaps != 2) valueError("box_taps: expected 1 or 2, got " + std::to_string(boxTaps));
    build();
  }
  PySurfEs(const PySurfEs&) = delete;
  PySurfEs& operator=(const PySurfEs&) = delete;
  ~PySurfEs() {
    if (!ctx_->onOwnerThread()) {
      (void)surf_.release();  // its GL objects cannot be freed from this thread (see makeContext)
      return;
    }
    try {
      ctx_->use("SurfEs");
    } catch (...) {
    }
    surf_.reset();
  }

  py::object describe(const py::array& image, const py::object& keypoints, bool returnKeypoints) {
    const cv::Mat view = imageView(image, "image", false);
    std::vector<det::Keypoint> kps = keypointsFrom(keypoints, "keypoints");
    cv::Mat d;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(ctx_->mutex());
      ctx_->use("SurfEs.describe");
      // Grows to the image and the keypoint count (a rebuild: shaders and textures).
      if (view.cols > options_.maxWidth || view.rows > options_.maxHeight ||
          static_cast<int>(kps.size()) > options_.maxKeypoints) {
        options_.maxWidth = std::max(options_.maxWidth, view.cols);
        options_.maxHeight = std::max(options_.maxHeight, view.rows);
        options_.maxKeypoints = std::max(options_.maxKeypoints, static_cast<int>(kps.size()));
        surf_.reset();
        buildLocked();
      }
      d = invalidAsValue("SurfEs.describe", [&] { return surf_->describe(view, kps); });
    }
    return describeResult(d, kps, returnKeypoints);
  }

  std::string storage() const {
    switch (surf_->storage()) {
      case det::DescriptorStorage::Float: return "float";
      case det::DescriptorStorage::Rgba8: return "rgba8";
      default: return "auto";
    }
  }
  int precisionBits() const { return surf_->precisionBits(); }
  const det::SurfEsOptions& options() const { return options_; }
  const ContextPtr& context() const { return ctx_; }

 private:
  void build() {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(ctx_->mutex());
    ctx_->use("SurfEs");
    buildLocked();
  }
  void buildLocked() {
    surf_ = invalidAsValue("SurfEs", [&] { return std::make_unique<det::SurfEs>(ctx_->caps, options_); });
  }

  ContextPtr ctx_;  // first: destroyed after the GL objects below
  det::SurfEsOptions options_;
  std::unique_ptr<det::SurfEs> surf_;
};

// --- GPU matcher ----------------------------------------------------------------------------------

struct PyMatches {
  py::array_t<int> query, target;
  py::array_t<float> distance, secondDistance;
};

PyMatches toMatches(const std::vector<det::Match>& matches) {
  const auto n = static_cast<py::ssize_t>(matches.size());
  PyMatches out{py::array_t<int>(n), py::array_t<int>(n), py::array_t<float>(n), py::array_t<float>(n)};
  int* q = out.query.mutable_data();
  int* t = out.target.mutable_data();
  float* d1 = out.distance.mutable_data();
  float* d2 = out.secondDistance.mutable_data();
  for (const det::Match& m : matches) {
    *q++ = m.query;
    *t++ = m.target;
    *d1++ = m.distance;
    *d2++ = m.secondDistance;
  }
  return out;
}

/// nearest()'s answer of both matchers: (target int32 (N,), distance float32 (N,), second_distance float32 (N,)).
py::tuple nearestTuple(const std::vector<det::Match>& matches) {
  const PyMatches r = toMatches(matches);
  return py::make_tuple(r.target, r.distance, r.secondDistance);
}

/// match()'s options of both matchers. Raises ValueError for a ratio outside (0, 1].
det::MatchOptions matchOptions(float ratio, bool crossCheck) {
  if (!(ratio > 0.0f && ratio <= 1.0f)) valueError("ratio: expected a number in (0, 1], got " + std::to_string(ratio));
  det::MatchOptions o;
  o.ratio = ratio;
  o.crossCheck = crossCheck;
  return o;
}

class PyGpuMatcher {
 public:
  PyGpuMatcher(const std::optional<ContextPtr>& context, int maxQueries, bool forceRgba8, bool drawBuffers)
      : ctx_(contextArg(context)) {
    options_.maxQueries = maxQueries;
    options_.forceRgba8 = forceRgba8;
    options_.drawBuffers = drawBuffers;
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(ctx_->mutex());
    ctx_->use("GpuMatcher");
    build();
  }
  PyGpuMatcher(const PyGpuMatcher&) = delete;
  PyGpuMatcher& operator=(const PyGpuMatcher&) = delete;
  ~PyGpuMatcher() {
    if (!ctx_->onOwnerThread()) {
      (void)matcher_.release();
      return;
    }
    try {
      ctx_->use("GpuMatcher");
    } catch (...) {
    }
    matcher_.reset();
  }

  void setTarget(const py::object& descriptors) {
    cv::Mat d = descriptorsFrom(descriptors, "descriptors");
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(ctx_->mutex());
    ctx_->use("GpuMatcher.set_target");
    invalidAsValue("GpuMatcher.set_target", [&] {
      matcher_->setTarget(d);
      return 0;
    });
    target_ = d;
  }

  py::tuple nearest(const py::object& queries) {
    return nearestTuple(run(queries, "GpuMatcher.nearest", [&](const cv::Mat& q) { return matcher_->nearest(q); }));
  }

  PyMatches match(const py::object& queries, float ratio, bool crossCheck) {
    const det::MatchOptions o = matchOptions(ratio, crossCheck);
    return toMatches(run(queries, "GpuMatcher.match", [&](const cv::Mat& q) { return matcher_->match(q, o); }));
  }

  int targetCount() const { return matcher_->targetCount(); }
  bool floatPath() const { return matcher_->floatPath(); }
  bool mergePath() const { return matcher_->mergePath(); }

 private:
  template <typename F>
  std::vector<det::Match> run(const py::object& queries, const char* what, F&& f) {
    cv::Mat q = descriptorsFrom(queries, "queries");
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(ctx_->mutex());
    ctx_->use(what);
    if (!target_.empty() && q.cols != target_.cols)
      throw py::value_error(std::string(what) + ": queries have " + std::to_string(q.cols) +
                            " bins, the target descriptors " + std::to_string(target_.cols));
    if (q.rows > options_.maxQueries) {  // grows: a rebuild, the target uploaded again
      options_.maxQueries = q.rows;
      matcher_.reset();
      build();
      if (!target_.empty()) matcher_->setTarget(target_);
    }
    return invalidAsValue(what, [&] { return f(q); });
  }
  void build() {
    matcher_ = invalidAsValue("GpuMatcher", [&] { return std::make_unique<det::GpuMatcher>(ctx_->caps, options_); });
  }

  ContextPtr ctx_;
  det::GpuMatcherOptions options_;
  cv::Mat target_;
  std::unique_ptr<det::GpuMatcher> matcher_;
};

/// det::CpuMatcher with GpuMatcher's Python interface: no GL context, no thread rule of its own
/// (not thread-safe: one matcher a thread), the GIL released while it works.
class PyCpuMatcher {
 public:
  void setTarget(const py::object& descriptors) {
    cv::Mat d = descriptorsFrom(descriptors, "descriptors");
    py::gil_scoped_release nogil;
    invalidAsValue("CpuMatcher.set_target", [&] {
      matcher_.setTarget(d);
      return 0;
    });
  }
  py::tuple nearest(const py::object& queries) {
    return nearestTuple(run(queries, "CpuMatcher.nearest", [&](const cv::Mat& q) { return matcher_.nearest(q); }));
  }
  PyMatches match(const py::object& queries, float ratio, bool crossCheck) {
    const det::MatchOptions o = matchOptions(ratio, crossCheck);
    return toMatches(run(queries, "CpuMatcher.match", [&](const cv::Mat& q) { return matcher_.match(q, o); }));
  }
  int targetCount() const { return matcher_.targetCount(); }

 private:
  template <typename F>
  std::vector<det::Match> run(const py::object& queries, const char* what, F&& f) {
    cv::Mat q = descriptorsFrom(queries, "queries");
    py::gil_scoped_release nogil;
    return invalidAsValue(what, [&] { return f(q); });  // a length other than the target's: ValueError
  }
  det::CpuMatcher matcher_;
};

// --- Training -------------------------------------------------------------------------------------

struct PyTrainedTarget {
  nft::session::LoadedTarget target;
};

}  // namespace

void bindDetection(py::module_& m) {
  py::class_<GpuContextImpl, ContextPtr>(m, "GpuContext", R"doc(A headless OpenGL ES 2.0 context (EGL; Mesa's llvmpipe where there is no GPU) for SurfEs and
GpuMatcher (C++ nft::gpu::Context, gpu/context.h).

GpuContext(egl_platform="auto"); egl_platform: "auto", "surfaceless", "device" or "default".
Objects made without a context share the calling thread's default one. Thread rule: GL objects
are used on the thread that made them — every call from another thread raises nft.GpuError (the
GIL is released while the GPU works, so this is what keeps two threads off one context).
Raises nft.GpuError when no context can be made.)doc")
      .def(py::init([](const std::string& platform) { return makeContext(platform); }),
           py::arg("egl_platform") = "auto")
      .def_static(
          "default", [] { return defaultContext(); },
          "The calling thread's default context (the one SurfEs() and GpuMatcher() use without a context).")
      .def_property_readonly("renderer", [](const GpuContextImpl& c) { return c.caps.glRenderer; },
                             "GL_RENDERER, e.g. 'llvmpipe (LLVM 15.0.6, 256 bits)'.")
      .def_property_readonly("gl_version", [](const GpuContextImpl& c) { return c.caps.glVersion; }, "GL_VERSION.")
      .def_property_readonly("platform", [](const GpuContextImpl& c) { return c.context.platformDescription(); },
                             "What gave the context, e.g. 'EGL_MESA_platform_surfaceless'.")
      .def_property_readonly("software_renderer", [](const GpuContextImpl& c) { return c.caps.softwareRenderer; },
                             "True for CPU rasterisers (llvmpipe, SwiftShader).")
      .def_property_readonly(
          "fragment_highp_bits", [](const GpuContextImpl& c) { return c.caps.fragmentFloat[2].precision; },
          "Fragment shader highp float precision p, bits (0 where highp is missing; Hofmann 2012 table 3).")
      .def("__repr__", [](const GpuContextImpl& c) {
        return "nft.GpuContext(renderer='" + c.caps.glRenderer + "', platform='" + c.context.platformDescription() + "')";
      });

  const char* keypointsDoc =
      "keypoints: N×3, N×4 or N×5 float array, one keypoint per row: x, y (pixels; OpenCV's pixel-centre "
      "convention), SURF scale s (pixels; the descriptor window is 20 s; OpenCV's SURF KeyPoint.size is 7.5 s), "
      "angle (degrees in [0, 360), the keypoint's x axis along (cos a, sin a) with y down; negative or missing = "
      "computed by the intensity centroid when oriented), response (ignored).";

  py::class_<PySurfEs>(m, "SurfEs", (std::string(R"doc(SURF-ES: SURF descriptors computed on the GPU with OpenGL ES 2.0 shaders (Hofmann 2012, "SURF-ES",
sections 3.3-4.5; C++ nft::detection::SurfEs, detection/surf_es.h). The descriptor is the one of
detection/surf_descriptor.h (Bay et al. 2008), which CpuSurf computes on the CPU.

SurfEs(context=None, type="surf64", orientation="oriented", storage="auto", precision_bits=0,
       box_taps=2, max_width=1920, max_height=1080, max_keypoints=4096)
  context:        an nft.GpuContext; None = the thread's default one.
  type:           "surf64" (4×4 subregions, 64 bins) or "surf36" (3×3, 36 bins); 64 / 36 also.
  orientation:    "oriented" (intensity-centroid angle, rotation invariant) or "upright".
  storage:        "auto", "rgba8" (precision-adaptive RGBA8 encoding, section 4.5) or "float".
  precision_bits: fragment precision p of the RGBA8 encoding; 0 = the GPU's, 8..23 emulates a
                  weaker GPU (10: a mediump-only Mali-400, table 3).
  box_taps:       box means per SURF box, 1 (one lookup, the thesis's) or 2 (the default: its
                  four quarter boxes, read in one lookup from a box pyramid; the CPU lane's
                  matching recall).
  max_*:          initial capacity; it grows (a rebuild) for larger images or more keypoints.
Raises ValueError for options out of range; nft.GpuError when the GPU refuses.
Thread rule: use it on the thread that made its context (nft.GpuError otherwise).)doc")).c_str())
      .def(py::init<const std::optional<ContextPtr>&, const py::object&, const std::string&, const std::string&, int, int,
                    int, int, int>(),
           py::arg("context") = py::none(), py::arg("type") = "surf64", py::arg("orientation") = "oriented",
           py::arg("storage") = "auto", py::arg("precision_bits") = 0, py::arg("box_taps") = 2,
           py::arg("max_width") = 1920, py::arg("max_height") = 1080, py::arg("max_keypoints") = 4096)
      .def("describe", &PySurfEs::describe, py::arg("image"), py::arg("keypoints"), py::arg("return_keypoints") = false,
           (std::string("Computes one descriptor per keypoint on the GPU → N×D float32 (D = 64 or 36), row i for "
                        "keypoints[i], unit L2 norm (zero for a uniform patch).\n\nimage: H×W grey or H×W×3 BGR "
                        "uint8, C-contiguous (intensities value / 255).\n") +
            keypointsDoc +
            "\nreturn_keypoints: also return the keypoints as N×5 float32 (x, y, scale, angle, response) with "
            "the computed angles → (descriptors, keypoints).\nRaises ValueError naming the argument for a bad "
            "image or keypoint; nft.GpuError.")
               .c_str())
      .def_property_readonly("type", [](const PySurfEs& s) { return typeName(s.options().type); }, "'surf64' or 'surf36'.")
      .def_property_readonly("orientation", [](const PySurfEs& s) { return orientationName(s.options().orientation); },
                             "'oriented' or 'upright'.")
      .def_property_readonly("storage", &PySurfEs::storage, "The storage path in use: 'rgba8' or 'float'.")
      .def_property_readonly("precision_bits", &PySurfEs::precisionBits, "The encoding precision p in use, bits.")
      .def_property_readonly("context", [](const PySurfEs& s) { return s.context(); }, "Its nft.GpuContext.");

  py::class_<det::SurfCpu>(m, "CpuSurf", R"doc(The CPU SURF lane: the same descriptor as SurfEs, computed on the CPU with exact box means
(C++ nft::detection::SurfCpu, detection/surf_cpu.h; Bay et al. 2008 "SURF: Speeded Up Robust
Features"; Hofmann 2012 section 3.1.1). Needs no GL context; thread-safe.

CpuSurf(type="surf64", orientation="oriented", threads=0)
  type:        "surf64" or "surf36" (64 / 36 also).
  orientation: "oriented" or "upright".
  threads:     0 = OpenCV's thread pool, 1 = serial, k > 1 = at most k workers.
Raises ValueError for a negative thread count or an unknown type or orientation.)doc")
      .def(py::init([](const py::object& type, const std::string& orientation, int threads) {
             det::SurfCpuOptions o;
             o.type = descriptorType(type);
             o.orientation = orientationArg(orientation);
             o.threads = threads;
             return invalidAsValue("CpuSurf", [&] { return det::SurfCpu(o); });
           }),
           py::arg("type") = "surf64", py::arg("orientation") = "oriented", py::arg("threads") = 0)
      .def(
          "describe",
          [](const det::SurfCpu& s, const py::array& image, const py::object& keypoints, bool returnKeypoints) {
            const cv::Mat view = imageView(image, "image", false);
            std::vector<det::Keypoint> kps = keypointsFrom(keypoints, "keypoints");
            cv::Mat d;
            {
              py::gil_scoped_release nogil;
              d = invalidAsValue("CpuSurf.describe", [&] { return s.describe(view, kps); });
            }
            return describeResult(d, kps, returnKeypoints);
          },
          py::arg("image"), py::arg("keypoints"), py::arg("return_keypoints") = false,
          (std::string("Computes one descriptor per keypoint → N×D float32, row i for keypoints[i], unit L2 norm "
                       "(zero for a uniform patch).\n\nimage: H×W grey or H×W×3 BGR uint8, C-contiguous.\n") +
           keypointsDoc + "\nreturn_keypoints: also return the N×5 float32 keypoints with the computed angles.")
              .c_str())
      .def_property_readonly("type", [](const det::SurfCpu& s) { return typeName(s.options().type); }, "'surf64' or 'surf36'.")
      .def_property_readonly("orientation", [](const det::SurfCpu& s) { return orientationName(s.options().orientation); },
                             "'oriented' or 'upright'.");

  py::class_<PyMatches>(m, "Matches", R"doc(Accepted matches of GpuMatcher.match(), in query order (C++ nft::detection::Match).
Attributes, each of shape (K,): query (int32, row of the query descriptor), target (int32, row
of the nearest target descriptor), distance (float32, L2 distance d1), second_distance (float32,
distance to the second nearest d2; inf when there is none).)doc")
      .def_readonly("query", &PyMatches::query, "int32 (K,): query rows.")
      .def_readonly("target", &PyMatches::target, "int32 (K,): nearest target rows.")
      .def_readonly("distance", &PyMatches::distance, "float32 (K,): L2 distance to the nearest, d1.")
      .def_readonly("second_distance", &PyMatches::secondDistance, "float32 (K,): L2 distance to the second nearest, d2 (inf: none).")
      .def("__len__", [](const PyMatches& p) { return p.query.size(); })
      .def("__repr__", [](const PyMatches& p) { return "nft.Matches(" + std::to_string(p.query.size()) + " matches)"; });

  py::class_<PyGpuMatcher>(m, "GpuMatcher", R"doc(Brute-force descriptor matching on the GPU with OpenGL ES 2.0 shaders and Lowe's ratio test
(Hofmann 2012 section 6.1 "GPU matching with a ratio test"; Lowe 2004, IJCV 60(2), section 7.1;
C++ nft::detection::GpuMatcher, detection/gpu_matcher.h): the two nearest target descriptors of
every query by Euclidean distance, computed in fp32; only 8 bytes per query are read back.

GpuMatcher(context=None, max_queries=4096, force_rgba8=False, draw_buffers=True)
  context:      an nft.GpuContext; None = the thread's default one.
  max_queries:  initial capacity (it grows for more queries).
  force_rgba8:  use the core-GLES2 RGBA8 path even where float textures exist.
  draw_buffers: use the single-merge path where GL_EXT_draw_buffers allows it.
Distances carry a quantisation of ≤ 2.5e-4 (16-bit fixed point). Thread rule as SurfEs.)doc")
      .def(py::init<const std::optional<ContextPtr>&, int, bool, bool>(), py::arg("context") = py::none(),
           py::arg("max_queries") = 4096, py::arg("force_rgba8") = false, py::arg("draw_buffers") = true)
      .def("set_target", &PyGpuMatcher::setTarget, py::arg("descriptors"),
           "Uploads the target descriptors once: M×D float32 (D = 64 or 36, unit rows as SURF gives; M ≤ 65535). "
           "Raises ValueError naming a wrong shape or count.")
      .def("nearest", &PyGpuMatcher::nearest, py::arg("queries"),
           "The nearest and second-nearest target of each query row (N×D float32, D as the target's) → (target int32 "
           "(N,), distance float32 (N,), second_distance float32 (N,)); target −1 where none is eligible, "
           "second_distance inf where there is no second.")
      .def("match", &PyGpuMatcher::match, py::arg("queries"), py::arg("ratio") = 0.8f, py::arg("cross_check") = false,
           "nearest(), then the ratio test (kept when d1 < ratio · d2; ratio in (0, 1]) and, with cross_check, "
           "mutual nearest neighbours only → nft.Matches, in query order.")
      .def_property_readonly("target_count", &PyGpuMatcher::targetCount, "Number of target descriptors M.")
      .def_property_readonly("float_path", &PyGpuMatcher::floatPath, "True when the targets use float textures.")
      .def_property_readonly("merge_path", &PyGpuMatcher::mergePath, "True on the single-merge (draw buffers) path.");

  py::class_<PyCpuMatcher>(m, "CpuMatcher", R"doc(Brute-force descriptor matching on the CPU with Lowe's ratio test: GpuMatcher's interface and
results (C++ nft::detection::CpuMatcher, detection/cpu_matcher.h: the two nearest target
descriptors of every query by Euclidean distance, exact in fp32), without a GL context — the
matcher for a process where the GPU is a software rasteriser (llvmpipe) or there is none.
Not thread-safe: one matcher a thread.)doc")
      .def(py::init<>())
      .def("set_target", &PyCpuMatcher::setTarget, py::arg("descriptors"),
           "Keeps the target descriptors: M×D float32 (D = 64 or 36). Raises ValueError naming a wrong shape.")
      .def("nearest", &PyCpuMatcher::nearest, py::arg("queries"),
           "As GpuMatcher.nearest(): (target int32 (N,), distance float32 (N,), second_distance float32 (N,)).")
      .def("match", &PyCpuMatcher::match, py::arg("queries"), py::arg("ratio") = 0.8f, py::arg("cross_check") = false,
           "As GpuMatcher.match(): the ratio test (d1 < ratio · d2; ratio in (0, 1]) and, with cross_check, "
           "mutual nearest neighbours only → nft.Matches, in query order.")
      .def_property_readonly("target_count", &PyCpuMatcher::targetCount, "Number of target descriptors M.");

  py::class_<det::FastDetector>(m, "FastDetector", R"doc(Scale-aware FAST-9 on an image pyramid with an even spread over the image: the detection lane's
keypoint detector (C++ nft::detection::FastDetector, detection/fast_detector.h; Hofmann 2012
section 6.1; Wagner et al. 2010). CPU only; thread-safe.

FastDetector(max_keypoints=1000, scale_factor=√2, levels=4, threshold=30, cell_size=48, base_scale=3.0)
  max_keypoints: keypoints kept (strongest after the spread); scale_factor: pyramid level ratio
  in (1, 4]; levels: pyramid levels in [1, 32]; threshold: FAST intensity threshold, grey levels;
  cell_size: spread grid cells, pixels (0: no spread); base_scale: SURF scale of a level-0
  keypoint (level L: base_scale · scale_factor^L), pixels.
Raises ValueError for options out of range.)doc")
      .def(py::init([](int maxKeypoints, double scaleFactor, int levels, int threshold, int cellSize, double baseScale) {
             det::FastDetectorOptions o;
             o.maxKeypoints = maxKeypoints;
             o.scaleFactor = scaleFactor;
             o.levels = levels;
             o.threshold = threshold;
             o.cellSize = cellSize;
             o.baseScale = static_cast<float>(baseScale);
             return invalidAsValue("FastDetector", [&] { return det::FastDetector(o); });
           }),
           py::arg("max_keypoints") = 1000, py::arg("scale_factor") = 1.4142135623730951, py::arg("levels") = 4,
           py::arg("threshold") = 30, py::arg("cell_size") = 48, py::arg("base_scale") = 3.0)
      .def(
          "detect",
          [](const det::FastDetector& f, const py::array& image) {
            const cv::Mat view = imageView(image, "image", false);
            std::vector<det::Keypoint> k;
            {
              py::gil_scoped_release nogil;
              k = invalidAsValue("FastDetector.detect", [&] { return f.detect(view); });
            }
            return keypointsTo(k);
          },
          py::arg("image"),
          "Detects keypoints in an H×W grey or H×W×3 BGR uint8 image → N×5 float32 (x, y, scale, angle = −1, "
          "response = FAST score), strongest first; ready for SurfEs/CpuSurf.describe().");

  py::class_<PyTrainedTarget>(m, "TrainedTarget", R"doc(A target trained by nft.train_target(): what the detection and tracking lanes use, and its
quality report (C++ nft::detection::TargetModel).)doc")
      .def_property_readonly("quality", [](const PyTrainedTarget& t) { return nft::session::qualityOf(t.target.model); },
                             "The quality report (nft.TargetQuality): stars 0..5, keypoints, coverage, distinctness, "
                             "mean_contrast, warnings.")
      .def_property_readonly("keypoints", [](const PyTrainedTarget& t) { return keypointsTo(t.target.model.keypoints); },
                             "N×5 float32 (x, y, scale, angle, response) in working-image pixels.")
      .def_property_readonly("descriptors", [](const PyTrainedTarget& t) { return matToArray(t.target.model.descriptors); },
                             "N×D float32 SURF descriptors, unit rows, row i for keypoints[i].")
      .def_property_readonly("image", [](const PyTrainedTarget& t) { return matToArray(t.target.model.image); },
                             "The working image (H×W uint8 grey; the longest side at most target.working_size).")
      .def_property_readonly("tracking_patches", [](const PyTrainedTarget& t) { return t.target.model.patches.size(); },
                             "NCC patches kept for the tracking lane.")
      .def_property_readonly("width_m", [](const PyTrainedTarget& t) { return t.target.model.widthMetres; },
                             "Physical width, metres.")
      .def_property_readonly("geometry",
                             [](const PyTrainedTarget& t) { return nft::session::publicGeometry(t.target.model.geometry); },
                             "The surface it is printed on (nft.TargetGeometry).")
      .def_property_readonly("original_size", [](const PyTrainedTarget& t) {
        return py::make_tuple(t.target.originalSize.width, t.target.originalSize.height);
      }, "(width, height) of the image as given, pixels.")
      .def_property_readonly("descriptor_type", [](const PyTrainedTarget& t) { return typeName(t.target.model.descriptorType); },
                             "'surf64' or 'surf36'.")
      .def_property_readonly("seconds", [](const PyTrainedTarget& t) { return t.target.seconds; }, "Training time, seconds.")
      .def("save", [](const PyTrainedTarget& t, const py::object& path) {
        const std::string p = pathString(path);
        try {
          det::saveTargetModel(t.target.model, p);
        } catch (const std::exception& e) {
          throw nft::InputError(std::string("save: ") + e.what());
        }
      }, py::arg("path"), "Writes the model file (.nftm) that Session.add_target() loads without training. Raises "
                          "nft.InputError naming the file when it cannot be written.")
      .def("__repr__", [](const PyTrainedTarget& t) {
        return "nft.TrainedTarget(keypoints=" + std::to_string(t.target.model.keypoints.size()) + ", stars=" +
               std::to_string(t.target.model.quality.stars) + ")";
      });

  m.def(
      "train_target",
      [](const py::object& imageOrPath, double widthM, const py::object& config, const std::optional<ContextPtr>& context,
         const py::object& geometry) {
        std::string source;
        const nft::config::Config cfg = configFrom(config, source);
        nft::session::PipelineOptions options = nft::session::pipelineOptions(cfg, source);
        if (!(widthM >= 0) || !std::isfinite(widthM))
          valueError("width_m: expected a width in metres >= 0 (0 = the config's target.width_m)");
        if (widthM > 0) options.training.widthMetres = widthM;
        options.training.geometry = nft::session::detectionGeometry(geometryFrom(geometry));
        cv::Mat image;
        std::string name = "<image>";
        if (isPath(imageOrPath)) {
          name = existingPath(imageOrPath, "image_or_path");
          image = cv::imread(name, cv::IMREAD_GRAYSCALE);
          if (image.empty()) throw nft::InputError("image_or_path: cannot read image '" + name + "' (not an image OpenCV reads)");
        } else {
          image = imageView(imageOrPath, "image_or_path", false);
        }
        ContextPtr ctx = contextArg(context);
        PyTrainedTarget out;
        {
          py::gil_scoped_release nogil;
          std::lock_guard<std::mutex> lock(ctx->mutex());
          ctx->use("train_target");
          try {
            out.target = nft::session::trainTargetImage(image, name, options, ctx->caps);
          } catch (const nft::gpu::GpuError&) {
            throw;
          } catch (const std::runtime_error& e) {
            throw nft::InputError(e.what());
          } catch (const std::invalid_argument& e) {
            throw nft::InputError(e.what());
          }
        }
        return out;
      },
      py::arg("image_or_path"), py::arg("width_m") = 0.0, py::arg("config") = py::none(), py::arg("context") = py::none(),
      py::arg("geometry") = py::none(),
      R"doc(Trains a target as Session.add_target() and nft_train do → nft.TrainedTarget with its quality report.

image_or_path: an image file or an H×W grey / H×W×3 BGR uint8 array (a photo or scan of the target).
width_m:       the printed target's width, metres; 0 = the config's target.width_m.
geometry:      None (planar) or an nft.TargetGeometry: a label on a can is
               nft.TargetGeometry.cylinder(radius_m), its image the label unrolled, width_m its arc.
               Saved with the model (nft_train --geometry does the same).
config:        None, a YAML path or a dict, as for Session (sections detector, descriptor, target).
context:       an nft.GpuContext for SURF-ES; None = the thread's default one.
Save it with .save("target.nftm"): add_target() then loads it without training.
Raises FileNotFoundError for a missing file; nft.InputError for an unreadable image, one too plain
to track (fewer keypoints or patches than the lanes need) or a geometry that does not fit it (naming
the field); TypeError for a geometry of another type; nft.ConfigError.)doc");

  m.def(
      "load_target",
      [](const py::object& path) {
        const std::string p = existingPath(path, "path");
        PyTrainedTarget out;
        const auto start = std::chrono::steady_clock::now();
        try {
          out.target.model = det::loadTargetModel(p);
        } catch (const std::exception& e) {
          throw nft::InputError(e.what());
        }
        out.target.source = p;
        // A model keeps its working image only; the size the user gave is not stored.
        out.target.originalSize = out.target.model.image.size();
        out.target.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return out;
      },
      py::arg("path"),
      R"doc(Reads a target model file (.nftm, written by TrainedTarget.save() or nft_train) → nft.TrainedTarget,
without training and without a GL context: its keypoints, descriptors and working image as trained.
original_size is the working image's size (a model does not keep the size the user gave).
Raises FileNotFoundError for a missing file; nft.InputError naming the file for one that is not a
target model, of another format version, truncated or corrupt.)doc");
}

}  // namespace nftpy
