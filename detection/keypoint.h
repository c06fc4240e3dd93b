#pragma once
// The keypoint the detection lane passes around: position, SURF scale and orientation.

namespace nft::detection {

/// `Keypoint::angle` of a keypoint without an orientation (upright).
inline constexpr float kNoAngle = -1.0f;

/// A keypoint in image pixels.
///
/// Coordinates follow OpenCV: (0, 0) is the centre of the top-left pixel, x to the right,
/// y down. `scale` is the SURF scale s (Bay et al. 2008; seeds/000 section 3.1.1): the
/// descriptor samples a 20s × 20s window on a grid of spacing s (OpenCV's SURF KeyPoint::size
/// is 7.5 s). `angle` is the orientation in degrees in [0, 360) with the convention of
/// OpenCV's KeyPoint::angle: the keypoint's x axis points along (cos a, sin a) in image
/// coordinates (y down), i.e. a = atan2(dy, dx). kNoAngle (any negative value) means none.
struct Keypoint {
  float x = 0.0f;
  float y = 0.0f;
  float scale = 1.0f;
  float angle = kNoAngle;
  float response = 0.0f;  ///< detector score (FAST score), larger is stronger
  int octave = 0;         ///< pyramid level the detector found it on (0 = full resolution)
};

}  // namespace nft::detection
