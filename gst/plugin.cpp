// libgstnft.so: the GStreamer plugin "nft" — nfttrack (nft_track.h), nftgloverlay
// (nft_gl_overlay.h) and GstNftMeta (register.h). Installed into lib/gstreamer-1.0 (Debian:
// /usr/lib/<multiarch>/gstreamer-1.0, where GStreamer looks); a build tree's or a prefix's is found
// through GST_PLUGIN_PATH.

#include <gst/gst.h>

#include "gst/register.h"

namespace {

gboolean pluginInit(GstPlugin* plugin) { return gst_nft_plugin_register(plugin); }

}  // namespace

#define PACKAGE "nft"
// The project states no licence yet: "unknown" is what GStreamer accepts for that.
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, nft,
                  "Natural-feature tracking of planar targets (nft::Session): nfttrack, nftgloverlay", pluginInit, NFT_VERSION_STRING,
                  GST_LICENSE_UNKNOWN, "nft", "https://invalid/nft")
