#pragma once
// The pose of a curved target — a label on a cylinder or a cone — from the detection lane's
// matches (issue 47, item 3): each match a 2D–3D correspondence, the model keypoint's point on
// the label's surface (detection/label_surface.h) and the frame keypoint; the pose by PnP inside
// OpenCV's USAC (cv::solvePnPRansac with cv::UsacParams: P3P samples, MSAC scores, inner local
// optimisation; Ivashechkin, Barath and Matas, "USAC5: towards a universal framework", 2021) and
// refined on the inliers by Levenberg-Marquardt (cv::solvePnPRefineLM), then again on the inliers
// within half the threshold, under the same inlier floor as a plane's homography. Plain RANSAC
// (P3P/AP3P/SQPnP samples) spent 150 ms a frame that shows no target on its 2000 hypotheses,
// USAC 53 (a can's label on vtest.avi, llvmpipe, a loaded machine); the poses were the same. A homography cannot place a curved label; the Detection's homography is the one of
// the label's tangent plane along its middle column (the plane z = 0 of the target's frame, which
// the surface touches there), its corners the label's corners projected.

#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"
#include "detection/label_surface.h"
#include "detection/match.h"
#include "tracker/camera_calibration.h"
#include "tracker/detection_lane.h"

namespace nft::tracker {

/// Verifies matches of a curved target: `targetPoints[m.target]` (label pixels) and
/// `frameKeypoints[m.query]` (frame pixels of calibration.imageSize) are each match's ends,
/// `surface` the label's. Uses options.minInliers, ransacThresholdPx, ransacMaxIterations and
/// ransacConfidence as verifyDetection() does for a plane.
/// @return the detection: pose (X_cam = R·X_target + t, metres; the inliers' mean reprojection
///   error), inliers, the tangent-plane homography, the projected label corners (upper-left,
///   upper-right, lower-right, lower-left, as a plane's; a corner round the back of a can is
///   projected where it lies); std::nullopt with `rejection` set for fewer matches or inliers
///   than minInliers ("too few inliers: 7 < 20"), no PnP solution, a pose that puts an inlier
///   behind the camera or more than a tenth of them on the label's far side (facing away), or a
///   label corner that projects to infinity. `ransacMs` and `poseMs` get the stage times.
std::optional<Detection> verifyCurvedDetection(const std::vector<detection::Match>& matches,
                                               const std::vector<cv::Point2f>& targetPoints,
                                               const std::vector<detection::Keypoint>& frameKeypoints,
                                               const detection::LabelSurface& surface, cv::Size targetSize,
                                               const CameraCalibration& calibration,
                                               const DetectionLaneOptions& options, std::string& rejection,
                                               double& ransacMs, double& poseMs);

/// The homography of the tangent plane z = 0 under `pose`: label pixel (u, v) → the frame pixel
/// of (u·s, v·s, 0), s metres per label pixel (no distortion), normalised so that H(2,2) = 1.
cv::Matx33d tangentPlaneHomography(const CameraCalibration& calibration, const Pose& pose, double metresPerPixel);

}  // namespace nft::tracker
