// nft.Session and the types it takes and gives (C++ session/include/nft/: session.h, types.h),
// bound with NumPy arrays in and out.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>

#include <yaml-cpp/yaml.h>

#include "nft/nft.h"
#include "python/bindings.h"
#include "python/common.h"

namespace nftpy {

namespace {

// --- Config from a dict -----------------------------------------------------------------------

void emitYaml(YAML::Emitter& out, const py::handle& v, const std::string& where) {
  static const py::handle numpyGeneric = [] {
    try {
      return py::object(py::module_::import("numpy").attr("generic")).release();
    } catch (const py::error_already_set&) {
      PyErr_Clear();
      return py::handle();
    }
  }();
  if (py::isinstance<py::dict>(v)) {
    out << YAML::BeginMap;
    for (const auto& item : py::reinterpret_borrow<py::dict>(v)) {
      if (!py::isinstance<py::str>(item.first))
        throw py::type_error("config" + where + ": keys must be str, got " +
                             py::repr(item.first).cast<std::string>());
      const std::string key = item.first.cast<std::string>();
      out << YAML::Key << key << YAML::Value;
      emitYaml(out, item.second, where + "['" + key + "']");
    }
    out << YAML::EndMap;
  } else if (py::isinstance<py::bool_>(v)) {
    out << (v.cast<bool>() ? "true" : "false");
  } else if (py::isinstance<py::int_>(v)) {
    out << py::str(v).cast<std::string>();
  } else if (py::isinstance<py::float_>(v)) {
    out << py::repr(v).cast<std::string>();  // the shortest repr that reads back exactly
  } else if (py::isinstance<py::str>(v)) {
    out << YAML::DoubleQuoted << v.cast<std::string>();
  } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    out << YAML::Flow << YAML::BeginSeq;
    size_t i = 0;
    for (const auto& e : py::reinterpret_borrow<py::sequence>(v)) emitYaml(out, e, where + "[" + std::to_string(i++) + "]");
    out << YAML::EndSeq;
  } else if (numpyGeneric && py::isinstance(v, numpyGeneric)) {
    emitYaml(out, v.attr("item")(), where);  // NumPy scalars: their Python value
  } else {
    throw py::type_error("config" + where + ": a " +
                         py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>() +
                         " cannot be a config value (expected dict, bool, int, float, str or list)");
  }
}

// --- Results ------------------------------------------------------------------------------------

/// One process() result; the Python TargetResult objects refer into it (no copy of the points).
struct PyFrameResult {
  std::shared_ptr<const nft::FrameResult> result;
  py::object targets;  // list, made on first access
};

/// One entry of FrameResult.targets.
struct PyTargetResult {
  std::shared_ptr<const nft::FrameResult> frame;
  size_t index = 0;
  const nft::TargetResult& r() const { return frame->targets[index]; }
};

py::object foundOr(const PyTargetResult& t, py::object value) { return t.r().found ? value : py::none(); }

py::dict timingsDict(const nft::FrameTimings& t) {
  py::dict d;
  d["convert"] = t.convert;
  d["fast"] = t.fast;
  d["describe"] = t.describe;
  d["match"] = t.match;
  d["ransac"] = t.ransac;
  d["detection_pose"] = t.detectionPose;
  d["pyramid"] = t.pyramid;
  d["coarse"] = t.coarse;
  d["fine"] = t.fine;
  d["tracking_pose"] = t.trackingPose;
  d["refine"] = t.refine;
  d["total"] = t.total;
  return d;
}

py::tuple sizeTuple(const cv::Size& s) { return py::make_tuple(s.width, s.height); }

// --- Calibration --------------------------------------------------------------------------------

nft::Calibration makeCalibration(const py::handle& K, const py::handle& imageSize, const py::handle& distortion,
                                 const std::string& source) {
  nft::Calibration c;
  const auto k = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(K);
  if (!k || k.ndim() != 2 || k.shape(0) != 3 || k.shape(1) != 3) {
    PyErr_Clear();
    valueError("K: expected a 3×3 intrinsic matrix [[fx, s, cx], [0, fy, cy], [0, 0, 1]] (pixels)");
  }
  for (int i = 0; i < 9; ++i) c.K.val[i] = k.data()[i];
  if (!(c.K(0, 0) > 0) || !(c.K(1, 1) > 0) || !std::isfinite(c.K(0, 2)) || !std::isfinite(c.K(1, 2)))
    valueError("K: fx and fy must be > 0 and cx, cy finite");
  py::sequence size;
  if (!py::isinstance<py::sequence>(imageSize) || py::len(imageSize) != 2)
    valueError("image_size: expected (width, height) in pixels");
  size = py::reinterpret_borrow<py::sequence>(imageSize);
  c.imageSize = cv::Size(size[0].cast<int>(), size[1].cast<int>());
  if (c.imageSize.width <= 0 || c.imageSize.height <= 0) valueError("image_size: width and height must be > 0");
  if (!distortion.is_none()) {
    const auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(distortion);
    const py::ssize_t n = d ? d.size() : -1;
    if (n != 0 && n != 4 && n != 5 && n != 8 && n != 12 && n != 14) {
      PyErr_Clear();
      valueError("distortion: expected 0, 4, 5, 8, 12 or 14 OpenCV distortion coefficients");
    }
    if (n > 0) c.distortion = cv::Mat(1, static_cast<int>(n), CV_64F, const_cast<double*>(d.data())).clone();
  }
  c.source = source;
  return c;
}

// --- Session ------------------------------------------------------------------------------------

class PySession {
 public:
  PySession(const py::object& config, const py::object& calibration, const std::string& eglPlatform) {
    nft::SessionOptions options;
    options.config = configFrom(config, options.configSource);
    if (!calibration.is_none()) {
      if (isPath(calibration))
        options.calibration = nft::loadCalibration(existingPath(calibration, "calibration"));
      else if (py::isinstance<nft::Calibration>(calibration))
        options.calibration = calibration.cast<nft::Calibration>();
      else
        throw py::type_error("calibration: expected None, a calibration file path or an nft.Calibration");
    }
    options.eglPlatform = eglPlatform;
    py::gil_scoped_release nogil;
    session_ = std::make_unique<nft::Session>(options);
  }
  PySession(const PySession&) = delete;
  PySession& operator=(const PySession&) = delete;
  ~PySession() {
    // GL objects go with the thread that made them; from another thread (a garbage collection
    // there) they are left to the process's end rather than freed on the wrong context.
    if (!bound_.onOwnerThread()) {
      (void)session_.release();
      return;
    }
    destroySession();
  }

  nft::Session& s(const char* what) {
    if (!session_) throw nft::Error(std::string(what) + ": the Session is closed");
    return *session_;
  }
  const nft::Session& s(const char* what) const {
    if (!session_) throw nft::Error(std::string(what) + ": the Session is closed");
    return *session_;
  }

  void close() {
    bound_.checkThread("Session.close");
    destroySession();
    lastFrame_ = py::none();
  }

  int addTarget(const py::object& imageOrPath, const std::string& name, double widthM, const py::object& geometry) {
    nft::Session& session = s("add_target");
    nft::TargetOptions options;
    options.name = name;
    options.widthMetres = widthM;
    options.geometry = geometryFrom(geometry);
    if (isPath(imageOrPath)) {
      const std::string path = existingPath(imageOrPath, "image_or_path");
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(bound_.mutex());
      return session.addTarget(path, options);
    }
    const cv::Mat image = imageView(imageOrPath, "image_or_path", true);
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(bound_.mutex());
    return session.addTarget(image, options);
  }

  int addTargetModel(const py::bytes& model, const std::string& name, double widthM) {
    nft::Session& session = s("add_target_model");
    const std::string_view view = model;
    const std::vector<unsigned char> bytes(view.begin(), view.end());
    nft::TargetOptions options;
    options.name = name;
    options.widthMetres = widthM;
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(bound_.mutex());
    return session.addTargetModel(bytes, options);
  }

  int addTargetFromFrame(const py::array& frame, const py::object& quad, const std::string& name, double widthM) {
    nft::Session& session = s("add_target_from_frame");
    const cv::Mat view = imageView(frame, "frame", true);
    const std::vector<cv::Point2f> corners = pointsFrom(quad, "quad");
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(bound_.mutex());
    return session.addTargetFromFrame(view, corners, name, widthM);
  }

  std::vector<int> loadDatabase(const py::object& path) {
    nft::Session& session = s("load_database");
    const std::string p = existingPath(path, "path");
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(bound_.mutex());
    return session.loadDatabase(p);
  }

  PyFrameResult process(const py::array& frame, long long timestampNs) {
    nft::Session& session = s("process");
    const cv::Mat view = imageView(frame, "frame", true);
    auto result = std::make_shared<nft::FrameResult>();
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(bound_.mutex());
      *result = session.process(view, timestampNs);
    }
    lastFrame_ = frame;  // render_to_image() draws it: keep its memory alive
    return PyFrameResult{std::move(result), py::none()};
  }

  /// The C++ loop of the overhead benchmark: process() of every frame from C++, each call timed
  /// with std::chrono::steady_clock. Returns seconds per frame.
  py::array_t<double> cppProcessLoop(const py::list& frames, long long timestampStepNs) {
    nft::Session& session = s("_cpp_process_loop");
    std::vector<cv::Mat> views;
    for (const auto& f : frames) views.push_back(imageView(f, "frames[i]", true));
    std::vector<double> seconds(views.size());
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(bound_.mutex());
      long long t = 0;
      for (size_t i = 0; i < views.size(); ++i) {
        const auto start = std::chrono::steady_clock::now();
        const nft::FrameResult r = session.process(views[i], t += timestampStepNs);
        seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (r.frame < 0) seconds[i] = -1;  // keeps the result observable
      }
    }
    lastFrame_ = frames.empty() ? py::object(py::none()) : py::object(frames[frames.size() - 1]);
    return py::array_t<double>(static_cast<py::ssize_t>(seconds.size()), seconds.data());
  }

  py::array renderToImage(const PyFrameResult& result) {
    nft::Session& session = s("render_to_image");
    cv::Mat image;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(bound_.mutex());
      image = session.renderToImage(*result.result);
    }
    return matToArray(image);
  }

  void removeTarget(int id) {
    nft::Session& session = s("remove_target");
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(bound_.mutex());
    session.removeTarget(id);
  }

  void resetTracking() {
    nft::Session& session = s("reset_tracking");
    std::lock_guard<std::mutex> lock(bound_.mutex());
    session.resetTracking();
  }

  py::array_t<double> projectionMatrix(double nearPlane, double farPlane) const {
    const std::array<float, 16> m = s("projection_matrix").projectionMatrix(nearPlane, farPlane);
    py::array_t<double> out({py::ssize_t{4}, py::ssize_t{4}});
    auto o = out.mutable_unchecked<2>();
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) o(r, c) = m[static_cast<size_t>(c * 4 + r)];  // column-major → M[row, col]
    return out;
  }

  bool closed() const { return !session_; }
  ThreadBound& bound() { return bound_; }

 private:
  // The Session makes its own context current before freeing its GL objects (session.cpp), even
  // when a GpuContext of this thread has taken the thread since.
  void destroySession() { session_.reset(); }

  ThreadBound bound_;
  std::unique_ptr<nft::Session> session_;
  py::object lastFrame_ = py::none();
};

}  // namespace

nft::config::Config configFrom(const py::handle& config, std::string& source) {
  if (config.is_none()) {
    source = "<defaults>";
    return nft::config::Config{};
  }
  if (isPath(config)) {
    source = existingPath(config, "config");
    return nft::config::loadConfig(source);
  }
  if (py::isinstance<py::dict>(config)) {
    YAML::Emitter out;
    emitYaml(out, config, "");
    source = "<dict>";
    return nft::config::parseConfig(std::string(out.c_str()) + "\n", source);
  }
  throw py::type_error("config: expected None, a YAML file path or a dict of sections, got " +
                       py::str(py::type::handle_of(config).attr("__name__")).cast<std::string>());
}

void bindSession(py::module_& m) {
  py::class_<nft::Calibration>(m, "Calibration", R"doc(Camera intrinsics at one image size (OpenCV's pinhole model; C++ nft::Calibration).

Calibration(K, image_size, distortion=None, source="<python>")
  K:          3×3 array-like, pixels: [[fx, s, cx], [0, fy, cy], [0, 0, 1]], fx, fy > 0.
  image_size: (width, height) of the images K refers to, pixels.
  distortion: None or 4, 5, 8, 12 or 14 OpenCV distortion coefficients.
Raises ValueError naming the argument that is malformed.
nft.load_calibration(path) reads an OpenCV calibration file.)doc")
      .def(py::init([](const py::object& K, const py::object& imageSize, const py::object& distortion,
                       const std::string& source) { return makeCalibration(K, imageSize, distortion, source); }),
           py::arg("K"), py::arg("image_size"), py::arg("distortion") = py::none(), py::arg("source") = "<python>")
      .def_property_readonly("K", [](const nft::Calibration& c) { return matxToArray(c.K); },
                             "3×3 float64 intrinsic matrix, pixels.")
      .def_property_readonly(
          "distortion",
          [](const nft::Calibration& c) {
            cv::Mat d;
            if (!c.distortion.empty()) c.distortion.reshape(1, 1).convertTo(d, CV_64F);
            return d.empty() ? py::array(py::array_t<double>(py::ssize_t{0})) : py::array(matToArray(d).attr("ravel")());
          },
          "OpenCV distortion coefficients, float64 shape (N,), N in {0, 4, 5, 8, 12, 14}.")
      .def_property_readonly("image_size", [](const nft::Calibration& c) { return sizeTuple(c.imageSize); },
                             "(width, height) of the images K refers to, pixels.")
      .def_readonly("source", &nft::Calibration::source, "Where it came from (a file path, 'default (...)', ...).")
      .def("__repr__", [](const nft::Calibration& c) {
        return "nft.Calibration(fx=" + std::to_string(c.K(0, 0)) + ", fy=" + std::to_string(c.K(1, 1)) +
               ", cx=" + std::to_string(c.K(0, 2)) + ", cy=" + std::to_string(c.K(1, 2)) + ", image_size=(" +
               std::to_string(c.imageSize.width) + ", " + std::to_string(c.imageSize.height) + "), source='" +
               c.source + "')";
      });

  m.def(
      "load_calibration",
      [](const py::object& path) { return nft::loadCalibration(existingPath(path, "path")); }, py::arg("path"),
      R"doc(Reads an OpenCV calibration file (YAML, XML or JSON as OpenCV's calibration sample writes it:
camera_matrix, distortion_coefficients, image_width, image_height) → nft.Calibration.
Raises FileNotFoundError for a missing file, nft.ConfigError naming the key that is missing or wrong.)doc");

  py::class_<nft::TargetQuality>(m, "TargetQuality", R"doc(The quality report of a trained target: how well the tracker will find it (C++ nft::TargetQuality).
Attributes: keypoints (int), coverage (fraction of an 8×8 grid's cells holding a keypoint),
distinctness (fraction of keypoints without a look-alike elsewhere on the target), mean_contrast
(mean local standard deviation, 8-bit grey levels), stars (0..5), warnings (list of str).)doc")
      .def_readonly("keypoints", &nft::TargetQuality::keypoints, "Keypoints the detection lane matches against.")
      .def_readonly("coverage", &nft::TargetQuality::coverage, "Fraction (0..1) of the cells of an 8×8 grid holding a keypoint.")
      .def_readonly("distinctness", &nft::TargetQuality::distinctness,
                    "Fraction (0..1) of keypoints with no look-alike elsewhere on the target.")
      .def_readonly("mean_contrast", &nft::TargetQuality::meanContrast, "Mean local standard deviation, 8-bit grey levels.")
      .def_readonly("stars", &nft::TargetQuality::stars, "0..5: one each for ≥ 100 and ≥ 300 keypoints, coverage ≥ 0.5 and ≥ 0.75, distinctness ≥ 0.8.")
      .def_readonly("warnings", &nft::TargetQuality::warnings, "E.g. too plain, too repetitive, uneven coverage.")
      .def("__repr__", [](const nft::TargetQuality& q) {
        return "nft.TargetQuality(stars=" + std::to_string(q.stars) + ", keypoints=" + std::to_string(q.keypoints) +
               ", coverage=" + std::to_string(q.coverage) + ", distinctness=" + std::to_string(q.distinctness) +
               ", mean_contrast=" + std::to_string(q.meanContrast) + ", warnings=" + std::to_string(q.warnings.size()) + ")";
      });

  py::class_<nft::TargetInfo>(m, "TargetInfo", "A target known to a Session (C++ nft::TargetInfo).")
      .def_readonly("id", &nft::TargetInfo::id, "The id add_target() returned (≥ 1, never reused).")
      .def_readonly("name", &nft::TargetInfo::name, "As given to add_target() (the file name when none was given).")
      .def_readonly("source", &nft::TargetInfo::source, "The file it came from, or '<image>' for an array.")
      .def_readonly("width_m", &nft::TargetInfo::widthMetres,
                    "Physical width, metres; poses are in metres when > 0, else in target pixels.")
      .def_property_readonly("image_size", [](const nft::TargetInfo& t) { return sizeTuple(t.imageSize); },
                             "(width, height) of the working image the tracker uses (large images are scaled down), pixels.")
      .def_property_readonly("original_size", [](const nft::TargetInfo& t) { return sizeTuple(t.originalSize); },
                             "(width, height) of the image as given, pixels.")
      .def_readonly("tracking_patches", &nft::TargetInfo::trackingPatches, "NCC patches the tracking lane follows.")
      .def_readonly("trained", &nft::TargetInfo::trained, "True when trained by add_target(), False when loaded from a .nftm model.")
      .def_readonly("load_seconds", &nft::TargetInfo::loadSeconds, "Time spent training or loading, seconds.")
      .def_readonly("quality", &nft::TargetInfo::quality, "The quality report (nft.TargetQuality).")
      .def_readonly("geometry", &nft::TargetInfo::geometry, "The surface it is printed on (nft.TargetGeometry).")
      .def("__repr__", [](const nft::TargetInfo& t) {
        return "nft.TargetInfo(id=" + std::to_string(t.id) + ", name='" + t.name + "', width_m=" +
               std::to_string(t.widthMetres) + ", stars=" + std::to_string(t.quality.stars) + ")";
      });

  py::class_<PyTargetResult>(m, "TargetResult", R"doc(One target's outcome in one frame (C++ nft::TargetResult).

The pose maps target coordinates to camera coordinates, X_cam = R · X_target + tvec (OpenCV's
camera: looking down +z, y down). Target coordinates: origin at the target image's top-left corner,
x right, y down, z into the target; metres when the target's width is known, else target pixels.
homography, corners, R, rvec and tvec are None when found is False.)doc")
      .def_property_readonly("id", [](const PyTargetResult& t) { return t.r().id; }, "The target's id.")
      .def_property_readonly("name", [](const PyTargetResult& t) { return t.r().name; }, "The target's name.")
      .def_property_readonly("state", [](const PyTargetResult& t) { return nft::toString(t.r().state); },
                             "'detecting' (the detection lane produced this result), 'tracking' (the tracking "
                             "lane followed it) or 'lost' (lost in this frame).")
      .def_property_readonly("found", [](const PyTargetResult& t) { return t.r().found; },
                             "True when homography, pose and corners hold for this frame.")
      .def_property_readonly("homography", [](const PyTargetResult& t) { return foundOr(t, matxToArray(t.r().homography)); },
                             "3×3 float64: target-image pixels (TargetInfo.image_size) → frame pixels, H[2, 2] = 1; None when not found.")
      .def_property_readonly("corners", [](const PyTargetResult& t) { return foundOr(t, pointsToArray(t.r().corners)); },
                             "4×2 float64, frame pixels: the target image's corners upper left, upper right, lower "
                             "right, lower left; None when not found.")
      .def_property_readonly(
          "outline",
          [](const PyTargetResult& t) {
            py::list lines;
            for (const std::vector<cv::Point2f>& line : t.r().outline) lines.append(pointsToArray(line));
            return lines;
          },
          "list of N×2 float64 arrays, frame pixels: what the camera sees of the target's outline as polylines "
          "(a flat target's closed quad; a curved label's edges and its can's or cup's silhouette, the parts "
          "facing the camera); empty when not found.")
      .def_property_readonly("R", [](const PyTargetResult& t) { return foundOr(t, matxToArray(t.r().pose.R)); },
                             "3×3 float64 rotation, target → camera; None when not found.")
      .def_property_readonly("rvec", [](const PyTargetResult& t) { return foundOr(t, vecToArray(t.r().pose.rvec)); },
                             "float64 shape (3,): R as a rotation vector (axis × angle, radians; cv2.Rodrigues); None when not found.")
      .def_property_readonly("tvec", [](const PyTargetResult& t) { return foundOr(t, vecToArray(t.r().pose.t)); },
                             "float64 shape (3,): translation, metres with a known target width (else target "
                             "pixels); None when not found.")
      .def_property_readonly("inliers", [](const PyTargetResult& t) { return t.r().inliers; },
                             "Inliers of the lane that produced the result: keypoint matches or NCC patches.")
      .def_property_readonly("searched", [](const PyTargetResult& t) { return t.r().searched; },
                             "Patches the tracking lane searched (0 for a detection it did not refine).")
      .def_property_readonly("reprojection_error_px", [](const PyTargetResult& t) { return t.r().reprojectionErrorPx; },
                             "Mean reprojection error of the inliers under the pose, pixels.")
      .def_property_readonly("inlier_target_points", [](const PyTargetResult& t) { return pointsToArray(t.r().inlierTargetPoints); },
                             "N×2 float64: the tracking lane's inlier patches in the target image, target pixels.")
      .def_property_readonly("inlier_frame_points", [](const PyTargetResult& t) { return pointsToArray(t.r().inlierFramePoints); },
                             "N×2 float64: the same patches in the frame, frame pixels (same order).")
      .def_property_readonly("rejection", [](const PyTargetResult& t) { return t.r().rejection; },
                             "Why the target was not found (or why tracking was lost), '' otherwise.")
      .def("__repr__", [](const PyTargetResult& t) {
        return "nft.TargetResult(id=" + std::to_string(t.r().id) + ", name='" + t.r().name + "', state='" +
               nft::toString(t.r().state) + "', found=" + (t.r().found ? "True" : "False") +
               ", inliers=" + std::to_string(t.r().inliers) + ")";
      });

  py::class_<PyFrameResult>(m, "FrameResult", "The outcome of one Session.process() call (C++ nft::FrameResult).")
      .def_property_readonly("frame", [](const PyFrameResult& r) { return r.result->frame; },
                             "0-based count of the frames the Session processed before this one.")
      .def_property_readonly("timestamp_ns", [](const PyFrameResult& r) { return r.result->timestampNs; },
                             "The timestamp given to process(), nanoseconds.")
      .def_property_readonly("frame_size", [](const PyFrameResult& r) { return sizeTuple(r.result->frameSize); },
                             "(width, height) of the frame, pixels.")
      .def_property_readonly("search_in_flight", [](const PyFrameResult& r) { return r.result->searchInFlight; },
                             "True while a search for targets runs on the detection worker (config "
                             "tracking.async_detection); what it finds is reported on a later frame.")
      .def_property_readonly(
          "targets",
          [](PyFrameResult& r) {
            if (r.targets.is_none()) {
              py::list l;
              for (size_t i = 0; i < r.result->targets.size(); ++i) l.append(py::cast(PyTargetResult{r.result, i}));
              r.targets = l;
            }
            return r.targets;
          },
          "list of nft.TargetResult, in the order of Session.targets: with one target, that target every frame; "
          "with several, each target found in this frame and each lost in it.")
      .def_property_readonly("timings", [](const PyFrameResult& r) { return timingsDict(r.result->timings); },
                             "dict of stage → milliseconds: convert, fast, describe, match, ransac, detection_pose, "
                             "pyramid, coarse, fine, tracking_pose, refine, total (zero for lanes that did not run).")
      .def("__repr__", [](const PyFrameResult& r) {
        return "nft.FrameResult(frame=" + std::to_string(r.result->frame) + ", targets=" +
               std::to_string(r.result->targets.size()) + ", total_ms=" + std::to_string(r.result->timings.total) + ")";
      });

  py::class_<PySession>(m, "Session", R"doc(The tracker an app embeds (C++ nft::Session, nft/session.h).

Configuration in, targets added, camera frames processed one by one, poses out. One Session runs
the whole pipeline on its own headless OpenGL ES 2.0 context (EGL; Mesa's llvmpipe where there is
no GPU): the detection lane (scale-aware FAST, SURF-ES and matching on the GPU, RANSAC, planar
PnP; Hofmann 2012 "SURF-ES" sections 3.3-4.5 and 6.1) and the tracking lane (NCC patches after
Wagner et al., IEEE TVCG 16(3), 2010).

Session(config=None, calibration=None, egl_platform="auto")
  config:       None (the defaults of config/default.yaml), a YAML file path, or a dict of
                sections as the file would have them, e.g. {"tracking": {"min_ncc": 0.75}}
                (checked as a file is; C++ config/config.h documents every key).
  calibration:  None (the config's camera section: a calibration file, or the default
                calibration of camera.hfov_deg, sized on the first frame), a calibration file
                path, or an nft.Calibration.
  egl_platform: "auto", "surfaceless", "device" or "default".
Raises FileNotFoundError (a missing file), nft.ConfigError (naming the key), nft.GpuError (no
OpenGL ES 2.0 context), TypeError (an argument of another type).

Threads: the Session belongs to the thread that created it (its GL context is current there);
calls from another thread raise nft.GpuError. The GIL is released while C++ works.
Use as a context manager, or call close(), to free its GL objects at a known point.)doc")
      .def(py::init<const py::object&, const py::object&, const std::string&>(), py::arg("config") = py::none(),
           py::arg("calibration") = py::none(), py::arg("egl_platform") = "auto")
      .def("add_target", &PySession::addTarget, py::arg("image_or_path"), py::arg("name") = "",
           py::arg("width_m") = 0.0, py::arg("geometry") = py::none(),
           R"doc(Adds a target and returns its id (int ≥ 1).

image_or_path: a trained model (.nftm, made by nft_train or nft.train_target), an image file
               (PNG, JPEG, anything cv2.imread reads), or an image array (H×W grey, H×W×3 BGR or
               H×W×4 BGRA uint8) — images are trained here (seconds on llvmpipe).
name:          how results name it; "" = the file name.
width_m:       the printed target's width, metres (> 0: poses in metres); 0 = the model's width
               (.nftm) or the config's target.width_m (images). A curved label's: its arc length.
geometry:      None (planar) or an nft.TargetGeometry, the surface an image is printed on, e.g.
               nft.TargetGeometry.cylinder(0.033) for a can's label; a .nftm keeps its own. A curved
               target is found by PnP on its surface and followed on it, alone or beside other
               targets (flat or curved).
The quality report is in session.target(id).quality.
Raises FileNotFoundError for a missing file; nft.InputError for an unreadable or corrupt file, an
image too plain to track, a negative width, a geometry that does not fit the label (naming the
field: radius_m, ...), or a name already taken; TypeError for another geometry.)doc")
      .def("add_target_model", &PySession::addTargetModel, py::arg("model"), py::arg("name") = "",
           py::arg("width_m") = 0.0,
           R"doc(Adds a trained model from memory and returns its id (int ≥ 1): the bytes of a .nftm
file (nft_train's output, TrainedTarget.save(), or the recognition service's GET /targets/ID), as
add_target() adds the file, without writing it anywhere.

model:   bytes, the whole file, header to checksum.
name:    how results name it; "" = "model-N" (N counting the models added so).
width_m: the printed width, metres; 0 = the model's.
Raises nft.InputError for no bytes, bytes that are not a model (wrong magic, another format
version, truncated, a checksum mismatch: the message says which), a model too plain to track, a
negative width or a name already taken; TypeError for another type than bytes.)doc")
      .def("add_target_from_frame", &PySession::addTargetFromFrame, py::arg("frame"), py::arg("quad"),
           py::arg("name") = "", py::arg("width_m") = 0.0,
           R"doc(Adds an instant target: the region of a camera frame inside a quad ("point the camera at a
poster, tap, track"; a benchmark's first-frame annotation), rectified, trained, and tracked from
that quad on that frame — the next process() follows it without a detection. Returns its id.

frame:   the camera frame: H×W grey, H×W×3 BGR or H×W×4 BGRA uint8, of the Session's frame size.
quad:    its corners in frame pixels, upper-left, upper-right, lower-right, lower-left (clockwise
         on the screen, as TargetResult.corners): a 4×2 array or a list of 4 (x, y) pairs.
name:    how results name it; "" = "frame target N".
width_m: the printed target's width, metres (> 0: poses in metres); 0 = the config's
         target.width_m.
Raises nft.InputError naming the quad (not 4 corners, a corner outside the frame, not convex and
clockwise, a side under 32 px) or the target (too plain to track), a frame of another size, or a
name already taken; ValueError for a quad that is not N×2.)doc")
      .def("load_database", &PySession::loadDatabase, py::arg("path"),
           R"doc(Adds every target of a target database (.nftdb, made by nft_train --database) and returns
their ids (list of int, in the database's order). With several targets the Session recognises
which are in view and tracks up to the config's tracking.max_targets at once.
Raises FileNotFoundError for a missing file; nft.InputError for a corrupt one or a name taken.)doc")
      .def("remove_target", &PySession::removeTarget, py::arg("id"),
           "Removes a target: it is no longer reported, its GPU memory is freed. Raises nft.InputError for an "
           "unknown or removed id.")
      .def_property_readonly(
          "targets", [](const PySession& s) { return s.s("targets").targets(); },
          "The target database: list of nft.TargetInfo, in the order the targets were added.")
      .def(
          "target", [](const PySession& s, int id) { return s.s("target").target(id); }, py::arg("id"),
          "One target's nft.TargetInfo. Raises nft.InputError for an unknown or removed id.")
      .def("reset_tracking", &PySession::resetTracking,
           "Forgets what the tracker follows: the next frame searches for every target again.")
      .def("process", &PySession::process, py::arg("frame"), py::arg("timestamp_ns") = 0,
           R"doc(Tracks the targets in one frame → nft.FrameResult.

frame:        the camera image, a C-contiguous uint8 array: H×W grey, H×W×3 BGR (as cv2 gives)
              or H×W×4 BGRA; passed to C++ without a copy. Every frame has the size of the first
              (and of the calibration's image_size when one was given).
timestamp_ns: the frame's capture time, nanoseconds (monotonic; reported back).
Raises TypeError for a non-array; ValueError naming `frame` for another dtype, shape, an empty
or non-contiguous array; nft.InputError for another size than the frames so far; nft.GpuError.)doc")
      .def("_cpp_process_loop", &PySession::cppProcessLoop, py::arg("frames"), py::arg("timestamp_step_ns") = 33'333'333,
           "Benchmark helper: process() of every frame of the list from C++, each call timed there; returns "
           "float64 (N,) seconds per frame (tests/python/bench_process.py compares it with a Python loop).")
      .def_property_readonly(
          "calibration", [](const PySession& s) { return s.s("calibration").calibration(); },
          "The nft.Calibration the poses are computed with, once known (given, or fixed by the first frame); None before.")
      .def("render_to_image", &PySession::renderToImage, py::arg("result"),
           R"doc(Draws the last processed frame and, for each found target of `result`, the augmentations
(axes, box, outline; config render.*) and the status overlay → H×W×3 uint8 BGR array of the
frame's size. Raises nft.InputError before the first frame; nft.GpuError.)doc")
      .def(
          "set_overlay_visible", [](PySession& s, bool v) { s.s("set_overlay_visible").setOverlayVisible(v); },
          py::arg("visible"), "Shows or hides the status overlay of render_to_image() (initially render.overlay).")
      .def(
          "set_augmentations_visible", [](PySession& s, bool v) { s.s("set_augmentations_visible").setAugmentationsVisible(v); },
          py::arg("visible"), "Shows or hides the axes and the box of render_to_image() (the outline stays).")
      .def("projection_matrix", &PySession::projectionMatrix, py::arg("near"), py::arg("far"),
           R"doc(The OpenGL projection matrix of the camera as a 4×4 float64 array M (M @ [x, y, z, 1] in eye
coordinates gives clip coordinates; pass M.T.flatten() where GL wants column-major). near, far:
clipping distances in the pose's unit, 0 < near < far. Raises nft.InputError before the camera is
known or for bad near/far.)doc")
      .def_static(
          "view_matrix",
          [](const py::object& R, const py::object& tvec) {
            const auto r = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(R);
            const auto t = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(tvec);
            if (!r || r.size() != 9) { PyErr_Clear(); valueError("R: expected a 3×3 rotation matrix"); }
            if (!t || t.size() != 3) { PyErr_Clear(); valueError("tvec: expected 3 values"); }
            nft::Pose pose;
            for (int i = 0; i < 9; ++i) pose.R.val[i] = r.data()[i];
            for (int i = 0; i < 3; ++i) pose.t[i] = t.data()[i];
            const std::array<float, 16> view = nft::Session::viewMatrix(pose);
            py::array_t<double> out({py::ssize_t{4}, py::ssize_t{4}});
            auto o = out.mutable_unchecked<2>();
            for (int c = 0; c < 4; ++c)
              for (int row = 0; row < 4; ++row) o(row, c) = view[static_cast<size_t>(c * 4 + row)];
            return out;
          },
          py::arg("R"), py::arg("tvec"),
          "The OpenGL view matrix of a pose (R 3×3, tvec (3,)) as a 4×4 float64 array: target → eye coordinates, "
          "diag(1, −1, −1, 1) · [R t; 0 0 0 1].")
      .def_property_readonly("config_yaml", [](const PySession& s) { return nft::config::toYaml(s.s("config_yaml").config()); },
                             "The configuration in use as YAML text (every key; loadable as Session(config=path)).")
      .def_property_readonly("gpu_renderer", [](const PySession& s) { return s.s("gpu_renderer").gpuRenderer(); },
                             "GL_RENDERER of the context, e.g. 'llvmpipe (LLVM 15.0.6, 256 bits)'.")
      .def_property_readonly("gl_version", [](const PySession& s) { return s.s("gl_version").glVersion(); },
                             "GL_VERSION of the context.")
      .def_property_readonly("context_description", [](const PySession& s) { return s.s("context_description").contextDescription(); },
                             "How the context was obtained, e.g. 'EGL_MESA_platform_surfaceless'.")
      .def_property_readonly("warnings", [](const PySession& s) { return s.s("warnings").warnings(); },
                             "Settings the pipeline does not honour exactly, as 'key = value: what happens instead'.")
      .def_property_readonly("closed", &PySession::closed, "True after close().")
      .def("close", &PySession::close, "Frees the Session's GL objects and context now; later calls raise nft.Error.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PySession& s, const py::args&) { s.close(); });
}

}  // namespace nftpy
