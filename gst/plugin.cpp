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
// NFT_GST_LICENSE: the project's licence as GStreamer names it, from CMake's NFT_GST_LICENSE
// (gst/CMakeLists.txt: "unknown" while the project states none).
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, nft,
                  "Natural-feature tracking of planar targets (nft::Session): nfttrack, nftgloverlay", pluginInit, NFT_VERSION_STRING,
                  NFT_GST_LICENSE, "nft", "https://invalid/nft")
