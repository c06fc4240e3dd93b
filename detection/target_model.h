#pragma once
// A trained target: what the tracker knows about one target image (a flat print, or a label on
// a cylinder or a cone: detection/target_geometry.h), built once
// (detection/target_trainer.h) and saved to / loaded from one versioned binary file
// (detection/target_model_io.h).

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"
#include "detection/surf_descriptor.h"
#include "detection/target_geometry.h"

namespace nft::detection {

/// A point the tracking lane follows by NCC (Wagner et al., TVCG 2010: 8×8 patches warped from
/// the target image with the predicted pose, searched at half then full resolution).
struct TrackingPatch {
  cv::Point2f position;  ///< centre in target pixels (working-image, level-0 coordinates)
  int level = 0;         ///< pyramid level it is well textured at (0 = full working resolution)
  float score = 0.0f;    ///< texture strength (minimum eigenvalue of the structure tensor)
};

/// The quality report — like the stars commercial NFT SDKs give a target.
struct TargetQuality {
  int keypointCount = 0;
  double coverage = 0.0;        ///< fraction of the cells of a grid over the target holding a keypoint
  double distinctness = 0.0;    ///< fraction of keypoints with no look-alike elsewhere on the target
  double meanContrast = 0.0;    ///< mean of the image's local standard deviation, 8-bit units
  int stars = 0;                ///< 0..5
  std::vector<std::string> warnings;  ///< e.g. too plain, too repetitive, uneven coverage
};

/// Everything the detection and tracking lanes need about one target.
struct TargetModel {
  /// The target image in gray at working size (large images are scaled down when trained):
  /// CV_8UC1. The tracking lane warps its patches from it.
  cv::Mat image;
  /// Scale from working-image pixels to the original image's pixels (≥ 1).
  double originalScale = 1.0;
  /// Physical width of the target (the image's width), metres; poses are metric with it.
  double widthMetres = 0.0;
  /// The surface the target is printed on: planar (the default; every model of .nftm version 2
  /// and older databases), or a cylinder or cone whose label the image is (widthMetres then the
  /// label's width, detection/target_geometry.h).
  TargetGeometry geometry;
  DescriptorType descriptorType = DescriptorType::Surf64;
  Orientation orientation = Orientation::Oriented;
  /// Keypoints in working-image pixels, strongest first; row i of `descriptors` is keypoint i.
  std::vector<Keypoint> keypoints;
  /// keypoints.size() × descriptorLength(descriptorType) CV_32F, unit rows.
  cv::Mat descriptors;
  /// How many of the keypoints (and descriptor rows), at the end of the lists, come from the
  /// tilted views of TargetTrainerOptions::viewTiltDeg; the first keypoints.size() −
  /// tiltedKeypoints are the target's own (frontal) view. In [0, keypoints.size()]; 0 without
  /// tilted views. The detection lane matches the frontal ones first (tracker/detection_lane.h).
  int tiltedKeypoints = 0;
  std::vector<TrackingPatch> patches;
  TargetQuality quality;

  /// The descriptors of the target's own view: the first keypoints.size() − tiltedKeypoints rows
  /// of `descriptors` (a view, not a copy). The vocabulary of visual words is trained on these,
  /// and the recogniser's inverted index holds their words only: with the tilted views' too,
  /// among 1,000 distractors the pan layout's graf1 and starry_night were found in 10.5 and 0 %
  /// of their frames instead of 89.5 and 50.7 % (README.md, "Several targets").
  cv::Mat frontalDescriptors() const { return descriptors.rowRange(0, frontalKeypoints()); }
  /// keypoints.size() − tiltedKeypoints: the target's own keypoints, first in `keypoints`.
  int frontalKeypoints() const { return static_cast<int>(keypoints.size()) - tiltedKeypoints; }

  /// Metres per working-image pixel: widthMetres / image.cols.
  double metresPerPixel() const { return image.cols > 0 ? widthMetres / image.cols : 0.0; }
};

}  // namespace nft::detection
