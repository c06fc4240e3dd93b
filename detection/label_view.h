#pragma once
// A label as a pinhole camera sees it on its surface (detection/label_surface.h): each view
// pixel's ray cast onto the plane, cylinder or cone, the label image sampled where it meets the
// printed side (issue 47: the trainer's turned views; synthetic curved sequences and tests).

#include <opencv2/core.hpp>

#include "detection/label_surface.h"

namespace nft::detection {

/// A pinhole camera: intrinsics K (pixels, no distortion), pose X_cam = R·X_target + t (metres,
/// the target's frame of label_surface.h; the camera looking down +z, y down) and image size.
struct LabelCamera {
  cv::Matx33d K = cv::Matx33d::eye();
  cv::Matx33d R = cv::Matx33d::eye();
  cv::Vec3d t;
  cv::Size size;

  /// The camera centre in the target's frame, −Rᵀ·t.
  cv::Vec3d centre() const { return -(R.t() * t); }
  /// The unit direction, in the target's frame, of the ray through view pixel (x, y).
  cv::Vec3d ray(double x, double y) const;
};

/// A camera `distanceMetres` from the surface, looking along the inward normal at the point
/// `turnRad` about the axis from label pixel `labelPixel` (at the same distance down the slant:
/// the label seen turned by that angle, positive bringing its +x side to the front), with y down
/// the axis; the focal length makes one label pixel one view pixel there (distance / metres per
/// pixel), the principal point the view's centre. For a flat print the camera orbits the vertical
/// line through `labelPixel` by `turnRad` instead (a tilt about the label's y axis).
/// @throws std::invalid_argument for a distance <= 0 or an empty view size.
LabelCamera turnedCamera(const LabelSurface& surface, cv::Point2d labelPixel, double turnRad, double distanceMetres,
                         cv::Size viewSize);

/// Renders `label` (CV_8UC1, the image `surface` was made for) as `camera` sees it: each pixel
/// the label sampled bilinearly where its ray meets the printed side, `background` elsewhere.
/// `labelMap` (when given) receives, per view pixel, that label pixel (CV_32FC2; (−1, −1) where
/// no label is seen) and `facing` (when given) |cos| of the angle between the ray and the normal
/// (CV_32F, 0 where no label is seen).
/// @throws std::invalid_argument for a label that is not CV_8UC1 or an empty camera size.
cv::Mat renderLabel(const cv::Mat& label, const LabelSurface& surface, const LabelCamera& camera,
                    cv::Mat* labelMap = nullptr, cv::Mat* facing = nullptr, uchar background = 0);

}  // namespace nft::detection
