#pragma once
// Whether an element's frames come from a live source (a camera), which decides where the
// Session's search for targets runs (track_settings.h, resolveAsyncDetection).

#include <gst/base/gstbasetransform.h>

namespace nft::gst {

/// True when the source upstream of `element`'s sink pad is live: a latency query answered with
/// live = TRUE (v4l2src, libcamerasrc, `videotestsrc is-live=true`); false for a file, an appsrc
/// that is not live, or a query nobody answers. Call it from the streaming thread once data
/// flows (live sources answer in PLAYING).
bool upstreamIsLive(GstBaseTransform* element);

}  // namespace nft::gst
