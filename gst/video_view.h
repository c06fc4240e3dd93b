#pragma once
// GStreamer raw video (system memory) → nft::ImageView: the formats nfttrack takes and the view of
// a mapped frame's planes, in place (no copy of the luma plane or of anything else).

#include <gst/video/video.h>

#include <optional>

#include "nft/image_view.h"

namespace nft::gst {

/// The GStreamer formats nfttrack takes, as a caps format list ("{ GRAY8, NV12, ... }"), in the
/// order it prefers them (those whose luma plane is tracked in place first).
const char* supportedFormatsCaps();

/// The nft::PixelFormat of a GStreamer raw video format: GRAY8 → Gray8, NV12 → Nv12, NV21 → Nv21,
/// I420 → I420, YUY2 → Yuyv, RGBA → Rgba8, BGRx → Bgra8 (the padding byte read as alpha, which
/// tracking ignores), BGR → Bgr8; std::nullopt for every other format.
std::optional<PixelFormat> pixelFormatOf(GstVideoFormat format);

/// True for the YUV 4:2:0 formats (NV12, NV21, I420), whose width and height must be even.
bool isYuv420(GstVideoFormat format);

/// A view of a mapped frame (gst_video_frame_map) of a format pixelFormatOf() knows: `data` and
/// `stride` of plane 0, the chroma planes of NV12/NV21 (plane 1) and I420 (planes 1 and 2) with
/// their stride. Valid while the frame stays mapped.
/// @throws nft::InputError naming the format when pixelFormatOf() does not know it.
ImageView imageViewOf(const GstVideoFrame& frame);

}  // namespace nft::gst
