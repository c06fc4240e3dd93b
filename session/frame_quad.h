#pragma once
// Instant targets (nft::Session::addTargetFromFrame): the quadrilateral a user marks in a camera
// frame becomes a target image — the region rectified to a rectangle — and the homography that
// puts that image back onto the quad starts the tracking lane on that frame. What Vuforia calls
// user-defined targets and ARKit / ARCore allow as images added at run time; and how every
// planar-tracking benchmark (POT, TMT, UCSB) starts a tracker: from the first frame's quad.
//
// Conventions: a quad is four corners in frame pixels (OpenCV's pixel centres), in the order of
// the target image's corners (0,0), (w,0), (w,h), (0,h): upper-left, upper-right, lower-right,
// lower-left — clockwise on the screen (y down), as TargetResult::corners reports them.

#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::session {

/// The shortest side a quad may have, pixels: a smaller region holds too few keypoints and NCC
/// patches to find or follow (the training's own check would refuse it as too plain).
inline constexpr double kMinQuadSidePx = 32.0;

/// Checks a quad for a frame of `frameSize`: 4 finite corners, each inside the frame (within
/// [-0.5, W − 0.5] × [-0.5, H − 0.5], the pixels' edges), convex and clockwise on the screen (the
/// order above; a self-crossing or reflex quad, or one given counter-clockwise, is refused), and
/// every side at least kMinQuadSidePx.
/// @throws nft::InputError "<context>: quad ...: expected ..." naming the corner or side at fault.
void checkFrameQuad(const std::vector<cv::Point2f>& quad, cv::Size frameSize, const std::string& context);

/// The size of the target image a quad is rectified to: the longer of its top and bottom sides
/// wide, the longer of its left and right sides high (pixels, rounded; the nearer, larger side of
/// a foreshortened target keeps its resolution).
cv::Size rectifiedSize(const std::vector<cv::Point2f>& quad);

/// The homography from a target image of `targetSize` (its corners (0,0), (w,0), (w,h), (0,h))
/// to the quad's corners: target pixels → frame pixels, H(2,2) = 1.
cv::Matx33d quadHomography(cv::Size targetSize, const std::vector<cv::Point2f>& quad);

/// The quad's region of `frame` (CV_8UC1 or CV_8UC3) rectified to rectifiedSize(quad):
/// cv::warpPerspective with quadHomography as the map from target to frame pixels (bilinear).
cv::Mat rectifyQuad(const cv::Mat& frame, const std::vector<cv::Point2f>& quad);

}  // namespace nft::session
