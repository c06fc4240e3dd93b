#pragma once
// Shared pieces of the Python module nft (python/*.cpp): NumPy ↔ OpenCV conversions that check
// what they are given and name the argument in their errors, path arguments, and the thread rule
// of the GL objects.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"

namespace nftpy {

namespace py = pybind11;

/// Raises ValueError(message) (via py::value_error).
[[noreturn]] void valueError(const std::string& message);

/// An image argument as a cv::Mat header over the array's memory (no copy): a C-contiguous
/// uint8 array of shape H×W (grey), H×W×1, H×W×3 (BGR) or, with allowBgra, H×W×4 (BGRA).
/// @throws TypeError for a non-array, ValueError naming `arg` for a wrong dtype, shape, empty
///   size or a non-C-contiguous array.
cv::Mat imageView(const py::handle& obj, const char* arg, bool allowBgra);

/// Keypoints argument: an N×3, N×4 or N×5 float array (x, y, scale[, angle[, response]]); any
/// real dtype, converted. A missing angle column is kNoAngle (computed, or none when upright).
/// @throws ValueError naming `arg` for another shape, a non-finite value or a scale ≤ 0.
std::vector<nft::detection::Keypoint> keypointsFrom(const py::handle& obj, const char* arg);
/// N×5 float32: x, y, scale, angle (degrees, −1 = none), response.
py::array_t<float> keypointsTo(const std::vector<nft::detection::Keypoint>& keypoints);

/// Descriptors argument: an N×D float32 array (D = 64 or 36), C-contiguous; other real dtypes
/// and layouts are converted (a copy). @throws ValueError naming `arg`.
cv::Mat descriptorsFrom(const py::handle& obj, const char* arg);

/// Copies a CV_32F / CV_64F / CV_8U matrix into a new NumPy array (rows × cols [× channels]).
py::array matToArray(const cv::Mat& m);
/// A 3×3 float64 array.
py::array_t<double> matxToArray(const cv::Matx33d& m);
/// A 3-vector as float64 shape (3,).
py::array_t<double> vecToArray(const cv::Vec3d& v);
/// Points as N×2 float64.
py::array_t<double> pointsToArray(const std::vector<cv::Point2f>& points);
/// Points argument: an N×2 array-like of (x, y) (a list of pairs, an N×2 array of any real
/// dtype, e.g. TargetResult.corners). @throws ValueError naming `arg` for another shape.
std::vector<cv::Point2f> pointsFrom(const py::handle& obj, const char* arg);

/// True for str and os.PathLike objects.
bool isPath(const py::handle& obj);
/// os.fspath(obj) as UTF-8.
std::string pathString(const py::handle& obj);
/// The path of `obj`; FileNotFoundError "<arg>: file '<path>' does not exist" when it does not.
std::string existingPath(const py::handle& obj, const char* arg);
/// Raises FileNotFoundError with `message`.
[[noreturn]] void fileNotFound(const std::string& message);

/// GL objects belong to the thread whose context made them: calls from any other thread raise
/// nft.GpuError (the GIL is released while C++ works, so two Python threads could otherwise use
/// one context at once). The mutex serialises calls that come from the owning thread anyway
/// (re-entrance through callbacks, a future relaxation of the rule).
class ThreadBound {
 public:
  ThreadBound() : owner_(std::this_thread::get_id()) {}
  /// @throws nft::GpuError naming `what` from another thread.
  void checkThread(const char* what) const;
  bool onOwnerThread() const { return std::this_thread::get_id() == owner_; }
  std::mutex& mutex() { return mutex_; }

 private:
  std::thread::id owner_;
  std::mutex mutex_;
};

}  // namespace nftpy
