#include "session/frame_input.h"

#include <limits>

#include <opencv2/imgproc.hpp>

#include "nft/error.h"

namespace nft::session {
namespace {

bool isYuv420(PixelFormat f) { return f == PixelFormat::Nv21 || f == PixelFormat::Nv12 || f == PixelFormat::I420; }

int rowBytes(const ImageView& v) { return v.stride > 0 ? v.stride : v.width * bytesPerPixel(v.format); }

/// Bytes of one chroma row: NV21/NV12 interleave U and V over the full width, I420 has half.
int tightChromaBytes(const ImageView& v) { return v.format == PixelFormat::I420 ? v.width / 2 : v.width; }
int chromaRowBytes(const ImageView& v) { return v.chromaStride > 0 ? v.chromaStride : tightChromaBytes(v); }

/// The chroma planes: given, or after the Y plane (and I420's V after U).
const std::uint8_t* chromaPlane(const ImageView& v, int index) {
  if (v.chroma[0] != nullptr) return v.chroma[index];
  const std::uint8_t* first = v.data + static_cast<size_t>(rowBytes(v)) * static_cast<size_t>(v.height);
  return index == 0 ? first : first + static_cast<size_t>(chromaRowBytes(v)) * static_cast<size_t>(v.height / 2);
}

cv::Mat wrap(const std::uint8_t* data, int rows, int cols, int type, int stride) {
  return cv::Mat(rows, cols, type, const_cast<std::uint8_t*>(data), static_cast<size_t>(stride));
}

}  // namespace

ImageView viewOf(const cv::Mat& frame, const std::string& argument) {
  if (frame.empty()) throw InputError(argument + ": the frame is empty");
  ImageView v;
  switch (frame.type()) {
    case CV_8UC1: v.format = PixelFormat::Gray8; break;
    case CV_8UC3: v.format = PixelFormat::Bgr8; break;
    case CV_8UC4: v.format = PixelFormat::Bgra8; break;
    default:
      throw InputError(argument + ": frame type " + cv::typeToString(frame.type()) +
                       ": expected CV_8UC1 (grey), CV_8UC3 (BGR) or CV_8UC4 (BGRA)");
  }
  if (frame.step[0] > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw InputError(argument + ": row stride " + std::to_string(frame.step[0]) + " bytes is too large");
  v.data = frame.data;
  v.width = frame.cols;
  v.height = frame.rows;
  v.stride = static_cast<int>(frame.step[0]);
  return v;
}

void checkView(const ImageView& v, const std::string& argument) {
  const std::string format = toString(v.format);
  if (format == "?")
    throw InputError(argument + ": pixel format " + std::to_string(static_cast<int>(v.format)) +
                     " is unknown: expected gray8, rgba8, bgr8, bgra8, nv21, nv12, i420 or yuyv");
  if (v.data == nullptr) throw InputError(argument + ": data is a null pointer: expected the first row's pixels");
  if (v.width <= 0 || v.height <= 0)
    throw InputError(argument + ": size " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                     ": expected a width and height > 0");
  if (v.width > 1 << 16 || v.height > 1 << 16)
    throw InputError(argument + ": size " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                     ": expected at most 65536 pixels a side");
  if (isYuv420(v.format) && (v.width % 2 != 0 || v.height % 2 != 0))
    throw InputError(argument + ": size " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                     " is odd: " + format + " needs an even width and height");
  if ((v.format == PixelFormat::Yuyv) && v.width % 2 != 0)
    throw InputError(argument + ": width " + std::to_string(v.width) + " is odd: yuyv needs an even width");
  const int row = v.width * bytesPerPixel(v.format);
  if (v.stride != 0 && v.stride < row)
    throw InputError(argument + ": stride " + std::to_string(v.stride) + " is smaller than a row of " +
                     std::to_string(v.width) + " " + format + " pixels (" + std::to_string(row) +
                     " bytes): expected 0 (tightly packed) or at least " + std::to_string(row));
  if (isYuv420(v.format)) {
    if (v.chromaStride != 0 && v.chromaStride < tightChromaBytes(v))
      throw InputError(argument + ": chromaStride " + std::to_string(v.chromaStride) +
                       " is smaller than a chroma row of " + format + " (" + std::to_string(tightChromaBytes(v)) +
                       " bytes)");
    if (v.format == PixelFormat::I420 && (v.chroma[0] == nullptr) != (v.chroma[1] == nullptr))
      throw InputError(argument + ": i420 needs both chroma planes (U and V) or neither");
  }
}

cv::Mat trackableImage(const ImageView& v, cv::Mat& scratch) {
  const int stride = rowBytes(v);
  switch (v.format) {
    case PixelFormat::Gray8:
    case PixelFormat::Nv21:
    case PixelFormat::Nv12:
    case PixelFormat::I420: return wrap(v.data, v.height, v.width, CV_8UC1, stride);  // the luma plane, in place
    case PixelFormat::Bgr8: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC3, stride), scratch, cv::COLOR_BGR2GRAY); break;
    case PixelFormat::Rgba8: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC4, stride), scratch, cv::COLOR_RGBA2GRAY); break;
    case PixelFormat::Bgra8: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC4, stride), scratch, cv::COLOR_BGRA2GRAY); break;
    case PixelFormat::Yuyv: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC2, stride), scratch, cv::COLOR_YUV2GRAY_YUYV); break;
  }
  return scratch;
}

void toRgb(const ImageView& v, cv::Mat& rgb) {
  const int stride = rowBytes(v);
  switch (v.format) {
    case PixelFormat::Gray8: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC1, stride), rgb, cv::COLOR_GRAY2RGB); return;
    case PixelFormat::Bgr8: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC3, stride), rgb, cv::COLOR_BGR2RGB); return;
    case PixelFormat::Rgba8: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC4, stride), rgb, cv::COLOR_RGBA2RGB); return;
    case PixelFormat::Bgra8: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC4, stride), rgb, cv::COLOR_BGRA2RGB); return;
    case PixelFormat::Yuyv: cv::cvtColor(wrap(v.data, v.height, v.width, CV_8UC2, stride), rgb, cv::COLOR_YUV2RGB_YUYV); return;
    case PixelFormat::Nv21:
    case PixelFormat::Nv12: {
      const cv::Mat y = wrap(v.data, v.height, v.width, CV_8UC1, stride);
      const cv::Mat uv = wrap(chromaPlane(v, 0), v.height / 2, v.width / 2, CV_8UC2, chromaRowBytes(v));
      cv::cvtColorTwoPlane(y, uv, rgb, v.format == PixelFormat::Nv21 ? cv::COLOR_YUV2RGB_NV21 : cv::COLOR_YUV2RGB_NV12);
      return;
    }
    case PixelFormat::I420: {
      // OpenCV converts I420 from one tightly packed buffer: gather the planes (render only).
      cv::Mat packed(v.height * 3 / 2, v.width, CV_8UC1);
      wrap(v.data, v.height, v.width, CV_8UC1, stride).copyTo(packed.rowRange(0, v.height));
      const int half = v.width / 2, rows = v.height / 2;
      for (int plane = 0; plane < 2; ++plane) {
        const cv::Mat src = wrap(chromaPlane(v, plane), rows, half, CV_8UC1, chromaRowBytes(v));
        // Plane p fills rows/2 rows of `packed` of full width: the half-width rows two per row.
        cv::Mat dst(rows, half, CV_8UC1, packed.ptr(v.height) + static_cast<size_t>(plane) * rows * half, static_cast<size_t>(half));
        src.copyTo(dst);
      }
      cv::cvtColor(packed, rgb, cv::COLOR_YUV2RGB_I420);
      return;
    }
  }
}

}  // namespace nft::session
