#pragma once
// What of a target's surface a camera sees, as lines (issue 47, item 5): the label's edges and,
// for a label on a cylinder or cone, the body's silhouette (its limb lines, where the surface
// turns away from the camera) and a grid on the label; each cut where the surface turns its back
// to the camera. TargetResult::outline is their projection; the Session's renderer draws them
// on the surface.

#include <vector>

#include <opencv2/core.hpp>

#include "detection/label_surface.h"
#include "tracker/camera_calibration.h"
#include "tracker/pose.h"

namespace nft::tracker {

/// Polylines on the surface, metres in the target frame (detection/label_surface.h).
struct SurfaceLines {
  /// The label's four edges (top, right, bottom, left as the image has them; a cone's sector label:
  /// its arcs and radial edges), the parts that face the camera.
  std::vector<std::vector<cv::Point3d>> edges;
  /// A cylinder's or cone's limb lines between the label's top and bottom edges (over the whole
  /// body, label or bare); none for a flat print.
  std::vector<std::vector<cv::Point3d>> silhouette;
  /// `gridLines` lines across and along the label (generators and rings), the facing parts.
  std::vector<std::vector<cv::Point3d>> grid;
};

/// The lines of `surface` (the label image's size `labelSize`) that a camera centred at
/// `cameraCentre` (target frame, metres) sees: a point is seen when its printed side faces it.
/// Each line sampled every ~2° of turn (curved) or at its ends (flat); `gridLines` >= 0 of each
/// family. Occlusion by other objects is not known.
SurfaceLines visibleSurfaceLines(const detection::LabelSurface& surface, cv::Size labelSize,
                                 const cv::Vec3d& cameraCentre, int gridLines = 0);

/// The outline of TargetResult::outline: visibleSurfaceLines()'s edges and silhouette under
/// `pose` (X_camera = R·X + t), projected with `calibration` (distortion included), frame pixels;
/// a flat print's is its closed quad (five points, the first again at the end).
std::vector<std::vector<cv::Point2f>> projectedOutline(const detection::LabelSurface& surface, cv::Size labelSize,
                                                       const Pose& pose, const CameraCalibration& calibration);

}  // namespace nft::tracker
