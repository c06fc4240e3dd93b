#pragma once
// The pipeline's tunables in one typed structure, loaded from YAML. This header is the schema's
// reference: every key's meaning, unit, allowed values and default are documented here, and
// config/default.yaml lists the same keys with the same defaults (a test keeps them equal).
//
// A YAML file names sections (detector, descriptor, matcher, ransac, quad, tracking, motion,
// pose, camera, target, render, output, recognition), each a map of snake_case keys. A file may name any
// subset: keys it leaves out keep their defaults, so a profile overrides only what it names.
// An empty file, or one with only comments, is the default configuration.
//
//   tracking:
//     min_ncc: 0.75        # the C++ field Config::tracking.minNcc
//     redetect_every: 10
//
// Everything a file says is checked (see ConfigError): unknown keys and sections (with a
// suggestion of the closest known key), wrong types (a string or a map where a number is
// expected, 2.5 for an integer, a quoted "3" for a number), NaN and infinity, values out of
// range, unknown enum names, and the cross-field rules documented below. Numbers are written
// as YAML plain scalars (1000, 0.7, 1e-3); booleans as true / false; enums by their names.
//
// config/ depends on yaml-cpp only (DESIGN.md): the types here are plain C++, and the code that
// uses them (detection/, tracker/, render/, apps/) maps them onto its own option structs.

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "config_error.h"  // relative: resolves in the source tree and in include/nft/config/

namespace nft::config {

// --- Enumerations (YAML names in the comments; toString() / parse*() convert) ---------------

/// SURF descriptor layout (detection/surf_descriptor.h).
enum class DescriptorType {
  Surf64,  ///< "surf64": 4 × 4 subregions × (Σdx, Σdy, Σ|dx|, Σ|dy|) = 64 values.
  Surf36,  ///< "surf36": 3 × 3 subregions × 4 = 36 values (less GPU work and memory).
};

/// Whether descriptors are rotated to the keypoint's orientation.
enum class DescriptorOrientation {
  Oriented,  ///< "oriented": intensity-centroid angle; invariant to in-plane rotation.
  Upright,   ///< "upright": no rotation (faster; for targets seen roughly upright).
};

/// How SURF-ES stores intermediate values on the GPU (detection/surf_es.h).
enum class DescriptorStorage {
  Auto,   ///< "auto": float render targets where the GPU has them, else RGBA8.
  Rgba8,  ///< "rgba8": the precision-adaptive RGBA8 encoding (seeds/000 section 4.5).
  Float,  ///< "float": (half-)float render targets; fails where the GPU lacks them.
};

/// Where descriptors are matched.
enum class MatcherBackend {
  Gpu,   ///< "gpu": GpuMatcher (detection/gpu_matcher.h); descriptors stay on the GPU.
  Cpu,   ///< "cpu": CpuMatcher (OpenCV's BFMatcher + ratio test), the reference.
  Auto,  ///< "auto": cpu where the GLES2 renderer is a software one (llvmpipe, softpipe,
         ///< SwiftShader: the capability probe), gpu elsewhere.
};

/// Where descriptors are computed.
enum class DescriptorBackend {
  Gpu,   ///< "gpu": SURF-ES (detection/surf_es.h), GLES2 shaders.
  Cpu,   ///< "cpu": SurfCpu (detection/surf_cpu.h), the same descriptor on the CPU.
  Auto,  ///< "auto": cpu on a software GLES2 renderer, gpu elsewhere (as MatcherBackend::Auto).
};

/// Robust estimator of the detection lane's homography (OpenCV's cv::findHomography methods).
enum class RansacMethod {
  Magsac,        ///< "magsac": cv::USAC_MAGSAC.
  Ransac,        ///< "ransac": cv::RANSAC.
  UsacDefault,   ///< "usac_default": cv::USAC_DEFAULT.
  UsacAccurate,  ///< "usac_accurate": cv::USAC_ACCURATE.
  Lmeds,         ///< "lmeds": cv::LMEDS (threshold_px is not used).
};

/// How the tracking lane predicts the next frame's pose.
enum class MotionModel {
  ConstantVelocity,  ///< "constant_velocity": the last frame-to-frame motion repeats.
  None,              ///< "none": the previous frame's pose is the prediction.
  ConstantAcceleration,  ///< "constant_acceleration": the frame-to-frame motion changes as it last changed.
};

/// Where the detection lane (and a database's recogniser) runs (../shared/DESIGN.md, "Threads
/// and frame time").
enum class AsyncDetection {
  Off,   ///< "off": in process(), on the camera thread (the lanes as before async existed).
  On,    ///< "on": on a worker thread; process() returns after the tracking lane.
  Auto,  ///< "auto": on where the machine has at least 2 cores (not in the web build), else off.
};

/// @{
/// The YAML name of an enum value ("surf64", "usac_accurate", ...).
std::string_view toString(DescriptorType value);
std::string_view toString(DescriptorOrientation value);
std::string_view toString(DescriptorStorage value);
std::string_view toString(MatcherBackend value);
std::string_view toString(DescriptorBackend value);
std::string_view toString(RansacMethod value);
std::string_view toString(MotionModel value);
std::string_view toString(AsyncDetection value);
/// @}

/// @{
/// The enum value of a YAML name (exact, case-sensitive), or std::nullopt for an unknown name.
std::optional<DescriptorType> parseDescriptorType(std::string_view name);
std::optional<DescriptorOrientation> parseDescriptorOrientation(std::string_view name);
std::optional<DescriptorStorage> parseDescriptorStorage(std::string_view name);
std::optional<MatcherBackend> parseMatcherBackend(std::string_view name);
std::optional<DescriptorBackend> parseDescriptorBackend(std::string_view name);
std::optional<RansacMethod> parseRansacMethod(std::string_view name);
std::optional<MotionModel> parseMotionModel(std::string_view name);
std::optional<AsyncDetection> parseAsyncDetection(std::string_view name);
/// @}

// --- Sections ------------------------------------------------------------------------------

/// `detector:` scale-aware FAST on an image pyramid (detection/fast_detector.h, whose header
/// has the measurements behind these defaults).
struct DetectorConfig {
  /// `max_keypoints`: most keypoints kept per frame (strongest first); 0 = auto: enough for the
  /// smallest target to find (target.min_frame_fraction): 80 / fraction², 2000 at the default
  /// 0.2 (tracker/detection_plan.h); training then keeps 1000 per target image. Integer in
  /// [0, 65535]. Default 0.
  int maxKeypoints = 0;
  /// `scale_factor`: size ratio between adjacent pyramid levels. Number in (1, 4]. Default √2
  /// (1.4142135623730951).
  double scaleFactor = 1.4142135623730951;
  /// `levels`: pyramid levels, level 0 being the frame itself (the Session's working frame:
  /// session/working_frame.h). Integer in [1, 32]. Default 4.
  int levels = 4;
  /// `threshold`: FAST intensity threshold, grey levels. Integer in [1, 255]. Default 30.
  int threshold = 30;
  /// `cell_size`: side of the grid cells keypoints are spread over, working-frame pixels;
  /// 0 = no spreading (strongest overall). Integer >= 0. Default 48.
  int cellSize = 48;
  /// `base_scale`: SURF scale s of a level-0 keypoint (level L gets base_scale ·
  /// scale_factor^L); the descriptor window is 20 s pixels. Number > 0. Default 3.0.
  double baseScale = 3.0;
  /// `target_keypoint_factor`: the detection lane keeps at most this many times the target's
  /// keypoints per frame (at least 200, at most max_keypoints): fewer frame keypoints for a small
  /// target (tracker/detection_lane.h has the measurement); 0 = max_keypoints always. Number >= 0.
  /// Default 0: a small target in a cluttered HD frame needs the whole budget, whatever its own
  /// keypoint count.
  double targetKeypointFactor = 0.0;
  /// `first_pass_fraction`: the detection lane describes and matches the strongest this share of
  /// the keypoint budget first, then twice as many, and so on, each only when the ones before
  /// find no target (tracker/detection_plan.h); 1 = one pass over all. Number in (0, 1].
  /// Default 0.25 (passes of 500, 1000, 2000 keypoints with the auto budget).
  double firstPassFraction = 0.25;
};

/// `descriptor:` SURF-ES on the GPU (detection/surf_es.h) and its CPU twin.
struct DescriptorConfig {
  /// `type`: surf64 | surf36. Default surf64.
  DescriptorType type = DescriptorType::Surf64;
  /// `orientation`: oriented | upright. Default oriented.
  DescriptorOrientation orientation = DescriptorOrientation::Oriented;
  /// `storage`: auto | rgba8 | float. Default auto.
  DescriptorStorage storage = DescriptorStorage::Auto;
  /// `precision_bits`: fragment-shader float precision p the RGBA8 encoding assumes, bits;
  /// 0 = the GPU's own (measured by the capability probe); 8..23 forces a lower p, e.g. 10 to
  /// make a desktop GPU compute like a Mali-400 (mediump only). Integer: 0 or in [8, 23].
  /// Default 0.
  int precisionBits = 0;
  /// `box_taps`: how SURF-ES reads a box mean: 1 (one trilinear lookup, the thesis's) or 2 (the
  /// mean of its 2 × 2 quarter boxes, matching recall as the CPU lane's, read in one lookup from
  /// the box pyramid: 1.02–1.29 × the time of 1 on llvmpipe; detection/surf_es.h). Integer 1 or 2.
  /// Default 2; the phone profile (a Mali-400 class GPU) keeps 1.
  int boxTaps = 2;
  /// `backend`: where the detection lane computes the frame's descriptors, and training the
  /// target's: gpu (SURF-ES) | cpu (SurfCpu) | auto (cpu on a software GLES2 renderer such as
  /// llvmpipe, where SurfCpu is several times faster; gpu elsewhere). Default auto.
  DescriptorBackend backend = DescriptorBackend::Auto;
};

/// `matcher:` nearest-neighbour matching of frame descriptors against the target's.
struct MatcherConfig {
  /// `backend`: gpu (GpuMatcher) | cpu (CpuMatcher, OpenCV's BFMatcher) | auto (cpu on a software
  /// GLES2 renderer, gpu elsewhere). Default auto.
  MatcherBackend backend = MatcherBackend::Auto;
  /// `ratio`: Lowe's ratio test, a match is kept when best distance < ratio · second best;
  /// 1 keeps every nearest neighbour. Number in (0, 1]. Default 0.9.
  double ratio = 0.9;
  /// `cross_check`: also require the target descriptor's nearest frame descriptor to be the
  /// query (a second, transposed search; with the gpu backend the frame's descriptors are then
  /// read back). Boolean. Default false.
  bool crossCheck = false;
  /// `shortlist`: with several targets, how many of the targets the inverted index ranks best
  /// (detection/vocabulary.h) are matched and verified per detection (in a database of at most
  /// 8 targets every target not tracked is: tracker/multi_target_detector.h, verifyAllUpTo).
  /// Integer in [1, 64]. Default 3.
  int shortlist = 3;
};

/// `ransac:` robust homography of the detection lane (tracker/detection_lane.h).
struct RansacConfig {
  /// `method`: magsac | ransac | usac_default | usac_accurate | lmeds. Default magsac.
  RansacMethod method = RansacMethod::Magsac;
  /// `threshold_px`: reprojection error below which a match is an inlier, frame pixels.
  /// Number > 0. Default 4.0.
  double thresholdPx = 4.0;
  /// `max_iterations`: most hypotheses tried. Integer in [1, 50000]: the bound keeps a frame in
  /// which sampling never stops early (no target, or a huge threshold_px) to seconds — 2^31 never
  /// ended, 10^6 took 140 s a frame with 65535 keypoints (issue 11). Default 2000.
  int maxIterations = 2000;
  /// `confidence`: probability of having drawn an all-inlier sample when it stops. Number in
  /// (0, 1). Default 0.995.
  double confidence = 0.995;
  /// `min_inliers`: fewest inliers for a detection to count. Integer >= 4. Default 20.
  int minInliers = 20;
};

/// `quad:` plausibility of the projected target quad (tracker/quad_check.h, QuadLimits).
struct QuadConfig {
  /// `min_area_fraction`: smallest quad area as a fraction of the frame's area. Number in
  /// (0, 1]. Default 0.002.
  double minAreaFraction = 0.002;
  /// `max_area_fraction`: largest quad area as a fraction of the frame's area. Number, and must
  /// be > min_area_fraction (cross-field rule). Default 4.0.
  double maxAreaFraction = 4.0;
  /// `min_side_px`: shortest allowed quad side, frame pixels. Number >= 0. Default 8.0.
  double minSidePx = 8.0;
  /// `max_aspect_change`: largest change of the target's aspect ratio (factor, either way).
  /// Number >= 1. Default 6.0 (tilts up to about 80°).
  double maxAspectChange = 6.0;
  /// `max_outside_fraction`: how far outside the frame a corner may lie, as a fraction of the
  /// frame's width (x) or height (y) beyond each edge. Number >= 0. Default 1.0.
  double maxOutsideFraction = 1.0;
};

/// `tracking:` the NCC patch tracking lane (Wagner et al., IEEE TVCG 16(3), 2010): target
/// patches warped by the predicted pose, searched at half then full resolution.
struct TrackingConfig {
  /// `enabled`: false runs detection on every frame (no frame-to-frame tracking; each detection
  /// is still refined in its own frame while `refine_detections` is on). Boolean. Default true.
  bool enabled = true;
  /// `patch_size`: side of a tracked patch, pixels. Even integer in [4, 32]. Default 8.
  int patchSize = 8;
  /// `max_patches`: most patches searched per frame. Integer in [4, 1000]. Default 100.
  int maxPatches = 100;
  /// `coarse_radius_px`: search radius at half resolution, half-resolution pixels. Integer in
  /// [1, 32]. Default 4.
  int coarseRadiusPx = 4;
  /// `fine_radius_px`: search radius at full resolution around the coarse result, pixels.
  /// Integer in [1, 16], and must be <= 2 · coarse_radius_px (cross-field rule: the fine search
  /// cannot look further than the coarse one did). Default 2.
  int fineRadiusPx = 2;
  /// `min_ncc`: lowest normalised cross-correlation of an accepted patch match. Number in
  /// [-1, 1]. Default 0.7.
  double minNcc = 0.7;
  /// `min_inliers`: fewest inlier patches to keep tracking; fewer goes back to detection.
  /// Integer >= 4. Default 10.
  int minInliers = 10;
  /// `ransac_threshold_px`: inlier threshold of the robust pose update, frame pixels. Number
  /// > 0. Default 3.0.
  double ransacThresholdPx = 3.0;
  /// `max_corner_jump_px`: a tracked pose whose projected target corners lie further than this
  /// from the predicted ones is rejected, frame pixels. Number > 0. Default 100.0.
  double maxCornerJumpPx = 100.0;
  /// `redetect_every`: while tracking, run a detection every N frames to correct drift;
  /// 0 = never. Integer >= 0. Default 0.
  int redetectEvery = 0;
  /// `min_inlier_fraction`: fewest inlier patches as a fraction of the patches searched; a lower
  /// fraction is taken for a false lock (tracker/tracking_lane.h). Number in [0, 1]. Default 0.4.
  double minInlierFraction = 0.4;
  /// `retrack_lost_frames`: for this many frames after a loss the tracking lane tries again from
  /// the last pose found before the detection lane runs (a blank or blurred frame, a brief
  /// occlusion). Integer >= 0. Default 5.
  int retrackLostFrames = 5;
  /// `refine_detections`: refine each detection with the tracking lane in the same frame (also
  /// with `enabled: false`: no earlier frame is used). On all 531 frames of tmt_bookI with
  /// `enabled: false` it takes 63.3 / 68.2 % within 5 / 10 px to 68.9 / 68.9 %, the median error
  /// from 2.06 to 0.91 px, for about 1.5 ms per detection. true | false. Default true.
  bool refineDetections = true;
  /// `final_refinement`: refine every found target's homography on the full-resolution frame by
  /// dense inverse-compositional alignment of the target image's textured pixels, robust to
  /// occluders (tracker/homography_refiner.h), after the lanes (which run on the working frame,
  /// session/working_frame.h). Boolean. Default true.
  bool finalRefinement = true;
  /// `max_search_px`: the widest search of the tracking lane around its prediction, frame
  /// pixels: fast motion is searched from quarter or eighth resolution (coarse to fine, as PTAM,
  /// Klein and Murray, ISMAR 2007). Integer in [2, 256], and >= 2 · coarse_radius_px. Default 64.
  int maxSearchPx = 64;
  /// `recovery_search_px`: the search range of the tracking lane's retries after a loss
  /// (retrack_lost_frames), frame pixels. Integer in [2, 256], and >= max_search_px. Default 160.
  int recoverySearchPx = 160;
  /// `search_speed_factor`: the search range as a fraction of the predicted speed (frame pixels
  /// per frame); 0 keeps it at 2 · coarse_radius_px except after a loss. Number >= 0. Default 0.5.
  double searchSpeedFactor = 0.5;
  /// `coarse_patches`: most patches searched at quarter and eighth resolution. Integer in
  /// [4, 1000]. Default 40.
  int coarsePatches = 40;
  /// `blur_exposure`: the camera's exposure as a fraction of the frame interval, the starting
  /// guess: the tracking lane's templates are blurred along this fraction of their motion (motion
  /// blur), and the tracker then learns the camera's exposure from the frames. 0 turns blurring
  /// off. Number in [0, 1]. Default 0.5.
  double blurExposure = 0.5;
  /// `region_detection`: after a loss, the detection lane looks first in the region around the
  /// target's last or predicted place (cheaper, and denser on the target), then in the whole
  /// frame. true | false. Default true.
  bool regionDetection = true;
  /// `region_margin`: that region is the target's bounding box enlarged by this fraction of its
  /// size on every side. Number >= 0. Default 0.5.
  double regionMargin = 0.5;
  /// `region_search_frames`: for this many frames after a loss the detection searches that region
  /// first, then the whole frame (a small target, once lost, is usually found again near where it
  /// was, and a whole-frame detection gives it few keypoints). Integer >= 0. Default 90.
  int regionSearchFrames = 90;
  /// `min_inlier_spread`: fewest inlier patches' spread, the area of their convex hull over the
  /// target's area; a few patches in one corner cannot place a target mostly out of view.
  /// Number in [0, 1]. Default 0.02.
  double minInlierSpread = 0.02;
  /// `max_targets`: most targets tracked at once, each by its own tracking lane. Integer in
  /// [1, 64]. Default 8.
  int maxTargets = 8;
  /// `search_every`: with several targets, while at least one is tracked (and fewer than
  /// max_targets), the detection lane looks for the others every N frames — and on the frame
  /// after a search that found one —, the tracked targets' keypoints masked (with at most 8
  /// targets a search that found some is repeated at once, theirs masked too); 0 = only when
  /// none is tracked or the last search found one. Integer >= 0. Default 5.
  int searchEvery = 5;
  /// `async_detection`: off | on | auto. Where the detection lane and a database's recogniser run:
  /// on a worker thread (on), on a copy of the frame, while process() returns after the tracking
  /// lane; a detection finished for frame k is carried to the current frame by the tracking lane
  /// before it is reported, so a target is reported found a few frames after it came into view.
  /// off keeps them in process() (each detection in its own frame). auto: on with at least 2 cores
  /// (std::thread::hardware_concurrency), off with one and in the web build. The programs
  /// (nft_replay, nft_eval, and nft_preview on a file) resolve auto to off, to stay deterministic
  /// (--realtime runs the worker); so do the GStreamer elements from a source that is not live
  /// (from a camera they keep auto; `on` in an element's config runs the worker from any source).
  /// off | on | auto. Default auto.
  AsyncDetection asyncDetection = AsyncDetection::Auto;
  /// `async_delay_frames`: > 0 replays what the worker does deterministically: each detection runs
  /// in process() on frame k but is applied on frame k + N, as if a worker had taken N frames
  /// (whatever async_detection says); 0 = a real worker or none, as async_detection says.
  /// Integer in [0, 100]. Default 0.
  int asyncDelayFrames = 0;
  /// `pose_filter`: smooth what is reported and rendered: each found target's corners through the
  /// One Euro filter (Casiez, Roussel, Vogel, CHI 2012; tracker/one_euro_filter.h), its
  /// homography and pose recomputed from them. Less jitter on a still camera, a little lag when
  /// moving. The programs' accuracy figures are then the filtered corners'. Boolean. Default false.
  bool poseFilter = false;
  /// `pose_filter_min_cutoff_hz`: the filter's cutoff at rest, Hz (lower: steadier at rest, more lag
  /// when the camera starts to move). Number > 0. Default 1.0.
  double poseFilterMinCutoffHz = 1.0;
  /// `pose_filter_beta`: how fast the cutoff rises with the corners' speed, Hz per pixel/s (higher:
  /// less lag when moving). Number >= 0. Default 0.3.
  double poseFilterBeta = 0.3;
};

/// `motion:` pose prediction between frames.
struct MotionConfig {
  /// `model`: constant_velocity | none | constant_acceleration. Default constant_velocity.
  MotionModel model = MotionModel::ConstantVelocity;
};

/// `pose:` pose estimation from the homography / correspondences (tracker/pose.h).
struct PoseConfig {
  /// `refine`: Levenberg-Marquardt refinement after IPPE. Boolean. Default true.
  bool refine = true;
};

/// `camera:` intrinsics (tracker/camera_calibration.h).
struct CameraConfig {
  /// `calibration`: path of an OpenCV calibration file (YAML/XML/JSON with camera_matrix, ...);
  /// "" = none, use the default calibration. String. Default "".
  std::string calibration;
  /// `hfov_deg`: horizontal field of view of the default calibration (used when calibration is
  /// ""), degrees. Number in (1, 179). Default 60.0.
  double hfovDeg = 60.0;
};

/// `target:` training of target images (nft_train, detection/target_trainer.h).
struct TargetConfig {
  /// `width_m`: physical width of the target, metres; 0 = unknown (poses in target pixels).
  /// Number >= 0. Default 0.20.
  double widthM = 0.20;
  /// `working_size`: longest side of the working image training uses, pixels (larger target
  /// images are scaled down). Integer in [64, 4096]. Default 640.
  int workingSize = 640;
  /// `max_tracking_patches`: most patches kept for the tracking lane at training. Integer in
  /// [0, 5000]. Default 200.
  int maxTrackingPatches = 200;
  /// `min_size_px`: smallest size the target is to be detected at, its longest side in frame
  /// pixels: training covers the scales down to it (detection/target_trainer.h,
  /// TargetTrainerOptions::minDetectedSidePx); 0 = detector.levels only, strongest keypoints
  /// overall. Integer in [0, 4096]. Default 100 (the 8 prints of the multi-target grid, about
  /// 145 px each: 6 of 8 found instead of 1 of 8).
  int minSizePx = 100;
  /// `min_frame_fraction`: the smallest target to find in a frame: the side of a square of its
  /// area as a fraction of the side of a square of the frame's (the square root of the share of
  /// the frame it covers). The auto keypoint budget (tracker/detection_plan.h) and the working
  /// frame's size (session/working_frame.h: a 1280×720 frame tracked at 640×360, where that
  /// target is still 96 px a side) follow it. Number in (0, 1]. Default 0.2 (a target covering
  /// 1/25 of the frame, e.g. a 300 × 140 px sign in a 1280 × 720 frame).
  double minFrameFraction = 0.2;
  /// `view_tilt_deg`: > 0 trains four more views of the target, seen this far off its normal
  /// (ASIFT's affine simulation; detection/target_trainer.h, TargetTrainerOptions::viewTiltDeg),
  /// for detection at steep tilts. Degrees, number in [0, 80); 0 = off. Default 65. Measured on
  /// tmt_bookI, detection alone on every frame (refined, tracking.refine_detections): 65 → 84.2 /
  /// 84.9 % within 5 / 10 px (0: 68.9 / 68.9 %; OpenCV SIFT 72.7 / 74.0 %) in the same time per
  /// frame, since the detection lane matches the tilted views' descriptors only when the target's
  /// own find nothing; a model holds 2–2.5 times the descriptors (tmt_bookI's target.png 399 →
  /// 1010, its .nftm file 136 → 303 KB).
  double viewTiltDeg = 65;
  /// `view_turn_deg`: > 0 trains five more views of a curved label (a cylinder or cone target,
  /// nft_train --geometry), rendered on its surface facing the camera and turned about its axis
  /// by ± half and ± all of this (detection/target_trainer.h, TargetTrainerOptions::viewTurnDeg),
  /// for detection while the can or cup is turned; a flat print ignores it. Degrees, number in
  /// [0, 90]; 0 = off. Default 60.
  double viewTurnDeg = 60;
};

/// `render:` augmentations drawn over the frame (render/renderer.h, RenderStyle). Sizes are
/// fractions of the target's width, whatever its unit.
struct RenderConfig {
  /// `enabled`: draw anything at all. Boolean. Default true.
  bool enabled = true;
  /// `background`: draw the camera frame as background. Boolean. Default true.
  bool background = true;
  /// `axes`: draw the target's coordinate axes. Boolean. Default true.
  bool axes = true;
  /// `axis_length`: length of each axis, as a fraction of the target's width. Number > 0.
  /// Default 0.3.
  double axisLength = 0.3;
  /// `cube`: draw a shaded cube standing on the target. Boolean. Default true.
  bool cube = true;
  /// `cube_size`: cube side, as a fraction of the target's width. Number > 0. Default 0.4.
  double cubeSize = 0.4;
  /// `cube_height`: cube height, as a fraction of the target's width. Number > 0. Default 0.4.
  double cubeHeight = 0.4;
  /// `cube_color`: the cube's colour as [B, G, R], each a number in [0, 255]. Default
  /// [40, 160, 240] (orange).
  std::array<double, 3> cubeColor{40.0, 160.0, 240.0};
  /// `outline`: draw the target's outline. Boolean. Default true.
  bool outline = true;
  /// `overlay`: draw the status line, tracked patches and matches. Boolean. Default true.
  bool overlay = true;
};

/// `output:` video files written by the apps.
struct OutputConfig {
  /// `video_fps`: frame rate of written videos, frames per second; 0 = the input's. Number
  /// >= 0. Default 0.0.
  double videoFps = 0.0;
  /// `codec`: FOURCC of written videos (cv::VideoWriter::fourcc). String of exactly 4
  /// characters. Default "mp4v".
  std::string codec = "mp4v";
};

/// `recognition:` the catalogue recognition service an app's Session asks when it finds none
/// of its own targets (issue 48; docs/catalogue_recognition.md). Read by nft::SessionRecognition
/// (the library nft_recognition, session/recognition/); a Session alone never calls it, and an
/// app that does not link that library needs nothing of it.
struct RecognitionConfig {
  /// `url`: the service's base URL (`nft-recognition serve`), e.g. "http://10.0.0.2:8080";
  /// "" = no service. String: "" or one that starts with http:// or https://. Default "".
  std::string url;
  /// `token_file`: a file whose first line is the service's bearer token; "" = the environment
  /// variable NFT_RECOGNITION_TOKEN, or no token (a service started with --no-auth). String
  /// (a path, or ""). Default "".
  std::string tokenFile;
  /// `min_interval_s`: the rate limit: at least this long between two requests, seconds.
  /// Number >= 0. Default 1.0.
  double minIntervalS = 1.0;
  /// `timeout_s`: the longest one request (recognition or model download) may take, seconds.
  /// Number > 0. Default 10.0.
  double timeoutS = 10.0;
  /// `models_dir`: where downloaded target models are kept, one file per target; "" = a folder
  /// made in the system's temporary directory. String (a path, or ""). Default "".
  std::string modelsDir;
  /// `jpeg_quality`: the JPEG quality of the frames sent. Integer in [10, 100]. Default 90.
  int jpegQuality = 90;
};

/// Every tunable of the pipeline. A default-constructed Config is the default configuration
/// (config/default.yaml); it is valid.
struct Config {
  DetectorConfig detector;      ///< The `detector:` section.
  DescriptorConfig descriptor;  ///< The `descriptor:` section.
  MatcherConfig matcher;        ///< The `matcher:` section.
  RansacConfig ransac;          ///< The `ransac:` section.
  QuadConfig quad;              ///< The `quad:` section.
  TrackingConfig tracking;      ///< The `tracking:` section.
  MotionConfig motion;          ///< The `motion:` section.
  PoseConfig pose;              ///< The `pose:` section.
  CameraConfig camera;          ///< The `camera:` section.
  TargetConfig target;          ///< The `target:` section.
  RenderConfig render;          ///< The `render:` section.
  OutputConfig output;          ///< The `output:` section.
  RecognitionConfig recognition;  ///< The `recognition:` section.
};

/// @{
/// Field-by-field equality (numbers compared exactly).
bool operator==(const Config& a, const Config& b);
bool operator!=(const Config& a, const Config& b);
/// @}

/// Reads a YAML configuration file: the defaults, overridden by what the file names.
/// @throws ConfigError "cannot read config file '<path>': <reason>" when it cannot be read,
///   and the errors of parseConfig() (with the path as source name) otherwise.
Config loadConfig(const std::string& path);

/// Parses YAML text: the defaults, overridden by what the text names, then validated.
/// `sourceName` names the text in error messages (a file name, "<embedded>", ...).
/// @throws ConfigError "<sourceName>:<line>: <what>" for malformed YAML, a top level that is not
///   a map, more than one YAML document, unknown or duplicate sections and keys, values of the
///   wrong type, NaN or infinity, values out of range, unknown enum names, and broken
///   cross-field rules.
Config parseConfig(const std::string& yamlText, const std::string& sourceName);

/// Checks a Config (built or changed in code) against the same rules parseConfig() applies.
/// @throws ConfigError "<sourceName>: <key path> = <value>: expected ..." (no line) for the
///   first broken rule, in schema order.
void validate(const Config& config, const std::string& sourceName = "<config>");

/// The configuration as YAML: every section and key, in schema order, one key per line with
/// its allowed values as a comment. parseConfig(toYaml(c), ...) == c for every valid c (numbers
/// are written with the fewest digits that read back exactly).
std::string toYaml(const Config& config);

}  // namespace nft::config
