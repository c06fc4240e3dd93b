#pragma once
// The bus message of nfttrack: one element message per buffer, whose structure is named
// "nft-result" (the convention of gst-plugins-bad's OpenCV elements, e.g. facedetect's "facedetect").

#include <gst/gst.h>

#include "nft/types.h"

namespace nft::gst {

/// The structure name of nfttrack's element messages.
inline constexpr const char* kResultStructureName = "nft-result";

/// The "nft-result" structure of one processed frame. Fields, in this order:
///   frame (guint64)       the Session's 0-based frame count (FrameResult::frame; nft_replay's
///                         CSV column `frame`);
///   timestamp (guint64)   the buffer's presentation time, ns (GST_CLOCK_TIME_NONE when it had none);
///   found (gint)          how many targets were found in this buffer;
///   targets (gint)        how many target entries follow (FrameResult::targets: with one
///                         target, that target every frame; with several, the found and the
///                         lost ones);
///   process-ms (gdouble)  the Session's time for the frame, milliseconds (FrameTimings::total);
///   element-ms (gdouble)  nfttrack's time for the buffer up to this message, milliseconds: the
///                         Session's, the mapping, the drawing and the meta (its overhead is
///                         element-ms − process-ms; the first buffer's also holds the Session's
///                         making and the targets' training);
///   search-in-flight (gboolean)  a search for targets runs on the Session's worker
///                         (FrameResult::searchInFlight: its result comes with a later buffer);
/// then for each entry i = 0 .. targets − 1, fields named "target<i>-<field>":
///   id (gint), name (string), state (string: "detecting", "tracking" or "lost"),
///   found (gboolean), inliers (gint), reproj-px (gdouble, pixels),
///   and when found: the corners in frame pixels ulx, uly, urx, ury, lrx, lry, llx, lly
///   (gdouble; upper left, upper right, lower right, lower left: the target image's (0,0), (w,0),
///   (w,h), (0,h)), the pose X_cam = R·X_target + t as r00 … r22 (gdouble, R row by row), rx, ry,
///   rz (gdouble, R as a rotation vector, radians) and tx, ty, tz (gdouble: metres when the
///   target's width is known, else target pixels).
/// @param pts the buffer's presentation time, or GST_CLOCK_TIME_NONE.
/// @param elementMs the element's time for the buffer so far, milliseconds.
/// @return a new structure the caller owns (gst_message_new_element takes it).
GstStructure* resultStructure(const FrameResult& result, GstClockTime pts, double elementMs);

}  // namespace nft::gst
