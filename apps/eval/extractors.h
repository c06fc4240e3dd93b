#pragma once
// The descriptor extractors the evaluation compares, behind one interface, all describing the
// SAME detector keypoints (the point is comparing descriptors, not detectors):
// - surf-es: SURF-ES on the GPU (detection/surf_es.h), with its own GPU orientation;
// - surf-cpu: the CPU lane of the same descriptor (detection/surf_cpu.h);
// - sift, orb: OpenCV's descriptors as references, computed on our keypoints converted to
//   cv::KeyPoint. Each is given the scale convention of its own detector: SIFT's KeyPoint::size
//   is 2σ of its detection scale and SURF's s is that same Gaussian σ (Bay et al. 2008), so
//   size = 2s (descriptor grid 12s wide, Gaussian weight σ 6s; SURF: 20s, 3.3s); ORB describes
//   a FAST corner with its 31 × 31 patch on the pyramid level it was found on, so octave = the
//   level of s on FastDetector's √2 pyramid (s = 3·√2^level) and OpenCV's ORB runs with the
//   same factor √2. Measured (graf + boat, 1000 keypoints, mean recall at 1 − precision 0.2 /
//   ratio-test correct matches): SIFT size 2s 9.2% + 30.6% / 446 + 859; 20s/6 (the same 20s
//   grid as SURF) 4.4% + 24.0% / 389 + 806; 1.33s 8.2% + 38.2% / 481 + 931. ORB on the
//   detection level 8.5% + 26.7% / 324 + 661; two levels up (31 px patch ≈ SURF's 20s window)
//   5.6% + 22.7% / 262 + 629. Their orientation (oriented mode) is the SURF intensity-centroid
//   angle of surf_descriptor.h, computed by SurfCpu, since OpenCV computes neither's own
//   orientation for given keypoints; upright, angle 0.
// OpenCV may drop keypoints it cannot describe (ORB: those within 31 px of the image border):
// the result says which were kept, and the evaluation uses only those, per extractor.

#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "apps/eval/extractor_spec.h"
#include "detection/keypoint.h"

namespace nft::gpu {
struct Capabilities;
}

namespace nft::eval {

/// Descriptors of the keypoints an extractor could describe.
struct Described {
  /// One row per kept keypoint: CV_32F with unit L2 norm (SURF, SIFT; a uniform patch may give
  /// zeros) or CV_8U packed bits (ORB, 32 bytes).
  cv::Mat descriptors;
  /// Indices into the input keypoints, ascending, parallel to the descriptor rows.
  std::vector<int> kept;
};

/// A descriptor extractor under evaluation.
class Extractor {
 public:
  virtual ~Extractor() = default;
  /// Name with settings, e.g. "surf-es:rgba8:p23:oriented", "orb:upright" (the CSV's extractor
  /// column). For surf-es the storage and p actually in use (never "auto").
  virtual std::string label() const = 0;
  /// cv::NORM_L2 or cv::NORM_HAMMING.
  virtual int normType() const = 0;
  /// The largest distance two descriptors can have (2 for unit vectors, 256 bits for ORB): the
  /// threshold sweep covers [0, maxDistance()].
  virtual double maxDistance() const = 0;
  /// Describes `keypoints` (detector output: angle unset) of a CV_8UC1 image.
  /// @throws std::invalid_argument for an image larger than the extractor was made for, more
  ///   keypoints than it was made for, or a keypoint outside the image.
  virtual Described describe(const cv::Mat& gray, const std::vector<detection::Keypoint>& keypoints) = 0;
};

/// Makes the extractor of `spec` for images up to `maxImage` and up to `maxKeypoints`
/// keypoints. surf-es needs `caps` (and the GL context current now and for every call).
/// @throws std::invalid_argument when surf-es is asked for without caps, or SurfEs refuses the
///   settings (e.g. float storage on a GPU without float render targets, p above the GPU's).
std::unique_ptr<Extractor> makeExtractor(const ExtractorSpec& spec, cv::Size maxImage, int maxKeypoints,
                                         const gpu::Capabilities* caps);

/// Our keypoint as the cv::KeyPoint OpenCV's SIFT describes: size 2s, octave/layer packed as
/// SIFT's detector does for that size (so the descriptor is taken on the matching blur level),
/// class_id = `index`.
cv::KeyPoint toSiftKeyPoint(const detection::Keypoint& k, float angle, int index);

/// Our keypoint as the cv::KeyPoint OpenCV's ORB (scale factor √2) describes: octave = the
/// level of FastDetector's √2 pyramid with scale nearest to s (round(log_√2(s / 3)), >= 0),
/// size 31·√2^octave, class_id = `index`.
cv::KeyPoint toOrbKeyPoint(const detection::Keypoint& k, float angle, int index);

}  // namespace nft::eval
