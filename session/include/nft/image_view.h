#pragma once
// ImageView: a camera frame as a camera API hands it out (Android's AImageReader, V4L2, a
// capture card), passed to Session::process() without a copy. The luma (grey) plane of the YUV
// formats is tracked in place: only colour rendering ever reads the chroma.

#include <cstdint>
#include <string>

namespace nft {

/// Pixel layouts of ImageView. Bytes per pixel of the first plane in brackets.
enum class PixelFormat {
  Gray8,  ///< "gray8": one grey byte per pixel [1].
  Rgba8,  ///< "rgba8": R, G, B, A bytes [4] (Android's AIMAGE_FORMAT_RGBA_8888).
  Bgr8,   ///< "bgr8": B, G, R bytes [3] (OpenCV's CV_8UC3).
  Bgra8,  ///< "bgra8": B, G, R, A bytes [4] (OpenCV's CV_8UC4).
  Nv21,   ///< "nv21": Y plane [1], then an interleaved V/U plane at half resolution (Android's
          ///< camera default).
  Nv12,   ///< "nv12": Y plane [1], then an interleaved U/V plane at half resolution.
  I420,   ///< "i420": Y plane [1], then U and V planes at half resolution (YUV_420_888 with
          ///< pixel stride 1).
  Yuyv,   ///< "yuyv": Y0 U Y1 V, 2 bytes per pixel [2] (V4L2_PIX_FMT_YUYV, webcams).
};

/// "gray8", "rgba8", "bgr8", "bgra8", "nv21", "nv12", "i420" or "yuyv".
std::string toString(PixelFormat format);

/// Bytes per pixel of the first plane: 1 (gray8, nv21, nv12, i420), 2 (yuyv), 3 (bgr8) or 4.
int bytesPerPixel(PixelFormat format);

/// A view of one frame in caller-owned memory: nothing is copied when it is made, and the
/// Session reads it only during the call it is passed to (process()) and, for the background
/// of render(), until the next process() — keep the memory valid until then, or render before
/// reusing the buffer.
///
/// Layout: `data` points at the first row of the first plane (Y for the YUV formats, the pixels
/// otherwise); row r starts at data + r·stride. Planar formats: the chroma planes are at
/// `chroma[0]` (NV21/NV12: the interleaved plane; I420: U) and `chroma[1]` (I420: V), each row
/// `chromaStride` bytes apart; when chroma[0] is null they follow the Y plane contiguously
/// (height rows of `stride` bytes; I420's V after U), as in a single NV21 buffer. YUV 4:2:0
/// formats need an even width and height.
struct ImageView {
  const std::uint8_t* data = nullptr;  ///< First row of the first plane.
  int width = 0;                       ///< Pixels, > 0.
  int height = 0;                      ///< Pixels (rows), > 0.
  /// Bytes from one row of the first plane to the next, ≥ width · bytesPerPixel(format);
  /// 0 means tightly packed (exactly width · bytesPerPixel).
  int stride = 0;
  PixelFormat format = PixelFormat::Gray8;  ///< Pixel layout of the planes.
  /// Chroma planes of NV21 / NV12 / I420 when they are not contiguous with the Y plane; see the
  /// class comment. Ignored for the other formats.
  const std::uint8_t* chroma[2] = {nullptr, nullptr};
  /// Bytes between chroma rows; 0 = tightly packed (width bytes for NV21/NV12, width / 2 for I420).
  int chromaStride = 0;
};

}  // namespace nft
