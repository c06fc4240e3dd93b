#pragma once
// GstNftMeta: what nfttrack found in a buffer, attached to the buffer itself, for elements and
// pad probes downstream (the bus message "nft-result" carries the same for the application).
// A C layout, so that C code can read it too. The API type is registered by the plugin under the
// name "GstNftMetaAPI": code that does not link the plugin finds it with
// g_type_from_name("GstNftMetaAPI") once the plugin is loaded, and reads the structs below.

#include <gst/gst.h>

#include "nft/types.h"

G_BEGIN_DECLS

/// One target's outcome in one buffer (nft::TargetResult).
typedef struct {
  gint id;              ///< The Session's target id (≥ 1).
  gchar* name;          ///< The target's name (owned by the meta).
  const gchar* state;   ///< "detecting", "tracking" or "lost" (static strings).
  gboolean found;       ///< TRUE when corners, R and t hold for this buffer.
  gfloat corners[8];    ///< Frame pixels: ulx, uly, urx, ury, lrx, lry, llx, lly (0 when not found).
  gdouble R[9];         ///< Rotation target → camera, row by row (X_cam = R·X_target + t).
  gdouble t[3];         ///< Translation: metres when the target's width is known, else target pixels.
  gint inliers;         ///< Inliers of the lane that produced the result (matches or NCC patches).
} GstNftTargetMeta;

/// Every target entry of one processed frame (nft::FrameResult::targets).
typedef struct {
  GstMeta meta;               ///< The parent.
  guint64 frame;              ///< The Session's 0-based frame count.
  guint n_targets;            ///< Entries in `targets`.
  GstNftTargetMeta* targets;  ///< n_targets entries (owned by the meta).
} GstNftMeta;

/// The meta's API type ("GstNftMetaAPI").
GType gst_nft_meta_api_get_type(void);
/// The meta's implementation ("GstNftMeta"): copied with the buffer (its transform copies every entry).
const GstMetaInfo* gst_nft_meta_get_info(void);
/// The buffer's GstNftMeta, or NULL.
#define gst_buffer_get_nft_meta(b) ((GstNftMeta*)gst_buffer_get_meta((b), gst_nft_meta_api_get_type()))

G_END_DECLS

namespace nft::gst {
/// Adds a GstNftMeta holding `result`'s targets to a writable buffer. @return the meta.
GstNftMeta* addNftMeta(GstBuffer* buffer, const FrameResult& result);
}  // namespace nft::gst
