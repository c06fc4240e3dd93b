#ifndef NFT_GST_META_H
#define NFT_GST_META_H
/**
 * @file
 * GstNftMeta: what the GStreamer elements nfttrack and nftgloverlay (the plugin libgstnft.so)
 * found in a buffer, attached to that buffer, for a pad probe or an element downstream in the same
 * process. (An application in another process, or one that prefers messages, reads the same on
 * the bus: the element message "nft-result", docs/gstreamer.md.)
 *
 * Installed as `<prefix>/include/nft/gst/meta.h` with the plugin (Debian: gstreamer1.0-nft). It
 * needs GStreamer's headers only — no libnft, no link to the plugin:
 *
 *     cc app.c $(pkg-config --cflags --libs gstreamer-1.0) -I<prefix>/include
 *
 * (`-I/usr/include` is implied for Debian's package.) C and C++ alike.
 *
 * How to read it: in a pad probe downstream of the element (GST_PAD_PROBE_TYPE_BUFFER),
 *
 *     const GstNftMeta* meta = gst_buffer_get_nft_meta(GST_PAD_PROBE_INFO_BUFFER(info));
 *     for (guint i = 0; meta && i < meta->n_targets; ++i)
 *       if (meta->targets[i].found) use(meta->targets[i].corners, meta->targets[i].R, meta->targets[i].t);
 *
 * The meta's API type is registered by the plugin, under the name GST_NFT_META_API_NAME, when the
 * plugin is loaded (gst_element_factory_make("nfttrack", ...) or gst_parse_launch of a pipeline
 * naming it loads it); this header finds it by that name, so the app needs no symbol of the
 * plugin. Before the plugin is loaded gst_buffer_get_nft_meta() returns NULL.
 *
 * Lifetime: the meta and everything it points to belong to the buffer. They are valid while the
 * buffer is (in a probe: until the probe returns, unless it takes a reference to the buffer);
 * copy what is kept beyond that. A copy of the buffer (gst_buffer_copy, make_writable) gets a deep
 * copy of the meta. Elements that change the frame's geometry (videoscale, videocrop...) keep the
 * meta unchanged: its corners then still refer to the frame the nft element saw. The `state`
 * strings are static strings of the plugin (GStreamer never unloads a plugin).
 *
 * Geometry (that of nft::TargetResult and nft::Pose, <nft/types.h>): corners in pixels of the
 * frame the element processed, x to the right, y down (OpenCV's image coordinates); the target's
 * points are target-image pixels (x along its width, y down its height, z = 0 on the target),
 * scaled to metres when its physical width is known; the camera frame is OpenCV's (x right, y
 * down, z forward along the optical axis), so t[2] > 0 for a target in front of the camera.
 */

#include <gst/gst.h>

G_BEGIN_DECLS

/** The name under which the plugin registers the meta's API type (g_type_from_name). */
#define GST_NFT_META_API_NAME "GstNftMetaAPI"

/** One target's outcome in one buffer (nft::TargetResult). */
typedef struct {
  /** The element's Session's target id (≥ 1): the order of the targets of the properties
   *  `target` and `targets`. */
  gint id;
  /** The target's name (its file name, or its name in the .nftdb); owned by the meta, UTF-8. */
  gchar* name;
  /** "detecting", "tracking" or "lost": the lane that produced this result (nft::TrackingState;
   *  static strings). */
  const gchar* state;
  /** TRUE when `corners`, `R` and `t` hold the target's pose in this buffer; FALSE: all zero. */
  gboolean found;
  /** The target's corners in the frame, in pixels, in the order upper left, upper right, lower
   *  right, lower left of the target image, x then y of each: ulx, uly, urx, ury, lrx, lry, llx,
   *  lly. */
  gfloat corners[8];
  /** Rotation from the target's frame to the camera's, a 3×3 matrix row by row (row-major:
   *  R[3*row + column]); X_camera = R · X_target + t. */
  gdouble R[9];
  /** Translation of the same transform, x y z: in metres when the target's physical width is
   *  known (property `width-m`, or the .nftdb's), else in target-image pixels. */
  gdouble t[3];
  /** Inliers of the lane that produced the result: descriptor matches (detection) or NCC patches
   *  (tracking). */
  gint inliers;
} GstNftTargetMeta;

/** Every target of one processed buffer (nft::FrameResult::targets), found or not. */
typedef struct {
  /** The parent GstMeta. */
  GstMeta meta;
  /** The element's Session's frame count, from 0 at the first buffer after the element started
   *  (the "frame" field of the nft-result message of the same buffer). */
  guint64 frame;
  /** The number of entries in `targets`: every target the element tracks, found or not. */
  guint n_targets;
  /** `n_targets` entries in the order of the target ids; owned by the meta. */
  GstNftTargetMeta* targets;
} GstNftMeta;

/**
 * The meta's API type, found by its name: 0 while the plugin libgstnft.so is not loaded.
 * Cheap after the first call (GLib's type table).
 */
static inline GType gst_nft_meta_api_type(void) {
  return g_type_from_name(GST_NFT_META_API_NAME);
}

/**
 * The GstNftMeta that nfttrack or nftgloverlay attached to `buffer`; NULL when the buffer carries
 * none (it did not pass through one of them, or the plugin is not loaded). Owned by the buffer
 * (see the lifetime above).
 */
static inline GstNftMeta* gst_buffer_get_nft_meta(GstBuffer* buffer) {
  const GType api = gst_nft_meta_api_type();
  return api == 0 ? NULL : (GstNftMeta*)gst_buffer_get_meta(buffer, api);
}

G_END_DECLS

#endif /* NFT_GST_META_H */
