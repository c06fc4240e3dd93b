#pragma once
// The typed YAML configuration (config/config.h) mapped onto the option structs of the modules
// nft_replay and nft_preview run: the detector, SURF-ES storage, the detection lane (ratio,
// RANSAC, quad limits), the tracking lane, the motion model, the Tracker's lane switches, target
// training, the camera and the renderer's augmentation style.
//
// config/ has no project dependency (DESIGN.md), so this mapping lives with the programs that
// need it. Keys the modules cannot honour yet are either errors (they would silently change
// what the user measures) or warnings (a documented approximation); see pipelineOptions().

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "config/config.h"
#include "detection/backend.h"
#include "detection/target_trainer.h"
#include "render/renderer.h"
#include "tracker/camera_calibration.h"
#include "tracker/one_euro_filter.h"
#include "tracker/tracker.h"

namespace nft::session {

/// Everything the replay pipeline needs, derived from one Config.
struct PipelineOptions {
  /// The Tracker's options (detection lane, tracking lane, motion model, lane switches).
  tracker::TrackerOptions tracker;
  /// Training of a target given as an image (working size, width, descriptor type and
  /// orientation, detector, tracking patches).
  detection::TargetTrainerOptions training;
  /// SURF-ES precision override for training, bits (0 = the GPU's; config descriptor.precision_bits).
  int trainingPrecisionBits = 0;
  /// SURF-ES lookups per box mean for training (config descriptor.box_taps; the lane's is
  /// tracker.detection.boxTaps): the target's descriptors are made as the frames' are.
  int trainingBoxTaps = 1;
  /// SURF-ES storage for training (the detection lane's is tracker.detection.storage).
  detection::DescriptorStorage trainingStorage = detection::DescriptorStorage::Auto;
  /// Where training computes the target's descriptors (config descriptor.backend, as the
  /// detection lane's tracker.detection.descriptorBackend): the target's are made as the frames' are.
  detection::Backend trainingBackend = detection::Backend::Auto;
  /// Several targets (config tracking.max_targets, tracking.search_every, matcher.shortlist):
  /// most tracked at once, frames between searches for the others while some are tracked
  /// (0 = only when none is), targets verified per detection.
  int maxTargets = 8;
  int searchEvery = 5;
  int shortlist = 3;
  /// config tracking.async_detection, resolved (auto: at least 2 cores, never in the web build):
  /// the detection lane and the recogniser run on a worker thread (session/async_detector.h).
  /// Off, as well, where it cannot work: tracking.enabled false (detection on every frame) and
  /// tracking.redetect_every > 0 (a warning says so).
  bool asyncDetection = false;
  /// config tracking.async_delay_frames: > 0 runs each detection in process() and applies it that
  /// many frames later (a worker's delay, replayed deterministically); 0 = none.
  int asyncDelayFrames = 0;
  /// config tracking.pose_filter, pose_filter_min_cutoff_hz, pose_filter_beta: reported corners
  /// smoothed by the One Euro filter (TargetTracking::smooth).
  bool poseFilter = false;
  tracker::OneEuroOptions poseFilterOptions;
  /// config tracking.final_refinement: found targets' homographies refined on the full frame
  /// (tracker/homography_refiner.h).
  bool finalRefinement = true;
  /// config pose.refine: poses refined by Levenberg-Marquardt on their inliers. With the final
  /// refinement on, the tracking lane skips it (tracker.tracking.refinePose false): the final
  /// refinement replaces the lane's pose, and refines it itself where it fails.
  bool refinePose = true;
  /// config render.enabled: false writes the frames without any GL drawing.
  bool renderEnabled = true;
  /// config render.overlay: the status line and tracked patches over the frame.
  bool overlay = true;
  /// What the renderer draws (render.* keys).
  render::AugmentationStyle style;
  /// Written videos: FOURCC (exactly 4 characters) and frame rate (0 = the input's), frames/s.
  std::string codec = "mp4v";
  double videoFps = 0.0;
  /// Config keys that the pipeline does not honour exactly, as "key = value: what happens
  /// instead" (printed as warnings and recorded in the report).
  std::vector<std::string> warnings;
};

/// cv::findHomography's method constant for a config RANSAC method: magsac → cv::USAC_MAGSAC,
/// ransac → cv::RANSAC, usac_default → cv::USAC_DEFAULT, usac_accurate → cv::USAC_ACCURATE,
/// lmeds → cv::LMEDS.
int ransacMethodFlag(config::RansacMethod method);

/// Maps every section of `config` onto the pipeline's option structs.
///  - detector → FastDetectorOptions of the detection lane and of training (one detector for
///    both, so the target's keypoints and the frame's are alike);
///  - descriptor → training's descriptor type and orientation (the detection lane takes them from
///    the model), SURF-ES storage and precision_bits (lane and training);
///  - matcher.ratio → DetectionLaneOptions::matching.ratio; ransac → method flag, threshold,
///    iterations, confidence, min inliers; quad → QuadLimits of both lanes;
///  - tracking → TrackingLaneOptions, enabled → TrackerOptions::trackingEnabled,
///    redetect_every / retrack_lost_frames / refine_detections → TrackerOptions;
///  - motion.model → MotionModelKind; pose.refine → refinePose of both lanes;
///  - target → TargetTrainerOptions (working_size, width_m, max_tracking_patches → maxPatches);
///  - render → AugmentationStyle, renderEnabled, overlay; output → codec, videoFps.
/// camera is mapped by cameraCalibration() once the frame size is known.
///  - descriptor.backend / matcher.backend → DetectionLaneOptions::descriptorBackend /
///    matcherBackend (gpu | cpu | auto, resolved by the lane against the capability probe) and
///    trainingBackend; matcher.cross_check → matching.crossCheck (the single-target lane and the
///    several-targets recogniser both cross-check with either matcher backend).
/// `source` names the config in messages. Throws nothing today (every valid Config runs).
PipelineOptions pipelineOptions(const config::Config& config, const std::string& source = "<config>");

/// The calibration for frames of `frameSize`: camera.calibration's file (loadCalibration)
/// scaled to the frame size (scaledTo) when one is named, else the default calibration with
/// camera.hfov_deg: fx = fy = (width / 2) / tan(hfov / 2), principal point ((w − 1) / 2, (h − 1) / 2),
/// no distortion (defaultCalibration() itself for 60°).
/// @throws std::runtime_error naming the calibration file and key when it cannot be read;
///   std::invalid_argument for a non-positive frame size.
tracker::CameraCalibration cameraCalibration(const config::CameraConfig& camera, cv::Size frameSize);

/// The default calibration for `frameSize` with a horizontal field of view of `hfovDeg`
/// degrees, in (0, 180). @throws std::invalid_argument for a bad size or angle.
tracker::CameraCalibration calibrationFromHfov(cv::Size frameSize, double hfovDeg);

}  // namespace nft::session
