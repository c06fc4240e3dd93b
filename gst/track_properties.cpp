#include "gst/track_properties.h"

#include <string>

namespace nft::gst {

void installTrackProperties(GObjectClass* object, bool withDraw) {
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  g_object_class_install_property(
      object, kPropTarget,
      g_param_spec_string("target", "Target",
                          "The target to track: an image (PNG, JPEG...; trained when the first buffer arrives, "
                          "seconds on a software GPU) or a model made by nft_train (.nftm). Read at start",
                          "", flags));
  g_object_class_install_property(
      object, kPropTargets,
      g_param_spec_string("targets", "Target database",
                          "A target database made by nft_train --database (.nftdb): every target in it is looked "
                          "for (with target, both). Read at start",
                          "", flags));
  g_object_class_install_property(
      object, kPropWidthM,
      g_param_spec_double("width-m", "Target width",
                          "The printed width of `target`, metres: the poses' translation is then in metres. "
                          "0 = the model's width (.nftm) or the config's target.width_m",
                          0.0, 1000.0, 0.0, flags));
  g_object_class_install_property(
      object, kPropConfig,
      g_param_spec_string("config", "Configuration",
                          "A YAML configuration file, any subset of the keys of /usr/share/nft/config/default.yaml; "
                          "empty = the defaults. Read at start",
                          "", flags));
  g_object_class_install_property(
      object, kPropCalibration,
      g_param_spec_string("calibration", "Camera calibration",
                          "An OpenCV camera calibration file (YAML/XML/JSON: camera_matrix, distortion_coefficients, "
                          "image_width, image_height), scaled to the caps' size; empty = the config's camera "
                          "section, else intrinsics from the caps' size and hfov",
                          "", flags));
  g_object_class_install_property(
      object, kPropHfov,
      g_param_spec_double("hfov", "Horizontal field of view",
                          "Without a calibration: the camera's horizontal field of view, degrees, from which "
                          "the intrinsics are made at the caps' size; 0 = the config's camera.hfov_deg (60)",
                          0.0, 179.0, 0.0, flags));
  if (withDraw)
    g_object_class_install_property(
        object, kPropDraw,
        g_param_spec_boolean("draw", "Draw",
                             "Draw each found target's outline, axes and (flat targets) a box into the passing frame (else the "
                             "frame passes unchanged and unmapped for writing)",
                             FALSE, static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                             GST_PARAM_MUTABLE_PLAYING)));
}

void postPropertyError(GstElement* element, const PropertyError& e) {
  if (e.notFound())
    GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("%s", e.what()), (nullptr));
  else
    GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("%s", e.what()), (nullptr));
}

bool setTrackProperty(TrackSettings& s, guint id, const GValue* value) {
  const auto text = [&] {
    const gchar* v = g_value_get_string(value);
    return std::string(v != nullptr ? v : "");
  };
  switch (id) {
    case kPropTarget: s.target = text(); return true;
    case kPropTargets: s.targets = text(); return true;
    case kPropWidthM: s.widthMetres = g_value_get_double(value); return true;
    case kPropConfig: s.config = text(); return true;
    case kPropCalibration: s.calibration = text(); return true;
    case kPropHfov: s.hfovDeg = g_value_get_double(value); return true;
    case kPropDraw: s.draw = g_value_get_boolean(value); return true;
    default: return false;
  }
}

bool getTrackProperty(const TrackSettings& s, guint id, GValue* value) {
  switch (id) {
    case kPropTarget: g_value_set_string(value, s.target.c_str()); return true;
    case kPropTargets: g_value_set_string(value, s.targets.c_str()); return true;
    case kPropWidthM: g_value_set_double(value, s.widthMetres); return true;
    case kPropConfig: g_value_set_string(value, s.config.c_str()); return true;
    case kPropCalibration: g_value_set_string(value, s.calibration.c_str()); return true;
    case kPropHfov: g_value_set_double(value, s.hfovDeg); return true;
    case kPropDraw: g_value_set_boolean(value, s.draw); return true;
    default: return false;
  }
}

}  // namespace nft::gst
