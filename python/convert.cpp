// NumPy ↔ OpenCV conversions and argument checks of the Python module (python/common.h).

#include <cmath>
#include <cstring>
#include <sstream>

#include "nft/error.h"
#include "python/common.h"

namespace nftpy {

namespace {

std::string shapeString(const py::array& a) {
  std::ostringstream s;
  s << "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s << (i ? ", " : "") << a.shape(i);
  if (a.ndim() == 1) s << ",";
  s << ")";
  return s.str();
}

std::string dtypeString(const py::array& a) { return py::str(a.dtype()).cast<std::string>(); }

}  // namespace

void valueError(const std::string& message) { throw py::value_error(message); }

void fileNotFound(const std::string& message) {
  PyErr_SetString(PyExc_FileNotFoundError, message.c_str());
  throw py::error_already_set();
}

cv::Mat imageView(const py::handle& obj, const char* arg, bool allowBgra) {
  const std::string expected = allowBgra ? "an H×W (grey), H×W×3 (BGR) or H×W×4 (BGRA) uint8 array"
                                         : "an H×W (grey) or H×W×3 (BGR) uint8 array";
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(std::string(arg) + ": expected " + expected + " (NumPy), got " +
                         py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  const auto a = py::reinterpret_borrow<py::array>(obj);
  if (a.dtype().kind() != 'u' || a.itemsize() != 1)
    valueError(std::string(arg) + ": expected " + expected + ", got dtype " + dtypeString(a) +
               " (convert with frame.astype(np.uint8) or cv2.convertScaleAbs)");
  int channels = 0;
  if (a.ndim() == 2) {
    channels = 1;
  } else if (a.ndim() == 3) {
    const auto c = a.shape(2);
    if (c == 1 || c == 3 || (c == 4 && allowBgra)) channels = static_cast<int>(c);
  }
  if (channels == 0) valueError(std::string(arg) + ": expected " + expected + ", got shape " + shapeString(a));
  if (a.shape(0) <= 0 || a.shape(1) <= 0)
    valueError(std::string(arg) + ": expected a non-empty image, got shape " + shapeString(a));
  if (a.shape(0) > (1 << 20) || a.shape(1) > (1 << 20))
    valueError(std::string(arg) + ": image of shape " + shapeString(a) + " is too large (at most 1048576 per side)");
  if ((a.flags() & py::array::c_style) == 0)
    valueError(std::string(arg) + ": expected a C-contiguous array (rows one after another), got strides (" +
               std::to_string(a.strides(0)) + ", " + std::to_string(a.strides(1)) +
               (a.ndim() == 3 ? ", " + std::to_string(a.strides(2)) : std::string()) +
               "): pass np.ascontiguousarray(" + arg + ")");
  const int rows = static_cast<int>(a.shape(0));
  const int cols = static_cast<int>(a.shape(1));
  // The array is C-contiguous: rows are cols · channels bytes apart. Read-only: the Session and
  // the extractors only read frames (a const_cast, as the cv::Mat header has no const form).
  return cv::Mat(rows, cols, CV_8UC(channels), const_cast<void*>(a.data()));
}

std::vector<nft::detection::Keypoint> keypointsFrom(const py::handle& obj, const char* arg) {
  py::array_t<double, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(obj);
  } catch (const py::error_already_set&) {
    a = {};
  }
  if (!a) {
    PyErr_Clear();
    valueError(std::string(arg) + ": expected an N×3 or N×4 float array (x, y, scale[, angle])");
  }
  const bool empty1d = a.ndim() == 1 && a.shape(0) == 0;
  if (!empty1d && (a.ndim() != 2 || a.shape(1) < 3 || a.shape(1) > 5))
    valueError(std::string(arg) + ": expected an N×3, N×4 or N×5 float array (x, y, scale pixels[, angle degrees" +
               "[, response]]), got shape " + shapeString(a));
  const py::ssize_t n = empty1d ? 0 : a.shape(0);
  const py::ssize_t cols = empty1d ? 0 : a.shape(1);
  std::vector<nft::detection::Keypoint> keypoints(static_cast<size_t>(n));
  const double* p = a.data();
  for (py::ssize_t i = 0; i < n; ++i) {
    const double* row = p + i * cols;
    for (py::ssize_t c = 0; c < cols; ++c)
      if (!std::isfinite(row[c]))
        valueError(std::string(arg) + ": row " + std::to_string(i) + " column " + std::to_string(c) +
                   " is not finite");
    if (!(row[2] > 0))
      valueError(std::string(arg) + ": row " + std::to_string(i) + ": scale " + std::to_string(row[2]) +
                 " must be > 0 (the SURF scale s, pixels)");
    nft::detection::Keypoint& k = keypoints[static_cast<size_t>(i)];
    k.x = static_cast<float>(row[0]);
    k.y = static_cast<float>(row[1]);
    k.scale = static_cast<float>(row[2]);
    k.angle = cols >= 4 ? static_cast<float>(row[3]) : nft::detection::kNoAngle;
    k.response = cols >= 5 ? static_cast<float>(row[4]) : 0.0f;
  }
  return keypoints;
}

py::array_t<float> keypointsTo(const std::vector<nft::detection::Keypoint>& keypoints) {
  py::array_t<float> out({static_cast<py::ssize_t>(keypoints.size()), py::ssize_t{5}});
  float* p = out.mutable_data();
  for (const nft::detection::Keypoint& k : keypoints) {
    *p++ = k.x;
    *p++ = k.y;
    *p++ = k.scale;
    *p++ = k.angle;
    *p++ = k.response;
  }
  return out;
}

cv::Mat descriptorsFrom(const py::handle& obj, const char* arg) {
  py::array_t<float, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(obj);
  } catch (const py::error_already_set&) {
    a = {};
  }
  if (!a) {
    PyErr_Clear();
    valueError(std::string(arg) + ": expected an N×64 or N×36 float32 array of descriptors");
  }
  if (a.ndim() != 2 || (a.shape(1) != 64 && a.shape(1) != 36))
    valueError(std::string(arg) + ": expected an N×64 or N×36 float32 array of descriptors, got shape " +
               shapeString(a));
  const float* p = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(p[i]))
      valueError(std::string(arg) + ": element " + std::to_string(i) + " is not finite");
  return cv::Mat(static_cast<int>(a.shape(0)), static_cast<int>(a.shape(1)), CV_32F, const_cast<float*>(p)).clone();
}

py::array matToArray(const cv::Mat& m) {
  cv::Mat c = m.isContinuous() ? m : m.clone();
  std::vector<py::ssize_t> shape{c.rows, c.cols};
  if (c.channels() > 1) shape.push_back(c.channels());
  switch (c.depth()) {
    case CV_8U: {
      py::array_t<std::uint8_t> out(shape);
      std::memcpy(out.mutable_data(), c.data, c.total() * c.elemSize());
      return std::move(out);
    }
    case CV_32F: {
      py::array_t<float> out(shape);
      std::memcpy(out.mutable_data(), c.data, c.total() * c.elemSize());
      return std::move(out);
    }
    case CV_64F: {
      py::array_t<double> out(shape);
      std::memcpy(out.mutable_data(), c.data, c.total() * c.elemSize());
      return std::move(out);
    }
    default:
      throw nft::Error("internal: cannot convert a matrix of type " + cv::typeToString(c.type()) + " to NumPy");
  }
}

py::array_t<double> matxToArray(const cv::Matx33d& m) {
  py::array_t<double> out({py::ssize_t{3}, py::ssize_t{3}});
  std::memcpy(out.mutable_data(), m.val, sizeof(m.val));
  return out;
}

py::array_t<double> vecToArray(const cv::Vec3d& v) {
  py::array_t<double> out(py::ssize_t{3});
  std::memcpy(out.mutable_data(), v.val, sizeof(v.val));
  return out;
}

py::array_t<double> pointsToArray(const std::vector<cv::Point2f>& points) {
  py::array_t<double> out({static_cast<py::ssize_t>(points.size()), py::ssize_t{2}});
  double* p = out.mutable_data();
  for (const cv::Point2f& q : points) {
    *p++ = q.x;
    *p++ = q.y;
  }
  return out;
}

std::vector<cv::Point2f> pointsFrom(const py::handle& obj, const char* arg) {
  py::array_t<double, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(obj);
  } catch (const py::error_already_set&) {
    a = {};
  }
  if (!a) {
    PyErr_Clear();
    valueError(std::string(arg) + ": expected an N×2 array of (x, y) points, pixels");
  }
  if (a.ndim() != 2 || a.shape(1) != 2)
    valueError(std::string(arg) + ": expected an N×2 array of (x, y) points, pixels, got shape " + shapeString(a));
  std::vector<cv::Point2f> points(static_cast<size_t>(a.shape(0)));
  const double* p = a.data();
  for (cv::Point2f& q : points) {
    q.x = static_cast<float>(*p++);
    q.y = static_cast<float>(*p++);
  }
  return points;
}

bool isPath(const py::handle& obj) {
  if (py::isinstance<py::str>(obj)) return true;
  // Leaked on purpose: a static py::object would be released after the interpreter is gone.
  static const py::handle pathLike = py::object(py::module_::import("os").attr("PathLike")).release();
  return py::isinstance(obj, pathLike);
}

std::string pathString(const py::handle& obj) {
  static const py::handle fspath = py::object(py::module_::import("os").attr("fspath")).release();
  const py::object p = fspath(obj);
  if (!py::isinstance<py::str>(p)) throw py::type_error("expected a str path, got bytes");
  return p.cast<std::string>();
}

std::string existingPath(const py::handle& obj, const char* arg) {
  const std::string path = pathString(obj);
  static const py::handle exists = py::object(py::module_::import("os").attr("path").attr("exists")).release();
  if (!exists(path).cast<bool>()) fileNotFound(std::string(arg) + ": file '" + path + "' does not exist");
  return path;
}

void ThreadBound::checkThread(const char* what) const {
  if (!onOwnerThread())
    throw nft::GpuError(std::string(what) +
                        ": called from another thread than the one that created it (its OpenGL ES context is "
                        "current there; make one per thread)");
}

}  // namespace nftpy
