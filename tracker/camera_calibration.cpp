#include "tracker/camera_calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace nft::tracker {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("calibration file '" + path + "': " + what);
}

// The first of `names` present in `fs`, with the name found; an empty node if none is.
cv::FileNode findKey(const cv::FileStorage& fs, std::initializer_list<const char*> names, std::string& found) {
  for (const char* name : names) {
    cv::FileNode node = fs[name];
    if (!node.empty() && !node.isNone()) {
      found = name;
      return node;
    }
  }
  return {};
}

// Reads a numeric matrix (an opencv-matrix node) as CV_64F; fails naming `key` otherwise.
cv::Mat readMatrix(const cv::FileNode& node, const std::string& key, const std::string& path) {
  if (!node.isMap()) fail(path, "key '" + key + "' is not a matrix (expected an opencv-matrix)");
  // The size is checked before OpenCV allocates it: a corrupt `cols` would otherwise ask for
  // gigabytes (found by tests/fuzz/calibration_fuzzer.cpp). Every matrix here is at most 14 long.
  const cv::FileNode rows = node["rows"], cols = node["cols"];
  if (!rows.isInt() || !cols.isInt()) fail(path, "key '" + key + "' has no integer rows and cols");
  if (static_cast<int>(rows) < 1 || static_cast<int>(cols) < 1 || static_cast<int>(rows) > 16 ||
      static_cast<int>(cols) > 16)
    fail(path, "key '" + key + "' is " + std::to_string(static_cast<int>(rows)) + "x" +
                   std::to_string(static_cast<int>(cols)) + " (expected at most 16x16)");
  cv::Mat m;
  try {
    node >> m;
  } catch (const cv::Exception& e) {
    fail(path, "key '" + key + "' is not a numeric matrix (" + e.err + ")");
  }
  if (m.empty()) fail(path, "key '" + key + "' is not a numeric matrix");
  if (m.channels() != 1) fail(path, "key '" + key + "' has more than one channel");
  cv::Mat d;
  m.convertTo(d, CV_64F);
  if (!cv::checkRange(d, true, nullptr, -1e300, 1e300)) fail(path, "key '" + key + "' holds a NaN or infinity");
  return d;
}

int readPositiveInt(const cv::FileStorage& fs, const char* key, const std::string& path) {
  const cv::FileNode node = fs[key];
  if (node.empty() || node.isNone()) fail(path, std::string("missing key '") + key + "'");
  if (!node.isInt()) fail(path, std::string("key '") + key + "' is not an integer");
  const int value = static_cast<int>(node);
  if (value <= 0) fail(path, std::string("key '") + key + "' must be positive, got " + std::to_string(value));
  return value;
}

void validateK(const cv::Matx33d& K, const std::string& key, const std::string& path) {
  const double scale = std::max({std::abs(K(0, 0)), std::abs(K(1, 1)), std::abs(K(0, 2)), std::abs(K(1, 2)), 1.0});
  if (std::abs(cv::determinant(K)) <= 1e-12 * scale * scale) fail(path, "key '" + key + "' is singular");
  if (!(K(0, 0) > 0.0) || !(K(1, 1) > 0.0)) {
    fail(path, "key '" + key + "' has a non-positive focal length (fx = " + std::to_string(K(0, 0)) +
                   ", fy = " + std::to_string(K(1, 1)) + ")");
  }
  if (K(1, 0) != 0.0 || K(2, 0) != 0.0 || K(2, 1) != 0.0 || K(2, 2) != 1.0) {
    fail(path, "key '" + key + "' is not an intrinsic matrix (expected rows [fx s cx; 0 fy cy; 0 0 1])");
  }
}

// OpenCV 4.6's XML parser (Debian 12) reads through a null pointer, crashing the process, when
// an XML file ends right after an attribute's '=' (e.g. `<?xml version=`, found by
// tests/fuzz/calibration_fuzzer.cpp): after the '=' it skips blanks across lines, reaches the
// end and dereferences the null "next line". A line that starts with a NUL byte reads to it as
// the end too. Both are refused here, before OpenCV sees the file: a NUL byte anywhere (XML
// does not allow the character), and a last non-blank byte '=' (a truncated file). A file that
// cannot be read is left to OpenCV, which names it. OpenCV tells XML by the content (after an
// optional UTF-8 byte-order mark), not by the extension, and so does this check.
void refuseXmlThatCrashesOpenCv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  if (text.compare(start, 5, "<?xml") != 0) return;
  if (text.find('\0') != std::string::npos) {
    fail(path, "cannot be parsed (the XML holds a NUL byte, a character XML does not allow)");
  }
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  if (last != std::string::npos && text[last] == '=') {
    fail(path, "cannot be parsed (the XML ends right after an attribute's '='; the file is truncated)");
  }
}

// cv::FileStorage::open on a worker thread, waited for at most `deadline`. OpenCV 4.6's YAML
// parser (Debian 12) never returns on some malformed files (found by
// tests/fuzz/calibration_fuzzer.cpp; tests/fuzz/known-hangs/): rather than hang the caller, the
// load fails with a message after the deadline. The stuck thread cannot be stopped: it is
// detached and keeps its core busy until the process ends (the apps exit on the error).
// Returns the open storage, or null if open() returned false; rethrows what open() threw.
// (The storage lives in the state shared with the worker: cv::FileNode points into it.)
struct ParseState {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  bool opened = false;
  std::exception_ptr error;
  cv::FileStorage fs;
};

std::shared_ptr<ParseState> openWithDeadline(const std::string& path, std::chrono::milliseconds deadline) {
  using Shared = ParseState;
  auto shared = std::make_shared<Shared>();
#ifdef __EMSCRIPTEN__
  // The web build has no threads (a browser page without cross-origin isolation cannot share
  // memory): the file is parsed on the calling thread, without the deadline.
  (void)deadline;
  shared->opened = shared->fs.open(path, cv::FileStorage::READ);
  shared->done = true;
  return shared->opened ? shared : nullptr;
#else
  std::thread([shared, path] {
    bool opened = false;
    std::exception_ptr error;
    try {
      opened = shared->fs.open(path, cv::FileStorage::READ);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->done = true;
    shared->opened = opened;
    shared->error = error;
    shared->finished.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->mutex);
  if (!shared->finished.wait_for(lock, deadline, [&] { return shared->done; })) {
    fail(path, "OpenCV's parser did not finish within " + std::to_string(deadline.count()) +
                   " ms (OpenCV 4.6 never returns on some malformed files)");
  }
  if (shared->error) std::rethrow_exception(shared->error);
  return shared->opened ? shared : nullptr;
#endif
}

}  // namespace

CameraCalibration loadCalibration(const std::string& path, std::chrono::milliseconds parseDeadline) {
  if (parseDeadline.count() <= 0) {
    throw std::invalid_argument("loadCalibration: parseDeadline must be positive, got " +
                                std::to_string(parseDeadline.count()) + " ms");
  }
  std::shared_ptr<ParseState> parsed;
  refuseXmlThatCrashesOpenCv(path);
  try {
    parsed = openWithDeadline(path, parseDeadline);
    if (!parsed) fail(path, "cannot be opened");
  } catch (const cv::Exception& e) {
    fail(path, "cannot be parsed (" + e.err + ")");
  } catch (const std::runtime_error&) {
    throw;  // ours
  } catch (const std::exception& e) {
    // OpenCV's parser lets some standard exceptions through, e.g. std::length_error for a key
    // such as ":dt f" (found by tests/fuzz/calibration_fuzzer.cpp).
    fail(path, std::string("cannot be parsed (") + e.what() + ")");
  }
  const cv::FileStorage& fs = parsed->fs;
  CameraCalibration c;
  c.source = path;
  // OpenCV asserts (cv::Exception) where the file's structure is not what a lookup expects, e.g.
  // a top level that is not a map (found by tests/fuzz/calibration_fuzzer.cpp): named as a file
  // that cannot be parsed, like the other errors.
  try {
    std::string kKey;
    const cv::FileNode kNode = findKey(fs, {"camera_matrix", "cameraMatrix"}, kKey);
    if (kNode.empty()) fail(path, "missing key 'camera_matrix' (or 'cameraMatrix')");
    const cv::Mat k = readMatrix(kNode, kKey, path);
    if (k.rows != 3 || k.cols != 3) {
      fail(path, "key '" + kKey + "' must be 3x3, got " + std::to_string(k.rows) + "x" + std::to_string(k.cols));
    }
    c.K = cv::Matx33d(k);
    validateK(c.K, kKey, path);

    std::string dKey;
    const cv::FileNode dNode = findKey(fs, {"distortion_coefficients", "distCoeffs"}, dKey);
    if (!dNode.empty()) {
      const cv::Mat d = readMatrix(dNode, dKey, path);
      if (d.rows != 1 && d.cols != 1) fail(path, "key '" + dKey + "' must be a row or a column");
      const int n = static_cast<int>(d.total());
      if (n != 4 && n != 5 && n != 8 && n != 12 && n != 14) {
        fail(path, "key '" + dKey + "' must hold 4, 5, 8, 12 or 14 coefficients, got " + std::to_string(n));
      }
      c.distortion = d.reshape(1, 1).clone();
    }

    c.imageSize.width = readPositiveInt(fs, "image_width", path);
    c.imageSize.height = readPositiveInt(fs, "image_height", path);
  } catch (const cv::Exception& e) {
    fail(path, "unexpected structure (" + e.err + ")");
  }
  return c;
}

CameraCalibration defaultCalibration(cv::Size imageSize) {
  if (imageSize.width <= 0 || imageSize.height <= 0) {
    throw std::invalid_argument("defaultCalibration: image size must be positive");
  }
  const double halfFov = kDefaultHorizontalFovDegrees * 0.5 * CV_PI / 180.0;
  const double f = 0.5 * imageSize.width / std::tan(halfFov);
  CameraCalibration c;
  c.K = cv::Matx33d(f, 0.0, 0.5 * (imageSize.width - 1), 0.0, f, 0.5 * (imageSize.height - 1), 0.0, 0.0, 1.0);
  c.imageSize = imageSize;
  c.source = "default (" + std::to_string(static_cast<int>(kDefaultHorizontalFovDegrees)) +
             " deg horizontal field of view, principal point at the centre, no distortion)";
  return c;
}

CameraCalibration scaledTo(const CameraCalibration& calibration, cv::Size frameSize) {
  const cv::Size from = calibration.imageSize;
  if (from.width <= 0 || from.height <= 0 || frameSize.width <= 0 || frameSize.height <= 0) {
    throw std::invalid_argument("scaledTo: image sizes must be positive");
  }
  const double sx = static_cast<double>(frameSize.width) / from.width;
  const double sy = static_cast<double>(frameSize.height) / from.height;
  CameraCalibration c = calibration;
  c.K(0, 0) *= sx;
  c.K(0, 1) *= sx;
  c.K(1, 1) *= sy;
  c.K(0, 2) = (calibration.K(0, 2) + 0.5) * sx - 0.5;
  c.K(1, 2) = (calibration.K(1, 2) + 0.5) * sy - 0.5;
  c.distortion = calibration.distortion.clone();
  c.imageSize = frameSize;
  return c;
}

}  // namespace nft::tracker
