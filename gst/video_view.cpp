#include "gst/video_view.h"

#include <string>

#include "nft/error.h"

namespace nft::gst {

const char* supportedFormatsCaps() { return "{ GRAY8, NV12, NV21, I420, YUY2, RGBA, BGRx, BGR }"; }

std::optional<PixelFormat> pixelFormatOf(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_GRAY8: return PixelFormat::Gray8;
    case GST_VIDEO_FORMAT_NV12: return PixelFormat::Nv12;
    case GST_VIDEO_FORMAT_NV21: return PixelFormat::Nv21;
    case GST_VIDEO_FORMAT_I420: return PixelFormat::I420;
    case GST_VIDEO_FORMAT_YUY2: return PixelFormat::Yuyv;
    case GST_VIDEO_FORMAT_RGBA: return PixelFormat::Rgba8;
    case GST_VIDEO_FORMAT_BGRx: return PixelFormat::Bgra8;
    case GST_VIDEO_FORMAT_BGR: return PixelFormat::Bgr8;
    default: return std::nullopt;
  }
}

bool isYuv420(GstVideoFormat format) {
  return format == GST_VIDEO_FORMAT_NV12 || format == GST_VIDEO_FORMAT_NV21 || format == GST_VIDEO_FORMAT_I420;
}

ImageView imageViewOf(const GstVideoFrame& frame) {
  const GstVideoFormat format = GST_VIDEO_FRAME_FORMAT(&frame);
  const std::optional<PixelFormat> pixelFormat = pixelFormatOf(format);
  if (!pixelFormat)
    throw InputError(std::string("video format ") + gst_video_format_to_string(format) + " is not one nfttrack takes " +
                     supportedFormatsCaps());
  ImageView view;
  view.format = *pixelFormat;
  view.width = GST_VIDEO_FRAME_WIDTH(&frame);
  view.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  view.data = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
  view.stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
  if (isYuv420(format)) {
    view.chroma[0] = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 1));
    if (format == GST_VIDEO_FORMAT_I420)
      view.chroma[1] = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 2));
    view.chromaStride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 1);
  }
  return view;
}

}  // namespace nft::gst
