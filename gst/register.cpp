#include "gst/register.h"

#include "gst/nft_gl_overlay.h"
#include "gst/nft_meta.h"
#include "gst/nft_track.h"

gboolean gst_nft_plugin_register(GstPlugin* plugin) {
  // The meta's API type exists from the plugin's loading on: an application's pad probe finds it
  // by name (<nft/gst/meta.h>) before the first buffer too.
  gst_nft_meta_api_get_type();
  return gst_nft_track_register(plugin) && gst_nft_gl_overlay_register(plugin);
}
