#pragma once
// The GObject properties nfttrack and nftgloverlay share (TrackSettings, track_settings.h): their
// ids, their documented GParamSpecs (what gst-inspect-1.0 prints) and their get/set.

#include <gst/gst.h>

#include "gst/track_settings.h"

namespace nft::gst {

/// Property ids (GObject's: > 0). kPropDraw only where the element installs it.
enum TrackProperty : guint {
  kPropTarget = 1,
  kPropTargets,
  kPropWidthM,
  kPropConfig,
  kPropCalibration,
  kPropHfov,
  kPropDraw,
};

/// Installs target, targets, width-m, config, calibration, hfov (changeable in NULL and READY)
/// and, when `withDraw`, draw (changeable while playing) on `klass`.
void installTrackProperties(GObjectClass* klass, bool withDraw);

/// Sets property `id` of `s` from `value`. @return false for an id that is none of these.
bool setTrackProperty(TrackSettings& s, guint id, const GValue* value);

/// Gets property `id` of `s` into `value`. @return false for an id that is none of these.
bool getTrackProperty(const TrackSettings& s, guint id, GValue* value);

/// Posts `e` on the bus as `element`'s error (GST_RESOURCE_ERROR_NOT_FOUND for a missing file,
/// else GST_RESOURCE_ERROR_SETTINGS): the pipeline stops; gst-launch-1.0 prints it and exits 1.
void postPropertyError(GstElement* element, const PropertyError& e);

}  // namespace nft::gst
