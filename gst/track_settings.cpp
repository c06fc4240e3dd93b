#include "gst/track_settings.h"

#include <filesystem>

namespace nft::gst {
namespace {

void requireFile(const std::string& property, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw PropertyError(property, path, "the file does not exist", true);
  if (std::filesystem::is_directory(path, ec)) throw PropertyError(property, path, "is a folder: expected a file");
}

}  // namespace

SessionOptions sessionOptionsOf(const TrackSettings& s) {
  if (s.target.empty() && s.targets.empty())
    throw PropertyError("target", "",
                        "no target to track: set target (an image or a .nftm model) or targets (a .nftdb database)");
  if (!s.target.empty()) requireFile("target", s.target);
  if (!s.targets.empty()) requireFile("targets", s.targets);
  if (!s.calibration.empty()) {
    requireFile("calibration", s.calibration);
    try {
      loadCalibration(s.calibration);  // read again by the Session; read here for the error's sake
    } catch (const Error& e) {
      throw PropertyError("calibration", s.calibration, e.what());
    }
  }
  SessionOptions options;
  if (!s.config.empty()) {
    requireFile("config", s.config);
    try {
      options = sessionOptionsFromFile(s.config);
    } catch (const Error& e) {
      throw PropertyError("config", s.config, e.what());
    }
  }
  if (!s.calibration.empty()) options.config.camera.calibration = s.calibration;
  if (s.hfovDeg > 0) options.config.camera.hfovDeg = s.hfovDeg;
  return options;
}

void resolveAsyncDetection(SessionOptions& options, bool liveSource) {
  // A pipeline reads a file as fast as it decodes, so a worker's results would depend on timing:
  // there auto resolves to off, as in the programs (nft_replay). A camera gives its frames at its
  // own rate, and a search in the streaming thread would hold the frames behind it back.
  if (!liveSource && options.config.tracking.asyncDetection == config::AsyncDetection::Auto)
    options.config.tracking.asyncDetection = config::AsyncDetection::Off;
}

std::unique_ptr<Session> openSession(const TrackSettings& s, const SessionOptions& options) {
  std::unique_ptr<Session> session;
  try {
    session = std::make_unique<Session>(options);
  } catch (const ConfigError& e) {
    if (e.keyPath() == "camera.calibration" && !s.calibration.empty())
      throw PropertyError("calibration", s.calibration, e.what());
    if (e.keyPath() == "camera.hfov_deg" && s.hfovDeg > 0)
      throw PropertyError("hfov", std::to_string(s.hfovDeg), e.what());
    throw PropertyError("config", s.config, e.what());
  }
  if (!s.target.empty()) {
    try {
      session->addTarget(s.target, "", s.widthMetres);
    } catch (const InputError& e) {
      throw PropertyError("target", s.target, e.what());
    }
  }
  if (!s.targets.empty()) {
    try {
      session->loadDatabase(s.targets);
    } catch (const InputError& e) {
      throw PropertyError("targets", s.targets, e.what());
    }
  }
  return session;
}

}  // namespace nft::gst
