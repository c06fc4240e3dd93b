#pragma once
// nftgloverlay: the tracking of nfttrack on GL memory (GstGLFilter, RGBA textures of GStreamer's
// own GL context, OpenGL ES 2.0 only). The Session adopts GStreamer's GstGLContext
// (SessionOptions::adoptCurrentContext) on the thread that context is current on, reads the frame
// it tracks from the input texture, and draws the frame with the augmentations into the output
// texture with its own renderer (Session::render). Two ways to read the frame (property gpu-luma):
// false (the default, faster on the machines measured: docs/gstreamer.md), the RGBA frame read back
// (glReadPixels) and turned grey on the CPU by the Session; true, the luma computed on the GPU
// (gl_luma_pass.h, OpenCV's RGBA→GRAY bit for bit) and a quarter of the bytes read back as GRAY8,
// the input's colour then put back under the augmentations (gl_colour_background.h). The same
// poses either way. Per buffer the same GstNftMeta and nft-result message as nfttrack. The same
// properties as nfttrack but draw (it always draws), and gpu-luma.

#include <gst/gl/gl.h>

G_BEGIN_DECLS

#define GST_TYPE_NFT_GL_OVERLAY (gst_nft_gl_overlay_get_type())
G_DECLARE_FINAL_TYPE(GstNftGlOverlay, gst_nft_gl_overlay, GST, NFT_GL_OVERLAY, GstGLFilter)

/// Registers "nftgloverlay" with `plugin` (NULL: for this process only).
gboolean gst_nft_gl_overlay_register(GstPlugin* plugin);

G_END_DECLS
