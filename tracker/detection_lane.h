#pragma once
// DetectionLane: the tracker's detection lane (../shared/DESIGN.md, "The pipeline"): finds the
// target in a frame with no prior pose.
//
// One detect() call, in order:
// 1. detect:   scale-aware FAST on the frame (detection/fast_detector.h), CPU; the keypoint
//              budget and the passes below follow the smallest target to find
//              (minFrameFraction; tracker/detection_plan.h).
// 2. describe: SURF descriptors of those keypoints by the lane's KeypointDescriber
//              (detection/backend.h): SURF-ES on the GPU (detection/surf_es.h; the descriptors
//              stay on the GPU, no readback) or SurfCpu on the CPU.
// 3. match:    the lane's TargetMatcher against the target's descriptors (set once, in the
//              constructor): GpuMatcher (only the match list is read back) or CpuMatcher
//              (detection/nearest_neighbours.h); nearest two, Lowe's ratio test, optional
//              cross-check. Steps 2-5 run in passes of growing size over the keypoints
//              (DetectionPlan::passEnds): the strongest firstPassFraction of the budget first,
//              then twice as many, ..., each only when the passes before found no target (its
//              matches added to theirs, steps 4-5 again). A model with
//              tilted views (TargetModel::tiltedKeypoints, ASIFT's simulated tilts) is matched
//              in two steps: the target's own descriptors first, and only when steps 4–5 find
//              nothing with those, the tilted views' too (their matches added to the first
//              ones, steps 4–5 again). Most frames show the target within the tilt its own
//              descriptors match, and the views hold 1.5 times as many descriptors: on all 531
//              frames of tmt_bookI (detection alone, CPU lanes, llvmpipe) matching all at once,
//              with the frame's keypoints budgeted on all of them (targetKeypointFactor), took
//              12.3 ms per frame against 9.1 ms in two steps, for 84.6 against 84.2 %
//              within 5 px — the same as a model without views (9.2 ms, 68.9 %).
//    Which backend each stage takes is DetectionLaneOptions::descriptorBackend / matcherBackend:
//    gpu, cpu, or auto (the CPU lanes on a software GLES2 renderer such as llvmpipe, where they
//    are several times faster; the GPU lanes elsewhere: detection::resolveBackend).
// 4. ransac:   homography target pixels → frame pixels from the matched keypoint positions by
//              cv::findHomography (cv::USAC_MAGSAC by default, or any method OpenCV takes, e.g.
//              cv::RANSAC); rejected when it has fewer than minInliers inliers or the
//              projected target quad is implausible (tracker/quad_check.h — never by the sign of
//              det of H's 2×2 block, which is negative for legitimate far-tilted views).
// 5. pose:     planar PnP (IPPE + LM, tracker/pose.h) of the homography: fitted to a 3 × 3 grid
//              of target points mapped by it (poseFromHomography), metric with the model's
//              metresPerPixel(); its reprojection error is measured on the inliers.
//    A curved target (a label on a cylinder or cone, TargetModel::geometry) takes steps 4–5 as
//    PnP in RANSAC on the matches' points on its surface instead (tracker/curved_detection.h):
//    the same inlier floor, the pose, the label's corners projected and the homography of its
//    tangent plane along the middle column.
//
// Frame size: fixed at construction by calibration.imageSize (SurfEs's textures are allocated
// for it). A frame of another size is an error (std::invalid_argument naming both sizes): the
// caller resizes the frame or builds a lane for the new size (with scaledTo(calibration, size)).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>

#include "detection/backend.h"
#include "detection/fast_detector.h"
#include "detection/gpu_matcher.h"
#include "detection/match.h"
#include "detection/surf_es.h"
#include "detection/target_model.h"
#include "tracker/camera_calibration.h"
#include "tracker/detection_plan.h"
#include "tracker/pose.h"
#include "tracker/quad_check.h"

namespace nft::gpu {
struct Capabilities;
}

namespace nft::tracker {

/// Settings of DetectionLane. Defaults chosen by measurement on all 531 frames of tmt_bookI
/// (a scratch experiment over tests/tracker/tmt_target.h's helpers; target.png's model trained
/// with FAST threshold 30, 399 keypoints; llvmpipe; the test's model, threshold 20 and 639
/// keypoints, gives 65.5 % / 70.8 % with these defaults). "ok" = corners within 5 / 10 px of gt.tsv; "false" = a detection more
/// than 10 px off; "tilted" = frames 214–375 within 10 px.
///
///   variant (rest = defaults)          5 px    10 px   false  tilted
///   defaults: MAGSAC 4 px, ratio 0.9,
///     minInliers 20                    62.0 %  67.8 %    1      30
///   minInliers 15 / 25                 62.5 / 60.5 %  68.4 / 64.0 %  12 / 1  32 / 25
///   MAGSAC 3 px                        62.0 %  63.8 %    1      24
///   MAGSAC 2 px / 5 px                 60.5 / 61.2 %  62.0 / 67.2 %  1 / 10  21 / 28
///   RANSAC 3 px (cv::RANSAC)           57.4 %  61.4 %   12      18
///   ratio 0.8, MAGSAC 3 px, minIn. 10  57.1 %  61.2 %    3      21
///   ratio 0.8, RANSAC 3 px, minIn. 12  53.5 %  56.1 %    2       9
///   ratio 0.85, 3 px, minInliers 12    61.2 %  65.3 %    7      25
///   ratio 0.95, 3 px, minInliers 25    61.8 %  63.7 %    4      22
///
/// The target is small (134 × 190) and the book's views are at its scale, so the ratio test at 0.8
/// throws away many right matches; 0.9 keeps them and the higher inlier floor (20) removes the
/// false detections it would add. MAGSAC beats RANSAC at every setting tried (and is ~25 % faster
/// here: 26 vs 36 ms median per frame).
struct DetectionLaneOptions {
  /// Keypoint detector run on each frame. maxKeypoints 0 (the default) = auto: the budget
  /// follows minFrameFraction (DetectionPlan; 2000 at 0.2); > 0 fixes it. The resolved budget
  /// also sizes SurfEs and the matcher.
  detection::FastDetectorOptions detector{/*maxKeypoints=*/0};
  /// The smallest target to find: the side of a square of its area as a fraction of the side of
  /// a square of the frame's (the square root of the fraction of the frame it covers), in (0, 1].
  /// Sets the auto keypoint budget (tracker/detection_plan.h). 0.2: a target covering 1/25 of the
  /// frame (a 300 × 140 px sign in a 1280 × 720 frame is 0.21).
  double minFrameFraction = 0.2;
  /// SurfEs storage path (descriptor type and orientation come from the target model).
  detection::DescriptorStorage storage = detection::DescriptorStorage::Auto;
  /// SurfEs fragment precision override p (SurfEsOptions::precisionBits): 0 = the GPU's; lower
  /// values make a desktop compute what a mediump GPU would (e.g. 10: Mali-400).
  int precisionBits = 0;
  /// SurfEs lookups per box mean (SurfEsOptions::boxTaps): 1 or 2.
  int boxTaps = 2;
  /// Ratio test applied to the matches: ratio 0.9 (table above; 0.8, the matchers' default,
  /// finds 5 points fewer frames). crossCheck works with both matcher backends (the GPU matcher
  /// then has the frame's descriptors read back for its transposed search).
  detection::MatchOptions matching{0.9f, false};
  /// Where the descriptors are computed: Gpu (SurfEs), Cpu (SurfCpu) or Auto (Cpu on a software
  /// GLES2 renderer, gpu::Capabilities::softwareRenderer; Gpu elsewhere).
  detection::Backend descriptorBackend = detection::Backend::Auto;
  /// Where they are matched: Gpu (GpuMatcher), Cpu (CpuMatcher) or Auto (as descriptorBackend).
  detection::Backend matcherBackend = detection::Backend::Auto;
  /// cv::findHomography method: cv::RANSAC, cv::USAC_MAGSAC, cv::USAC_DEFAULT, ... (a robust one;
  /// 0 / cv::LMEDS are accepted too).
  int ransacMethod = cv::USAC_MAGSAC;
  /// RANSAC inlier threshold: reprojection distance in frame pixels, > 0.
  double ransacThresholdPx = 4.0;
  /// RANSAC iterations cap (>= 1) and confidence in (0, 1). A set of n matches gets at most the
  /// iterations that draw an all-inlier sample with this confidence if it holds minInliers
  /// inliers (fewer fail the inlier floor anyway): 1 − (1 − C(minInliers, 4) / C(n, 4))^k >=
  /// confidence (minInliers 20: 28 for 30 matches, 250 for 50, 1727 for 80, the cap of 2000 from
  /// 83 on).
  int ransacMaxIterations = 2000;
  double ransacConfidence = 0.995;
  /// Fewest RANSAC inliers accepted, >= 4.
  int minInliers = 20;
  /// Plausibility limits of the projected target quad.
  QuadLimits quad;
  /// Refine the IPPE pose by Levenberg-Marquardt (tracker/pose.h) on the homography's grid points.
  bool refinePose = true;
  /// A detection in a region (detect(frame, region)) keeps the strongest this share of
  /// detector.maxKeypoints, in (0, 1]. Measured on the built-in synthetic sequence's first 16
  /// frames, the region the target's box plus half its size on each side (the tracker's
  /// recovery), against the whole frame (81 % of the frames found, 14.3 ms median on llvmpipe):
  /// 1.0 finds 100 % in 0.96 × its time, 0.5 94 % in 0.75 ×, 0.3 69 % in 0.61 ×, 0.2 none
  /// (tests/benchmarks/fast_motion_benchmark.cpp, BM_RegionDetection). The region's passes
  /// (firstPassFraction) are the frame's scaled to this budget: with the auto budget of 2000, a
  /// region keeps 1000 keypoints, searched in passes of 250, 500 and 1000.
  double regionKeypointFraction = 0.5;
  /// The inlier floor of a search near an expected pose (detect(frame, region, near)), whose
  /// matches are scale-consistent with it (kNearScaleTolerance): min(minInliers, this), >= 4.
  /// The scale check removes most wrong matches (issue 45's HD unconstrained preset, 1280×720,
  /// the target at 1/16 of the frame, seed 8: 46–86 matches a pass before it, 0–17 after it in
  /// the frames that stayed lost), so fewer inliers are as telling as minInliers among all.
  /// Measured there (nft_eval tracking, 300 frames; every other preset at 640×480 and 1280×720
  /// and tmt_bookI, korean_book unchanged): no scale check 88.3 % within 5 px; the check with 20
  /// (minInliers) 89.7 %, 14 or 12 90.0 %.
  int nearMinInliers = 14;
  /// Fewer frame keypoints for a small target: a frame keeps at most this many times the target
  /// model's own keypoint count, tilted views not counted (never under 200, never over
  /// detector.maxKeypoints); 0 turns it off.
  /// A small target seen at its own scale covers a small part of the frame, and the strongest
  /// spread keypoints beyond about twice its count mostly land off it. Measured with nft_eval
  /// tracking on all 531 frames of tmt_bookI (target.png: 399 keypoints; detection on every
  /// frame, CPU backends, llvmpipe, one core, ORB's time in the same run): 0 (1000 keypoints)
  /// 63.8 / 68.9 % within 5 / 10 px at 1.12 × ORB's time per frame; 2.0 (798) 63.1 / 68.2 % at
  /// 0.77 ×; 1.5 (600) 61.4 / 66.9 % at 0.64 ×. cmu_book's cover (1000 keypoints) is unaffected.
  /// Off by default since the budget follows the smallest target to find (minFrameFraction) and
  /// the passes start small: the target's own keypoint count says nothing of how much of the
  /// frame it covers, and a small target in a cluttered HD frame needs the whole budget.
  double targetKeypointFactor = 0.0;
  /// Steps 2-5 (describe, match, verify) on the strongest this share of the keypoint budget
  /// first, then on twice as many, and so on up to all, each pass only when the ones before
  /// found no target (DetectionPlan::passEnds), in (0, 1]; 1 = one pass. A first pass under
  /// 4 × minInliers keypoints is not split off (too few to find a target). Where a large target
  /// is in view its strongest keypoints usually suffice; a frame without one costs one more
  /// RANSAC per pass. With the cross-check a later pass's reverse search would cover only its own
  /// keypoints, so matching.crossCheck describes all keypoints in one pass. 0.25 with the auto
  /// budget of minFrameFraction 0.2 (2000): passes of 500, 1000 and 2000 keypoints, the first
  /// two those of the earlier fixed budget of 1000 with 0.5.
  /// Measured with 0.5 and the fixed budget of 1000, nft_eval tracking on all 531 frames of tmt_bookI (detection alone, the
  /// detections refined; CPU lanes, llvmpipe, one core, ORB's time in the same run): 1.0 84.2 /
  /// 84.9 % within 5 / 10 px at 0.92 × ORB's time per frame, 0.5 84.2 / 84.9 % at 0.83 ×, 0.35
  /// the same at 0.78 ×; the lane alone (nft_detection_backend_benchmark) 0.5 against 1.0:
  /// 6.3-6.5 against 9.9-10.2 ms on tmt_bookI, 7.3-8.9 against 12.9-14.4 ms on cmu_book.
  double firstPassFraction = 0.25;
  /// The size of the full-resolution frames of which the lane's frames (calibration.imageSize)
  /// are the downscaled working frame (session/working_frame.h), or empty (the default): none.
  /// When set, detect() also takes frames of this size: FAST (with as many more pyramid levels as
  /// the fine frame is larger, round(log r / log scaleFactor), so that its coarsest level is the
  /// working frame's: the fine search covers the working one's scales, e.g. a blurred target's),
  /// the descriptors, matching and RANSAC run on them (the keypoint budget, minFrameFraction's,
  /// spread over them), and the
  /// detection comes back in calibration.imageSize pixels, mapped as working pixel centre (u, v)
  /// is fine pixel ((u + 0.5)·rx − 0.5, (v + 0.5)·ry − 0.5), rx, ry the sizes' ratios (scaledTo's
  /// mapping). A small target keeps its detail there: a 300 × 140 px sign in 1280 × 720 is 150 × 70
  /// in the 640 × 360 working frame, where the 60 px SURF window of a level-0 keypoint spans most of
  /// its height and 30-40 keypoints match it right; at full resolution about 300 do (issue 45).
  /// Each side at least calibration.imageSize's.
  cv::Size fineFrameSize;
};

/// Per-stage wall-clock times of one detect() call, milliseconds (steady_clock). detect: FAST on
/// the pyramid (and the keypoint cap); describe; match; ransac: cv::findHomography and the quad
/// check; pose: IPPE (+ LM). GPU work is asynchronous: SurfEs's passes are queued in `describe`
/// and finish inside `match`, whose readback waits for them, so with the GPU backends describe +
/// match is the GPU part. A stage that did not run is 0.
struct DetectionTimings {
  double detect = 0, describe = 0, match = 0, ransac = 0, pose = 0;
  double total() const { return detect + describe + match + ransac + pose; }
};

/// A found target.
struct Detection {
  /// Homography from target pixels (the model's working-image pixels, TargetModel::image) to
  /// frame pixels; normalised so that H(2,2) = 1.
  cv::Matx33d homography;
  /// Camera pose of the target (metres when the model's width is known), fitted to `homography`
  /// (a 3 × 3 grid of target points it maps); reprojectionErrorPx over the inliers, inliers as
  /// below.
  Pose pose;
  /// RANSAC inliers (correspondences within ransacThresholdPx of the homography).
  int inliers = 0;
  /// The target image's corners (0,0), (w,0), (w,h), (0,h) (w × h = TargetModel::image size)
  /// mapped by `homography` into frame pixels: upper-left, upper-right, lower-right, lower-left.
  std::vector<cv::Point2f> corners;
  /// Mean reprojection error of the inliers under `pose`, pixels (= pose.reprojectionErrorPx).
  double reprojectionErrorPx = 0;
  /// Number of keypoints detected in the frame and of matches that passed the ratio test (and,
  /// for detect(frame, region, near), the scale check).
  int keypoints = 0;
  int matches = 0;
  DetectionTimings timings;
};

/// The stricter ratio tests verifyDetection() tries, in order, when the lane's own (0.9) finds
/// nothing: the matches of each that pass it, when they are fewer than the last set tried and at
/// least minInliers. A small target in a large frame (a 300 × 140 px sign in 1280 × 720) gives
/// 30-40 right matches among 400-500 at ratio 0.9: under 10 % inliers, which RANSAC's 2000
/// iterations do not find (it needs about 80,000 for a clean sample), where at 0.8 the same right
/// matches are a third of about 100. The ratio 0.9 keeps the right matches of a target seen at its
/// own scale (the table above); the stricter sets cost a RANSAC on a few matches, and only where
/// nothing was found.
inline constexpr float kStricterRatios[] = {0.8f, 0.7f};

/// How far (a factor either way) a keypoint's scale may be from what the expected homography
/// predicts in DetectionLane::detect(frame, region, near): one octave, for the scale the target
/// changed to since, the detectors' √2 level steps on both sides and a view's foreshortening.
inline constexpr double kNearScaleTolerance = 2.0;

/// The RANSAC iterations verifyDetection() gives a set of `matches` correspondences: the fewest k
/// with 1 − (1 − p)^k >= confidence, p = C(inliers, 4) / C(matches, 4) the chance that a sample of
/// 4 drawn without replacement holds inliers only, when the set holds `inliers` of them (the
/// lane's minInliers: a set holding fewer fails the inlier floor whatever RANSAC draws); within
/// [1, cap] (cap = ransacMaxIterations). The standard RANSAC bound (Fischler and Bolles 1981;
/// Hartley and Zisserman, section 4.7.1) for the smallest inlier share that can pass.
/// @throws std::invalid_argument unless 4 <= inliers <= matches, confidence in (0, 1), cap >= 1.
int ransacIterationsFor(int inliers, int matches, double confidence, int cap);

/// RANSAC homography target → frame from matched points, inlier floor, quad check and planar PnP
/// (DetectionLane's steps 4-5). `targetPoints[m.target]` and `frameKeypoints[m.query]` are each
/// match's ends. When that finds nothing, again on the matches that pass each of kStricterRatios
/// (Match::distance < ratio · secondDistance); a homography found so is fitted again on all of
/// `matches` it explains within ransacThresholdPx (guided matching), which places it more exactly.
/// Returns std::nullopt with `rejection` set (the
/// whole set's: "too few inliers: 7 < 20", a quad problem, "no pose: ..."); `ransacMs` and
/// `poseMs` get the stage times.
std::optional<Detection> verifyDetection(const std::vector<detection::Match>& matches,
                                         const std::vector<cv::Point2f>& targetPoints,
                                         const std::vector<detection::Keypoint>& frameKeypoints, cv::Size targetSize,
                                         double metresPerPixel, const CameraCalibration& calibration,
                                         const DetectionLaneOptions& options, std::string& rejection, double& ransacMs,
                                         double& poseMs);

/// The detection lane for one target and one frame size. With a GPU backend it holds GPU
/// resources (SurfEs, GpuMatcher): the GL context must then be current at construction, in every
/// detect() and at destruction (the CPU backends need no context after construction). Move-only.
/// Not thread-safe.
class DetectionLane {
 public:
  /// Builds the detector, SurfEs for calibration.imageSize frames, and uploads the target's
  /// descriptors to the GPU matcher.
  /// @throws std::invalid_argument for an options value out of range (named), a model without
  ///   keypoints/descriptors or whose descriptor count differs from its keypoint count or whose
  ///   tiltedKeypoints is not in [0, keypoint count) (it needs keypoints of its own), a
  ///   non-positive calibration.imageSize, or crossCheck requested; what SurfEs / GpuMatcher
  ///   throw (gpu::GpuError, gpu::ShaderError) passes through.
  DetectionLane(const gpu::Capabilities& caps, const detection::TargetModel& model,
                const CameraCalibration& calibration, const DetectionLaneOptions& options = {});
  /// The same with the describer and matcher given (any backend, e.g. a test's own); the
  /// options' descriptorBackend / matcherBackend are then ignored, and the one matcher holds all
  /// of the model's descriptors (tilted views matched at once, not in two steps). The describer's descriptor
  /// type must be the model's. @throws std::invalid_argument as above, for a null describer or
  ///   matcher, or a describer of another descriptor type or orientation than the model's.
  DetectionLane(std::unique_ptr<detection::KeypointDescriber> describer,
                std::unique_ptr<detection::TargetMatcher> matcher, const detection::TargetModel& model,
                const CameraCalibration& calibration, const DetectionLaneOptions& options = {});
  ~DetectionLane();
  DetectionLane(DetectionLane&&) noexcept;
  DetectionLane& operator=(DetectionLane&&) noexcept;

  /// Finds the target in `frame`.
  /// @param frame CV_8UC1 grey or CV_8UC3 BGR, exactly frameSize() or, where options().fineFrameSize
  ///   is set, exactly that (any step); the detection is in frameSize() pixels either way.
  /// @return the detection, or std::nullopt when the frame has too few keypoints or matches, RANSAC
  ///   finds fewer than minInliers inliers, the quad is implausible, or no pose fits (e.g. a blank
  ///   frame). lastTimings() holds the stage times in either case.
  /// @throws std::invalid_argument for an empty frame, a type other than CV_8UC1 / CV_8UC3 (the
  ///   message names it), or a size other than frameSize() (the message names both sizes).
  std::optional<Detection> detect(const cv::Mat& frame);
  /// Finds the target within `region` of `frame` only: FAST runs on that part of the frame
  /// (its keypoints spread over the region, so the target gets more of them than in the whole
  /// frame; the strongest regionKeypointFraction × maxKeypoints are kept), the keypoints are
  /// described and matched as in detect(frame), in passes scaled to that budget (the same
  /// firstPassFraction of it), and the result is in whole-frame pixels. Cheaper
  /// than the whole frame (0.74 × its time with the default fraction): the recovery near the last
  /// pose after a loss (tracker/tracker.h). A region under 8 px a side after clipping to the
  /// frame finds nothing ("empty detection region").
  /// @param region frameSize() pixels (also for a frame of fineFrameSize); clipped to the frame.
  /// @return and @throws as detect(frame).
  std::optional<Detection> detect(const cv::Mat& frame, const cv::Rect& region);
  /// The same where the target is expected under `near` (homography target pixels → frameSize()
  /// pixels, e.g. its last pose; finite): only the frame keypoints on the scales the target can
  /// show there count against the budget (its keypoints' SURF scales times near's local scale,
  /// sqrt |det| of its Jacobian, within a factor kNearScaleTolerance), and a match is kept only
  /// when its frame keypoint's scale over its target keypoint's is within kNearScaleTolerance of
  /// near's local scale at the target keypoint. The re-detection after a loss (issue 45's item 1:
  /// at the target's last scale, the budget there): a small target in a cluttered frame keeps
  /// its right matches and loses most wrong ones, which RANSAC then finds among fewer.
  /// @throws std::invalid_argument also for a non-finite `near`.
  std::optional<Detection> detect(const cv::Mat& frame, const cv::Rect& region, const cv::Matx33d& near);

  /// Frame size this lane takes (calibration.imageSize); also options().fineFrameSize when set.
  cv::Size frameSize() const;
  /// Size of the target image the homography starts from (TargetModel::image).
  cv::Size targetSize() const;
  const DetectionLaneOptions& options() const;
  /// The backends in use (Gpu or Cpu: Auto resolved at construction).
  detection::Backend descriptorBackend() const;
  detection::Backend matcherBackend() const;
  /// Stage times of the last detect() call.
  const DetectionTimings& lastTimings() const;
  /// How frames are searched: keypoint budget and passes (tracker/detection_plan.h); sized for the
  /// largest frame the lane takes (fineFrameSize when set).
  const DetectionPlan& plan() const;
  /// Why the last detect() returned nullopt ("" after a detection), e.g. "too few inliers: 7 < 12"
  /// or a quadProblem() reason; for logs and experiments.
  const std::string& lastRejection() const;

 private:
  /// detect(frame, region) in `frame`'s own pixels (`frameCalibration`: the lane's or the fine one).
  /// `near` (may be null) in `frame`'s pixels.
  std::optional<Detection> detectIn(const cv::Mat& frame, const cv::Rect& region,
                                    const CameraCalibration& frameCalibration, const detection::FastDetector& detector,
                                    const cv::Matx33d* near);
  /// detect(frame, region[, near]); `near` in frameSize() pixels or null.
  std::optional<Detection> detectNear(const cv::Mat& frame, const cv::Rect& region, const cv::Matx33d* near);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::tracker
