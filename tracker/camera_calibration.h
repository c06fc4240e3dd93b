#pragma once
// Camera intrinsics for the pose: loaded from an OpenCV calibration file, or a documented
// default when the user has none, and rescaled for frames of another size than calibrated.
//
// Conventions: OpenCV's pinhole model, as render/camera.h. K = [fx s cx; 0 fy cy; 0 0 1] in
// pixels for an image of imageSize; the centre of pixel (i, j) is at (i, j), so the image's
// outer border runs from −0.5 to width − 0.5.

#include <chrono>
#include <string>

#include <opencv2/core.hpp>

namespace nft::tracker {

/// Intrinsics of one camera at one image size.
struct CameraCalibration {
  /// Intrinsic matrix, pixels: [fx s cx; 0 fy cy; 0 0 1], fx, fy > 0.
  cv::Matx33d K = cv::Matx33d::eye();
  /// OpenCV distortion coefficients (k1 k2 p1 p2 [k3 [k4 k5 k6 [s1 s2 s3 s4 [τx τy]]]]) as a
  /// 1×N CV_64F row, N ∈ {4, 5, 8, 12, 14}; empty for no distortion.
  cv::Mat distortion;
  /// Size of the images K refers to, pixels.
  cv::Size imageSize;
  /// Where it came from, for logs: the file path, or "default (...)".
  std::string source;
};

/// Horizontal field of view of defaultCalibration(), degrees. 60° lies in the middle of what
/// phone main cameras and webcams give in video mode (about 55°–70°); a wrong focal length
/// mostly scales the estimated distance, and this guess keeps that error within about ±20 %.
constexpr double kDefaultHorizontalFovDegrees = 60.0;

/// Reads an OpenCV calibration file (YAML, XML or JSON, what cv::FileStorage reads), as OpenCV's
/// calibration sample (samples/cpp/calibration.cpp) writes it: `camera_matrix` (3×3),
/// `distortion_coefficients` (optional, 1×N or N×1; N ∈ {4, 5, 8, 12, 14}), `image_width`,
/// `image_height` (pixels). Aliases: `cameraMatrix` for camera_matrix, `distCoeffs` for
/// distortion_coefficients. `source` is set to `path`.
/// @throws std::runtime_error naming the file and the key when the file cannot be read, a key is
///   missing or not numeric, K is not 3×3, has a NaN/inf, is singular, has a non-positive focal
///   length or a last row other than 0 0 1, the distortion has a bad length or a NaN, the
///   image size is not positive, or OpenCV's parser has not finished after `parseDeadline`
///   (OpenCV 4.6 never returns on some malformed YAML, tests/fuzz/known-hangs: the parse runs
///   on a worker thread, which is left running, detached, when the deadline passes; calibration
///   files of OpenCV's tools parse in milliseconds).
/// @throws std::invalid_argument if parseDeadline is not positive.
CameraCalibration loadCalibration(const std::string& path,
                                  std::chrono::milliseconds parseDeadline = std::chrono::seconds(5));

/// The calibration used when none is given: horizontal field of view
/// kDefaultHorizontalFovDegrees (fx = (width / 2) / tan(30°)), square pixels (fy = fx), no
/// skew, principal point at the image centre ((width − 1) / 2, (height − 1) / 2 in OpenCV's
/// pixel-centre convention), no distortion.
/// @throws std::invalid_argument if imageSize is not positive.
CameraCalibration defaultCalibration(cv::Size imageSize);

/// `calibration` for frames of `frameSize` (the same camera, the image resized by
/// sx = frame.width / calibrated.width, sy = frame.height / calibrated.height): fx·sx, fy·sy,
/// skew·sx, and the principal point mapped as a pixel position, c' = (c + 0.5)·s − 0.5 (pixel
/// centres at integers: a half-size frame gives cx' = cx/2 − 0.25). Distortion is unchanged (it
/// acts on normalised coordinates).
/// @throws std::invalid_argument if either size is not positive.
CameraCalibration scaledTo(const CameraCalibration& calibration, cv::Size frameSize);

}  // namespace nft::tracker
