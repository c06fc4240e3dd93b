#pragma once
// Synthetic videos of a curved target (issue 47, item 6): a label wrapped around a can, a bottle
// or a cup, in a cluttered scene, seen by a camera on one of the presets' paths, with the exact
// pose of every frame.
//
// The object is the label's band on its cylinder or cone (detection/label_surface.h: the label
// between its top and bottom edges, the bare rest of the body a light metallic grey, its inside
// darker where a tilt shows it), shaded by a light fixed to the object (so the label does not
// look as flat as its image). Behind it, 2.5 object sizes away, a wall textured with opencv-doc's
// building.jpg (mirrored past its borders). Every frame pixel's ray is cast onto the surface
// (LabelSurface::castRay) at a few sub-frame poses within a half-frame exposure and averaged
// (motion blur); then the lighting changes and sensor noise of the planar presets
// (synthetic_render.h). Deterministic: the same options give the same frames.
//
// The camera: a POT preset's path (synthetic_presets.h: distance, tilts, roll, offsets) about the
// label's middle point, every distance scaled so that the object looks as large as the presets'
// 0.2 m target; and, on top of it, the object turned about its own axis: ±30° slowly on every
// preset, and for the motion "turn" a sweep of up to ±(coverage/2 + 110°) (at most ±180°) that
// takes the whole label (a full wrap: its seam) out of view and brings it back. The occlusion
// presets' occluder slides across the object just in front of it.

#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/label_surface.h"
#include "synthetic/synthetic_presets.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::replay {

/// The curved objects of the issue.
enum class CurvedShape {
  Can,     ///< a cylinder of radius 3.3 cm (CurvedSequenceOptions::radiusM)
  Bottle,  ///< a cylinder of radius 6 cm by default (4–10 cm)
  Cup,     ///< a cone, 4.5 cm radius at the label's top edge and 3 cm at its bottom (rectangle label)
};

/// "can", "bottle", "cup"; and back (std::nullopt for another name).
std::string toString(CurvedShape shape);
std::optional<CurvedShape> parseCurvedShape(const std::string& name);

/// Settings of a curved sequence.
struct CurvedSequenceOptions {
  cv::Size frameSize{640, 480};  ///< pixels, each side >= 64
  int frames = 300;              ///< >= 1, at 30 frames/s
  std::uint32_t seed = 8;        ///< the path's phases and the noise
  CurvedShape shape = CurvedShape::Can;
  /// The cylinder's radius, metres, > 0; 0: the shape's own (can 0.033, bottle 0.06). Not for a cup.
  double radiusM = 0;
  /// The angle the label covers about the axis, degrees, in [90, 360] (its width is that arc,
  /// measured at the bottom edge for the cup).
  double coverageDeg = 180;
  /// A POT preset's name (synthetic_presets.h: every one but "default" and "bent_page") or "turn".
  std::string motion = "turn";
  std::string labelPath = std::string(kOpencvDocData) + "/graf1.png";
  std::string backgroundPath = std::string(kOpencvDocData) + "/building.jpg";
  std::string occluderPath = std::string(kOpencvDocData) + "/fruits.jpg";
  double noiseSigma = 3.0;  ///< sensor noise, grey levels, >= 0
};

/// The motions CurvedSequenceOptions::motion takes, "scale, rotation, ..., turn", for help texts.
std::string curvedMotionNames();

/// A curved target's synthesised video and its ground truth. Immutable after construction
/// (render() is const and thread-compatible).
class CurvedSequence {
 public:
  /// Loads the images, builds the surface and plans the path.
  /// @throws std::runtime_error naming a missing or unreadable image (and opencv-doc);
  ///   std::invalid_argument naming the option for one out of range (an unknown motion, a radius
  ///   for a cup, a coverage outside [90, 360]).
  explicit CurvedSequence(const CurvedSequenceOptions& options = {});

  const CurvedSequenceOptions& options() const { return options_; }
  int frameCount() const { return options_.frames; }
  cv::Size frameSize() const { return options_.frameSize; }
  double fps() const { return 30.0; }
  /// The label image (BGR) as loaded: what a user trains.
  const cv::Mat& labelImage() const { return label_; }
  /// The label's geometry (radii in metres) and width (metres): what the user gives nft_train.
  const detection::TargetGeometry& geometry() const { return surface_.geometry(); }
  double labelWidthM() const { return labelWidthM_; }
  /// The label's surface for labelImage()'s pixels.
  const detection::LabelSurface& surface() const { return surface_; }
  /// The frames' camera matrix (tracker::defaultCalibration of frameSize()), pixels.
  const cv::Matx33d& cameraMatrix() const { return K_; }

  /// Frame `index` in [0, frameCount()): CV_8UC3 BGR. @throws std::out_of_range for another.
  cv::Mat render(int index) const;
  /// The object's pose at the middle of frame `index`'s exposure: X_camera = R·X + t (metres,
  /// X in the label surface's frame, which is the target frame of a tracker's pose).
  SyntheticSequence::TargetPose targetPose(int index) const;
  /// The object's turn about its axis at frame `index`, degrees (positive: the label's +x side
  /// towards the camera).
  double turnDeg(int index) const;
  /// Frame positions (pixels) of label pixels at frame `index` (through targetPose()), whether
  /// seen or not.
  std::vector<cv::Point2f> project(int index, const std::vector<cv::Point2f>& labelPixels) const;
  /// True when label pixel `p` is seen in frame `index`: on the label, its printed side facing
  /// the camera (the body is convex: nothing else of it is in front) at most `maxAngleDeg` off
  /// its normal (90: at all), and inside the frame. The occluder does not count.
  bool visible(int index, cv::Point2f p, double maxAngleDeg = 90) const;
  /// The occluder at frame `index` (occlusion presets), placed across the object's width
  /// (0..1 the object's silhouette from its left to its right edge at the label's middle and
  /// its top to bottom edge); std::nullopt when none.
  std::optional<OccluderPlacement> occluder(int index) const;

 private:
  /// The object's pose at time `frame` (fractional frames allowed); scenePoseAt(): the same
  /// without the object's turn (the wall's and the occluder's, which do not turn with it).
  SyntheticSequence::TargetPose poseAt(double frame) const;
  SyntheticSequence::TargetPose scenePoseAt(double frame) const;
  double turnAt(double frame) const;  // radians
  /// Draw into `frame` (CV_8UC3 of frameSize()): the wall (the whole frame) and the occluder
  /// under the scene's pose, the object under its own.
  void drawObject(const SyntheticSequence::TargetPose& pose, cv::Mat& frame) const;
  void drawWall(const SyntheticSequence::TargetPose& scene, cv::Mat& frame) const;
  void drawOccluder(double frame, const SyntheticSequence::TargetPose& scene, cv::Mat& out) const;

  CurvedSequenceOptions options_;
  cv::Mat label_;
  double labelWidthM_ = 0;
  detection::LabelSurface surface_;
  cv::Matx33d K_;
  std::optional<PresetPath> path_;  // empty for "turn", whose own path turnAt/poseAt give
  double distanceScale_ = 1;        // the preset's distances × this
  double objectSizeM_ = 0;          // max(label height, 2 × the larger radius)
  double turnAmplitudeRad_ = 0;
  std::vector<cv::Mat> wall_;       // pyramid of the wall's texture
  double wallMetresPerPixel_ = 0;
  double wallZ_ = 0;                // the wall's plane z = wallZ_ in the target frame
  cv::Mat occluderTexture_;
  double phase_[4] = {};
};

}  // namespace nft::replay
