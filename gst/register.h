#pragma once
// What loading the plugin registers: GstNftMeta's API type (so that applications find it by name,
// <nft/gst/meta.h>) and the elements nfttrack and nftgloverlay. plugin.cpp's entry point calls it;
// the tests call it with no plugin (static registration in the test process), as the plugin does.

#include <gst/gst.h>

G_BEGIN_DECLS

/// Registers the meta's API type and both elements with `plugin` (NULL: statically). @return FALSE
/// when an element could not be registered.
gboolean gst_nft_plugin_register(GstPlugin* plugin);

G_END_DECLS
