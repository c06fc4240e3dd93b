#pragma once
// Training: from a picture of a planar target to a TargetModel — keypoints over several
// scales and their descriptors (detection lane), the patches the tracking lane follows, the
// physical size, and a quality report.

#include <functional>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/fast_detector.h"
#include "detection/label_surface.h"
#include "detection/target_model.h"

namespace nft::detection {

/// Options of trainTarget.
struct TargetTrainerOptions {
  /// Longest side of the working image, pixels: larger targets are scaled down (INTER_AREA).
  int workingSize = 640;
  /// Physical width of the target, metres (the image's width on paper; for a curved target the
  /// label's width, detection/target_geometry.h).
  double widthMetres = 0.20;
  /// The surface the target is printed on (TargetModel::geometry), checked against widthMetres
  /// and the image's aspect (validateTargetGeometry, LabelSurface). A curved label keeps only
  /// the keypoints and patches on the printed label (LabelSurface::onLabel: a cone's sector
  /// label's bounding box corners are not) and also gets the views of viewTurnDeg.
  TargetGeometry geometry;
  DescriptorType descriptorType = DescriptorType::Surf64;
  Orientation orientation = Orientation::Oriented;
  /// The detector run over the working image's pyramid (scale-aware FAST).
  FastDetectorOptions detector;
  /// Smallest size the target is to be detected at: its longest side in frame pixels. Training
  /// adds pyramid levels to `detector.levels` until the coarsest one is at most this size, and
  /// keeps the strongest keypoints of each level in proportion to the level's area (at least
  /// 1/(2·levels) of maxKeypoints each), so that coarse levels are not crowded out by the
  /// full-resolution corners. 0: `detector.levels` as given, the strongest keypoints overall.
  /// Allowed: >= 0. 100 (config target.min_size_px): on the multi-target grid (8 prints of about
  /// 145 px, apps/replay/multi_target_sequence.h) 6 of 8 found, 1 of 8 with 0.
  int minDetectedSidePx = 100;
  /// Tilted views (ASIFT's affine simulation: Morel and Yu, "ASIFT: A New Framework for Fully
  /// Affine Invariant Image Comparison", SIAM J. Imaging Sciences 2(2), 2009): > 0 adds four
  /// views of the working image compressed by cos(viewTiltDeg) along 0°, 45°, 90° and 135° (the
  /// target seen that far off its normal), each with keypoints of its own (up to a quarter of
  /// detector.maxKeypoints), described on the view and mapped back into the target image — so
  /// the detection lane matches a steeply tilted target against descriptors of a similar view.
  /// The view's keypoints are appended after the target's own (TargetModel::tiltedKeypoints
  /// counts them): the detection lane matches them only when the target's own find nothing.
  /// Degrees, in [0, 80); 0: the working image alone. Default 65 (config target.view_tilt_deg).
  double viewTiltDeg = 65;
  /// Turned views of a curved label (issue 47, item 2; ignored for a flat print): > 0 renders the
  /// label on its cylinder or cone (detection/label_view.h) as a camera facing the label's middle
  /// sees it, and turned about the axis by ±viewTurnDeg / 2 and ±viewTurnDeg, each with keypoints
  /// of its own (up to a quarter of detector.maxKeypoints) on the parts facing the camera within
  /// 75°, described on the view and mapped back into the label image (their scales by the view's
  /// local scale) — so the detection lane matches the label's sides as the curve foreshortens
  /// them. Appended after the tilted views' (counted in TargetModel::tiltedKeypoints). Degrees, in
  /// [0, 90]; 0: none. Default 60 (config target.view_turn_deg).
  double viewTurnDeg = 60;
  /// Tracking patches: at most this many, over `patchLevels` levels of a factor-2 pyramid
  /// (Wagner et al. 2010 search at half and full resolution), at least `patchSpacing` level
  /// pixels apart and `patchMargin` level pixels from the border.
  int maxPatches = 200;
  int patchLevels = 2;
  int patchSpacing = 8;
  int patchMargin = 8;
};

/// Computes descriptors for keypoints of a gray image (SurfEs::describe or SurfCpu::describe):
/// returns N × descriptorLength CV_32F and may fill the keypoints' angles.
using DescribeFunction = std::function<cv::Mat(const cv::Mat& gray, std::vector<Keypoint>& keypoints)>;

/// Builds the model of the target in `image` (CV_8UC1 or CV_8UC3 BGR, any size ≥ 16 × 16).
/// Keypoints are those of the scale-aware FAST detector on the working image (its pyramid gives
/// the several scales); keypoints whose descriptor is zero (uniform patch) are dropped.
/// @throws std::invalid_argument for an empty, too small or wrongly typed image, or options
///         out of range (named; a geometry's fields as validateTargetGeometry names them); what
///         `describe` throws passes through.
TargetModel trainTarget(const cv::Mat& image, const TargetTrainerOptions& options, const DescribeFunction& describe);

}  // namespace nft::detection
