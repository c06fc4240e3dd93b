// The Python module nft: the public API of libnft (nft::Session and its types) and the detection
// lane's pieces, with NumPy arrays in and out (issue 24). This file: the module, its exceptions
// and their translation; session_bindings.cpp and detection_bindings.cpp bind the classes.

#include <pybind11/pybind11.h>

#include <stdexcept>

#include <opencv2/core.hpp>

#include "config/config_error.h"
#include "gpu/gpu_error.h"
#include "nft/error.h"
#include "nft/version.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace {

// The exception classes, made once at import (leaked: they live as long as the interpreter).
PyObject* errorClass = nullptr;
PyObject* configErrorClass = nullptr;
PyObject* inputErrorClass = nullptr;
PyObject* gpuErrorClass = nullptr;

PyObject* makeClass(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  py::dict ns;
  ns["__doc__"] = doc;
  ns["__module__"] = "nft";
  py::object cls = py::module_::import("builtins").attr("type")(name, bases, ns);
  m.attr(name) = cls;
  return cls.release().ptr();
}

void raise(PyObject* cls, const char* message) { PyErr_SetString(cls, message); }

void raiseConfig(const std::string& message, const std::string& source, int line, const std::string& keyPath) {
  py::object exc = py::reinterpret_borrow<py::object>(configErrorClass)(message);
  exc.attr("source") = source;
  exc.attr("line") = line;
  exc.attr("key_path") = keyPath;
  PyErr_SetObject(configErrorClass, exc.ptr());
}

}  // namespace

PYBIND11_MODULE(nft, m) {
  m.doc() = R"doc(Natural-feature tracking for augmented reality, from Python (libnft's public API).

Find a planar target (book cover, poster) in camera frames, follow it, and get the camera's
6-DoF pose — the pipeline of nft::Session (C++ header nft/session.h): scale-aware FAST, SURF-ES
descriptors and matching on the GPU through OpenGL ES 2.0 (Hofmann 2012, "SURF-ES"), RANSAC,
planar PnP; NCC patch tracking after Wagner et al., IEEE TVCG 16(3), 2010.

    import cv2, nft
    session = nft.Session()                        # defaults; or Session("my.yaml"), Session({...})
    session.add_target("cover.jpg", "book", 0.185) # width in metres
    video = cv2.VideoCapture("book.mp4")
    while True:
        ok, frame = video.read()                   # H×W×3 uint8 BGR
        if not ok: break
        r = session.process(frame)
        t = r.targets[0]
        if t.found: print(t.corners, t.tvec)      # 4×2 pixels, (3,) metres

Arrays: frames and images are NumPy uint8, H×W (grey) or H×W×3 (BGR, as cv2 gives), C-contiguous
(passed without a copy); matrices and points come back as float64 arrays, descriptors as float32.
Pixels follow OpenCV: the centre of pixel (i, j) is at (i, j), x right, y down.

Threads: every object that holds GL state (Session, GpuContext, SurfEs, GpuMatcher) belongs to the
thread that created it; calling it from another raises nft.GpuError. The GIL is released while
C++ works, so other Python threads run meanwhile (use one Session per thread for parallel work).

Errors: nft.Error and its subclasses (ConfigError, InputError — also ValueError —, GpuError — also
RuntimeError —), ValueError / TypeError for malformed arrays, FileNotFoundError for missing files;
every message names the argument and what was expected.)doc";

  errorClass = makeClass(m, "Error", py::make_tuple(py::handle(PyExc_Exception)),
                         "Base of every error the nft library reports (C++ nft::Error).");
  configErrorClass = makeClass(
      m, "ConfigError", py::make_tuple(py::handle(errorClass), py::handle(PyExc_ValueError)),
      "A configuration that cannot be read, parsed, validated or run (C++ nft::ConfigError). Attributes: "
      "source (file name or '<dict>'), line (1-based, 0 when unknown), key_path (e.g. 'tracking.min_ncc').");
  inputErrorClass = makeClass(m, "InputError", py::make_tuple(py::handle(errorClass), py::handle(PyExc_ValueError)),
                              "A bad argument: a frame, an image, a target file, an unknown target id, a call the "
                              "Session's state does not allow yet (C++ nft::InputError).");
  gpuErrorClass = makeClass(m, "GpuError", py::make_tuple(py::handle(errorClass), py::handle(PyExc_RuntimeError)),
                            "The GPU side failed: no EGL/OpenGL ES 2.0 context, a shader the driver refuses, a GL "
                            "error, or a call from another thread than the object's (C++ nft::GpuError).");

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const nft::ConfigError& e) {
      raiseConfig(e.what(), e.source(), e.line(), e.keyPath());
    } catch (const nft::config::ConfigError& e) {
      raiseConfig(e.what(), e.source(), e.line(), e.keyPath());
    } catch (const nft::InputError& e) {
      raise(inputErrorClass, e.what());
    } catch (const nft::GpuError& e) {
      raise(gpuErrorClass, e.what());
    } catch (const nft::gpu::GpuError& e) {
      raise(gpuErrorClass, e.what());
    } catch (const nft::Error& e) {
      raise(errorClass, e.what());
    } catch (const cv::Exception& e) {
      raise(errorClass, (std::string("OpenCV: ") + e.what()).c_str());
    }
  });

  m.attr("__version__") = nft::version();

  nftpy::bindGeometry(m);
  nftpy::bindSession(m);
  nftpy::bindDetection(m);
}
