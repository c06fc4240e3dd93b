#pragma once
// GstNftMeta inside the plugin: its registration and how nfttrack and nftgloverlay fill it. The
// structs, and the way an application reads them, are public: <nft/gst/meta.h>
// (gst/include/nft/gst/meta.h, installed with the plugin).

#include <gst/gst.h>

#include "nft/gst/meta.h"
#include "nft/types.h"

G_BEGIN_DECLS

/// Registers (once) and returns the meta's API type, named GST_NFT_META_API_NAME. The plugin
/// calls it when it is loaded, so that applications find the type by its name from then on.
GType gst_nft_meta_api_get_type(void);
/// The meta's implementation ("GstNftMeta"): copied with the buffer (its transform copies every entry).
const GstMetaInfo* gst_nft_meta_get_info(void);

G_END_DECLS

namespace nft::gst {
/// Adds a GstNftMeta holding `result`'s targets to a writable buffer. @return the meta.
GstNftMeta* addNftMeta(GstBuffer* buffer, const FrameResult& result);
}  // namespace nft::gst
