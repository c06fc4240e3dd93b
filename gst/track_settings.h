#pragma once
// nfttrack's properties and the Session they make: what is checked when the element starts
// (files exist, the config loads) and what is done on the first buffer (the Session made and the
// targets added on the streaming thread, whose GL context the Session then uses). Every error
// names the property and its value.

#include <memory>
#include <stdexcept>
#include <string>

#include "nft/session.h"

namespace nft::gst {

/// nfttrack's properties (gst-inspect-1.0 nfttrack documents each).
struct TrackSettings {
  std::string target;       ///< `target`: an image (trained on the first buffer) or a .nftm model; "" = none.
  std::string targets;      ///< `targets`: a target database (.nftdb); "" = none.
  double widthMetres = 0;   ///< `width-m`: the target's printed width, metres; 0 = the model's or the config's.
  std::string config;       ///< `config`: a YAML configuration (config/config.h); "" = the defaults.
  std::string calibration;  ///< `calibration`: an OpenCV calibration file; "" = the config's camera section.
  double hfovDeg = 0;       ///< `hfov`: horizontal field of view, degrees, when no calibration; 0 = the config's.
  bool draw = false;        ///< `draw`: the augmentations drawn into the passing frame.
};

/// A property whose value cannot be used. what() is "property <name> = '<value>': <why>".
class PropertyError : public std::runtime_error {
 public:
  /// `notFound`: the value names a file that does not exist (GST_RESOURCE_ERROR_NOT_FOUND; else
  /// GST_RESOURCE_ERROR_SETTINGS).
  PropertyError(const std::string& property, const std::string& value, const std::string& why, bool notFound = false)
      : std::runtime_error("property " + property + " = '" + value + "': " + why), notFound_(notFound) {}
  /// True when the value names a missing file.
  bool notFound() const noexcept { return notFound_; }

 private:
  bool notFound_;
};

/// The Session's options from the properties, checked without a GPU (cheap: for the element's
/// start, READY → PAUSED): a target or a database is given; target, targets, config and
/// calibration name existing files; the config loads (every key known and valid).
/// @throws PropertyError naming the property and the value: "property target = 'x.jpg': the file
///   does not exist", "property config = 'c.yaml': c.yaml:3: tracking.min_ncc = 2: expected ...",
///   "property target = '' and property targets = '': ...".
SessionOptions sessionOptionsOf(const TrackSettings& settings);

/// tracking.async_detection's `auto` resolved for the element's source: kept (the Session's
/// choice, on with at least 2 cores) for a live source (a camera: v4l2src, libcamerasrc,
/// `videotestsrc is-live=true`; upstreamIsLive()), off for any other (a file: its results then do
/// not depend on timing, as nft_replay's). `on` and `off` in the config are kept.
void resolveAsyncDetection(SessionOptions& options, bool liveSource);

/// Makes the Session on the calling thread (its headless EGL context becomes current there) and
/// adds the target and the database's targets.
/// @throws PropertyError naming the property at fault: config, calibration or hfov for a
///   configuration the Session refuses (its camera keys naming calibration or hfov); target or
///   targets for a file that is not a readable image, model or database, or a target too plain to
///   track; width-m for a bad width. nft::GpuError passes through (no EGL context).
std::unique_ptr<Session> openSession(const TrackSettings& settings, const SessionOptions& options);

}  // namespace nft::gst
