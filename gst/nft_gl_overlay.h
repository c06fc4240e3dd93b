#pragma once
// nftgloverlay: the tracking of nfttrack on GL memory (GstGLFilter, RGBA textures of GStreamer's
// own GL context, OpenGL ES 2.0 only). The Session adopts GStreamer's GstGLContext
// (SessionOptions::adoptCurrentContext) on the thread that context is current on, reads the frame
// it tracks back from the input texture (glReadPixels of RGBA: the luma is computed on the CPU),
// and draws the frame with the augmentations into the output texture with its own renderer
// (Session::render). Per buffer the same GstNftMeta and nft-result message as nfttrack. The same
// properties as nfttrack but draw (it always draws).

#include <gst/gl/gl.h>

G_BEGIN_DECLS

#define GST_TYPE_NFT_GL_OVERLAY (gst_nft_gl_overlay_get_type())
G_DECLARE_FINAL_TYPE(GstNftGlOverlay, gst_nft_gl_overlay, GST, NFT_GL_OVERLAY, GstGLFilter)

/// Registers "nftgloverlay" with `plugin` (NULL: for this process only).
gboolean gst_nft_gl_overlay_register(GstPlugin* plugin);

G_END_DECLS
