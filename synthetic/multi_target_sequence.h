#pragma once
// Several printed targets on one table top, filmed by a moving hand-held camera: the test data of
// the many-targets pipeline (docs/concepts.md, "Databases"), synthesised at run time from real images
// Debian's opencv-doc ships, with exact ground truth for every target in every frame — its
// corners, and how much of it is visible (inside the frame and not covered by another print).
//
// Two layouts:
// - Pan: four prints (graf1, starry_night, baboon, butterfly; 22 cm wide, 220–280 px in the
//   frame) in a row; butterfly's paper lies over a corner of baboon, hiding about 30 % of it. The
//   camera pans along the row and back in 10 s (up to about 9 px per frame at 640×480), so
//   targets enter and leave the view; one to three are in view at once.
// - Grid: eight prints (11 cm wide, about 145 px in the frame, 4 × 2) all in view at once, the
//   camera moving gently over them (distance 0.405–0.435 m, tilts up to 6°, roll up to 4°): the
//   "8 targets tracked at once" case.
// The background (building.jpg, mirrored beyond its borders) lies under the prints; each print is
// a layer on white paper composited over it, so no copy of a target shows anywhere else. Frames
// are rendered as SyntheticSequence renders them (synthetic_render.h): each surface drawn from a
// Gaussian-pyramid level matching its scale, averaged over sub-frame poses within a half-frame
// exposure (motion blur), then a slowly changing lighting and Gaussian sensor noise.
// Deterministic: the same options give bit-identical frames.

#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "synthetic/synthetic_sequence.h"

namespace nft::replay {

/// Where the prints lie and how the camera moves (see the file comment).
enum class MultiTargetLayout { Pan, Grid };

/// "pan", "grid".
std::string toString(MultiTargetLayout layout);
/// The layout named by toString(); std::nullopt for any other name.
std::optional<MultiTargetLayout> parseMultiTargetLayout(const std::string& name);

/// Settings of the multi-target sequence.
struct MultiTargetSequenceOptions {
  MultiTargetLayout layout = MultiTargetLayout::Pan;
  cv::Size frameSize{640, 480};  ///< pixels, each side >= 64
  int frames = 300;              ///< >= 1; at 30 frames/s
  std::uint32_t seed = 8;        ///< phases of the camera's motion, and the noise
  double noiseSigma = 3.0;       ///< sensor noise, grey levels (standard deviation), >= 0
  std::string imageFolder = kOpencvDocData;  ///< where the prints' and background's images are
};

/// One print on the table.
struct MultiTargetPrint {
  std::string name;      ///< the image's file name without extension, e.g. "graf1"
  std::string path;      ///< the image file
  cv::Mat image;         ///< CV_8UC3 BGR, as loaded: what a user would print and train
  double widthM = 0;     ///< printed width of the image, metres
  cv::Point2d centreM;   ///< the image's centre on the table plane, metres
};

/// The synthesised video. Immutable after construction (render() is const and thread-compatible).
class MultiTargetSequence {
 public:
  /// Loads the images and plans the path.
  /// @throws std::runtime_error naming an image file (and the package opencv-doc) that is missing
  ///   or unreadable; std::invalid_argument for options out of range.
  explicit MultiTargetSequence(const MultiTargetSequenceOptions& options = {});

  const MultiTargetSequenceOptions& options() const { return options_; }
  int frameCount() const { return options_.frames; }
  cv::Size frameSize() const { return options_.frameSize; }
  double fps() const { return 30.0; }  ///< frames per second
  /// "synthetic multi-target (pan, 4 prints, 300 frames 640x480, seed 8)".
  std::string description() const;
  /// The prints, in drawing order (a later one lies over an earlier one).
  const std::vector<MultiTargetPrint>& prints() const { return prints_; }
  int targetCount() const { return static_cast<int>(prints_.size()); }
  /// Index of the print called `name`, or -1.
  int find(const std::string& name) const;

  /// Frame `index` (in [0, frameCount())): CV_8UC3 BGR of frameSize().
  /// @throws std::out_of_range for another index.
  cv::Mat render(int index) const;
  /// Homography print `target`'s image pixels → frame pixels at the middle of frame `index`'s
  /// exposure. @throws std::out_of_range for a target or frame outside the sequence.
  cv::Matx33d homography(int target, int index) const;
  /// Print `target`'s image corners (0,0), (w,0), (w,h), (0,h) in frame `index`, frame pixels.
  QuadCorners corners(int target, int index) const;
  /// The part of print `target`'s image area that frame `index` shows, in [0, 1]: inside the
  /// frame and not under a later print's paper (exact: areas of convex polygons, the prints'
  /// papers do not overlap one another more than pairwise).
  double visibleFraction(int target, int index) const;

 private:
  cv::Matx33d tableToFrame(double frame) const;  // table metres → frame pixels
  cv::Matx33d printToTable(size_t print) const;  // print image pixels → table metres

  MultiTargetSequenceOptions options_;
  std::vector<MultiTargetPrint> prints_;
  std::vector<std::vector<cv::Mat>> paper_;  // per print: pyramid of the image on white paper
  std::vector<cv::Mat> background_;          // pyramid of the background
  double backgroundMetresPerPixel_ = 0;
  cv::Point2d backgroundOriginM_;            // the background's top-left corner, table metres
  cv::Matx33d K_;
  double phase_[8] = {};
};

}  // namespace nft::replay
