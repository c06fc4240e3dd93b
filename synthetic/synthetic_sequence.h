#pragma once
// The built-in default input of nft_replay: a hand-held-camera video synthesised at run time
// from real images Debian's opencv-doc package ships (no data folder needed), with exact
// ground-truth corners for every frame.
//
// A printed target (graf1.png, on a white paper margin) lies in the middle of a larger
// textured surface (building.jpg, slightly blurred), the plane z = 0. A virtual camera with
// the default calibration (60° horizontal field of view) moves over it along a smooth random
// 6-DoF path (sums of sinusoids with seeded frequencies and phases): distance 0.30–0.70 m
// (the target 160–370 px wide at 640×480), tilt up to about 50°, in-plane roll up to ±100°,
// the target's centre wandering over the frame, a small hand tremor, and two bursts of fast
// motion. Each frame is the surface warped by the camera's homography (cv::warpPerspective from
// a Gaussian pyramid level chosen by the scale, so minified texture does not alias), averaged
// over sub-frame poses within a half-frame exposure (motion blur), then lit with a slowly
// changing gain, offset and gradient and given Gaussian sensor noise. Deterministic: the same
// options give bit-identical frames (own uniform numbers from std::mt19937, whose output
// sequence the C++ standard fixes; cv::RNG seeded per frame).
//
// SyntheticSequenceOptions::preset swaps the default path for one of the POT benchmark's
// challenge categories (synthetic_presets.h: scale, rotation, perspective, motion blur,
// occlusion, out of view, unconstrained), rendered the same way with finer sub-frames (the
// presets move up to 80 px per frame) and, for the occlusion presets, a textured occluder
// composited in every sub-frame. The default path and its frames are unchanged by the presets.
//
// The bent page (SyntheticPreset::BentPage) is the one target that is not flat: its paper is bent
// around a cylinder whose axis runs along the target's height, kBentPageRadiusWidths × the
// target's width behind it (the page's vertical centre line lies where the flat target's would,
// its edges bend away from the camera), drawn through cv::remap from a map of frame pixels to
// paper pixels, each the intersection of the pixel's ray with the cylinder. project() gives the
// exact frame position of any target point; no homography maps the whole page, so the ground
// truth (homography(), corners()) is the best homography of the target points inside the frame
// (../shared/DESIGN.md, "Accuracy on real footage").

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "synthetic/synthetic_presets.h"

namespace nft::replay {

/// Where opencv-doc puts its sample images (Debian 12).
inline constexpr const char* kOpencvDocData = "/usr/share/doc/opencv-doc/examples/data";

/// Settings of the synthetic sequence.
struct SyntheticSequenceOptions {
  cv::Size frameSize{640, 480};  ///< pixels, each side >= 64
  int frames = 300;              ///< >= 1; at 30 frames/s
  std::uint32_t seed = 8;        ///< the path's random frequencies and phases, and the noise
  std::string targetPath = std::string(kOpencvDocData) + "/graf1.png";
  std::string backgroundPath = std::string(kOpencvDocData) + "/building.jpg";
  double targetWidthM = 0.20;    ///< printed width of the target image, metres, > 0
  double noiseSigma = 3.0;       ///< sensor noise, grey levels (standard deviation), >= 0
  /// The camera path: the default hand-held one, or a POT challenge category.
  SyntheticPreset preset = SyntheticPreset::Default;
  /// > 0: every camera distance of the path is scaled so that the target, seen frontally from
  /// kReferenceDistanceM, covers this share of the frame's area (the phone-camera case of a small
  /// target in an HD frame; POT's objects cover about 1/16 to 1/4 of theirs); the motion in
  /// frame pixels is the path's own. 0: the path's own distances (the target about 1/6 of a
  /// 640 × 480 frame from 0.45 m). In [0, 1]; > 0 needs a POT preset (not Default).
  double targetFraction = 0;
  /// Texture of the occluder of the occlusion presets (read only by those).
  std::string occluderPath = std::string(kOpencvDocData) + "/fruits.jpg";
};

/// The distance targetFraction is defined at: the presets' typical distance, metres.
inline constexpr double kReferenceDistanceM = 0.45;

/// Four corners in frame pixels: upper-left, upper-right, lower-right, lower-left.
using QuadCorners = std::array<cv::Point2f, 4>;

/// The synthesised video: frames rendered on demand, ground truth per frame. Immutable after
/// construction (render() is const and thread-compatible).
class SyntheticSequence {
 public:
  /// Loads the images and plans the camera path.
  /// @throws std::runtime_error naming the image file (and the package opencv-doc) when it is
  ///   missing or unreadable; std::invalid_argument for options out of range.
  explicit SyntheticSequence(const SyntheticSequenceOptions& options = {});

  const SyntheticSequenceOptions& options() const { return options_; }
  int frameCount() const { return options_.frames; }
  cv::Size frameSize() const { return options_.frameSize; }
  /// 30 frames/s.
  double fps() const { return 30.0; }
  /// The target image as loaded (BGR): what a user would print and train.
  const cv::Mat& targetImage() const { return target_; }
  /// Frame `index` (in [0, frameCount())): CV_8UC3 BGR of frameSize().
  /// @throws std::out_of_range for another index.
  cv::Mat render(int index) const;
  /// Homography target-image pixels → frame pixels at the middle of frame `index`'s exposure.
  /// The bent page: the least-squares homography (cv::findHomography, method 0) of a 21 × 21 grid
  /// of target points over the whole target, fitted to their exact positions (project()) of those
  /// inside the frame ([0, width) × [0, height)); of all of them when fewer than 8 are inside.
  cv::Matx33d homography(int index) const;
  /// The target image's corners (0,0), (w,0), (w,h), (0,h) mapped into frame `index` by
  /// homography(index) (the bent page: not where its corners are, project() says that).
  QuadCorners corners(int index) const;
  /// Exact frame positions (pixels) of target-image points (pixels; any point of the target's
  /// plane, inside the image or not) at the middle of frame `index`'s exposure: through
  /// homography(index) for a flat target, on the cylinder for the bent page.
  std::vector<cv::Point2f> project(int index, const std::vector<cv::Point2f>& targetPoints) const;

  /// The camera at one instant: X_camera = R·X + t (metres) for a point X = (x, y, z) of the
  /// target's frame: origin at the target's upper-left corner, x along its width, y along its
  /// height, z away from the camera when the view is frontal (the flat target is z = 0).
  struct TargetPose {
    cv::Matx33d R;
    cv::Vec3d t;
  };
  /// The pose at the middle of frame `index`'s exposure; with cameraMatrix(), what project() uses.
  TargetPose targetPose(int index) const;
  /// The frames' camera matrix (tracker::defaultCalibration of frameSize()), pixels.
  const cv::Matx33d& cameraMatrix() const { return K_; }
  /// Width of a target-image pixel on the print, metres (options().targetWidthM / image width).
  double metresPerPixel() const { return metresPerPixel_; }
  /// The bent page's radius of curvature, metres (kBentPageRadiusWidths × targetWidthM); 0 for
  /// a flat target. Its surface: the target point (u, v) (pixels, s = u·metresPerPixel() − w/2
  /// its arc length from the centre line, w the target's width in metres) lies at
  /// (w/2 + r·sin(s/r), v·metresPerPixel(), r·(1 − cos(s/r))) in the target's frame.
  double bendRadiusM() const { return bendRadiusM_; }
  /// Ground truth of every frame (corners(i) for each i).
  std::vector<QuadCorners> groundTruth() const;
  /// The occluder at the middle of frame `index`'s exposure (target-normalised placement),
  /// std::nullopt when the preset has none or it is away; e.g. coveredFraction() is the part of
  /// the target it hides.
  std::optional<OccluderPlacement> occluder(int index) const;

 private:
  /// The camera's six degrees of freedom: distance (metres, before distanceScale_), angles in
  /// radians, offsets in pixels.
  struct Dofs {
    double distance, tiltX, tiltY, roll, offsetX, offsetY;
  };
  /// The path's camera at time `frame` (fractional frames allowed).
  Dofs dofsAt(double frame) const;
  /// Camera pose of the target at time `frame` (fractional frames allowed).
  cv::Matx33d homographyAt(double frame) const;  // surface pixels → frame pixels
  /// The camera `d` as R, t (TargetPose).
  TargetPose cameraPose(const Dofs& d) const;
  /// Surface pixels → frame pixels for the camera `d`.
  cv::Matx33d cameraHomography(const Dofs& d) const;
  /// Presets: draws the printed target and the occluder (if any at time t) over `warped`, the
  /// background at time t, from their pyramid level `level`.
  void drawLayers(double t, int level, cv::Mat& warped) const;
  /// The bent page: draws its paper (pyramid level `level`) at time t over `warped`.
  void drawBentPaper(double t, int level, cv::Mat& warped) const;
  /// The bent page: target pixels (u, v) → the point of the cylinder in the target's frame, metres.
  cv::Vec3d bentPoint(double u, double v) const;
  /// The bent page: the least-squares homography of the grid's target points inside frame `index`.
  cv::Matx33d visibleHomography(int index) const;

  SyntheticSequenceOptions options_;
  cv::Mat target_;
  std::vector<cv::Mat> surface_;  // Gaussian pyramid of the surface (target + background)
  cv::Point2d targetOrigin_;      // target's top-left corner in surface pixels
  cv::Matx33d K_;
  double metresPerPixel_ = 0;
  double distanceScale_ = 1;  // every camera distance × this (targetFraction)
  struct Path;
  std::shared_ptr<const Path> path_;
  std::optional<PresetPath> preset_;  // set for every preset but Default
  std::vector<cv::Mat> occluder_;     // Gaussian pyramid of the occluder texture (occlusion presets)
  std::vector<cv::Mat> paper_;        // presets: the target on its paper, a layer over the background
  cv::Point2d paperOrigin_;           // the paper's top-left corner in surface pixels
  double bendRadiusM_ = 0;            // the bent page's radius of curvature, metres; 0: flat
};

}  // namespace nft::replay
