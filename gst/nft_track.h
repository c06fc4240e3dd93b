#pragma once
// nfttrack: the GStreamer element that tracks planar targets in raw video in system memory
// (GstVideoFilter, in place). Each buffer goes through an nft::Session and out unchanged (or with
// the augmentations drawn, property draw), carrying a GstNftMeta (nft_meta.h) with every target
// entry; an element message "nft-result" (result_message.h) carries the same to the application.
// Formats: GRAY8, NV12, NV21, I420, YUY2, RGBA, BGRx, BGR (video_view.h; the luma plane of the
// YUV formats is tracked in place). Properties: track_settings.h. Threads: the Session, with its
// headless EGL context, is made on the streaming thread at the first buffer and freed there at
// EOS (or at stop, READY, when no EOS came).

#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_NFT_TRACK (gst_nft_track_get_type())
G_DECLARE_FINAL_TYPE(GstNftTrack, gst_nft_track, GST, NFT_TRACK, GstVideoFilter)

/// Registers "nfttrack" with `plugin` (NULL: for this process only, as tests do).
gboolean gst_nft_track_register(GstPlugin* plugin);

G_END_DECLS
