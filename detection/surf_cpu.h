#pragma once
// SurfCpu: the CPU SURF descriptor lane. It computes exactly the descriptor defined at the top
// of detection/surf_descriptor.h (Bay et al. 2008 "SURF: Speeded Up Robust Features";
// seeds/000 section 3.1.1; seeds/002 section II), and is both the project's CPU descriptor
// path and the reference the GPU extractor (SurfEs) is tested against.

#include <opencv2/core.hpp>
#include <vector>

#include "detection/keypoint.h"
#include "detection/surf_descriptor.h"

namespace nft::detection {

/// Settings of SurfCpu.
struct SurfCpuOptions {
  /// SURF-64 (20×20 samples, 4×4 subregions, 64 bins) or SURF-36 (15×15, 3×3, 36 bins).
  DescriptorType type = DescriptorType::Surf64;
  /// Oriented (the default: given angle, or the intensity centroid of surf_descriptor.h when
  /// Keypoint::angle < 0) or upright (U-SURF, a = 0 for every keypoint, where rotation is not
  /// needed).
  Orientation orientation = Orientation::Oriented;
  /// 0 = OpenCV's thread pool (cv::parallel_for_, as many workers as cv::getNumThreads()),
  /// 1 = serial on the calling thread, k > 1 = OpenCV's pool with at most k keypoint stripes,
  /// hence at most k workers. Negative values are rejected by the constructor.
  int threads = 0;
};

/// SURF descriptors computed on the CPU from an 8-bit image.
///
/// Box means are exact for real-valued box edges: a double-precision integral image of the
/// piecewise-constant image is interpolated bilinearly at the box corners (exact, because the
/// integral of a piecewise-constant image is bilinear inside each pixel cell) and linearly
/// extrapolated beyond the image (exact for the replicate border, whose integral grows linearly
/// outside), so windows of any size reaching past the image edge are handled exactly.
/// Upright, every Haar box corner lies on one (n+2) × (n+2) lattice of spacing s around the
/// keypoint, looked up once each. Oriented, the (n+1) × (n+1) box means m(c(a, b)) of the
/// rotated box lattice (surf_descriptor.h) are computed once per keypoint, 4 corner lookups per
/// axis-aligned s × s box, and every sample's dx', dy' is formed in the keypoint's frame from its
/// four quadrant boxes (no rotation of axis-aligned responses).
/// Thread-safe: describe() is const and shares no mutable state between calls.
class SurfCpu {
 public:
  /// @throws std::invalid_argument if options.threads < 0.
  explicit SurfCpu(const SurfCpuOptions& options = {});

  /// The options given to the constructor.
  const SurfCpuOptions& options() const;

  /// Computes one descriptor per keypoint.
  ///
  /// @param image CV_8UC1 gray or CV_8UC3 BGR (converted with cv::cvtColor COLOR_BGR2GRAY),
  ///   non-empty; intensities are taken as value / 255.
  /// @param keypoints positions in OpenCV pixel-centre coordinates, SURF scale s > 0, angle in
  ///   degrees (see keypoint.h). With Orientation::Oriented, every keypoint whose angle is
  ///   negative gets the intensity-centroid angle in [0, 360) written back; with Upright the
  ///   keypoints are not modified and their angles are ignored.
  /// @return N × descriptorLength(type) CV_32F (N = keypoints.size(), so 0 × 64 or 0 × 36 when
  ///   empty); row i belongs to keypoints[i], bin 4·(sy·m + sx) + k with k = 0: Σ w·dx',
  ///   1: Σ w·dy', 2: Σ |w·dx'|, 3: Σ |w·dy'|; each row has unit L2 norm, or is all zeros where
  ///   the patch is uniform (norm at the level of double rounding noise).
  /// @throws std::invalid_argument for an empty image, an image type other than CV_8UC1 or
  ///   CV_8UC3 (the message names the type), or a bad keypoint (validateKeypoints: the message
  ///   names the keypoint index and field).
  cv::Mat describe(const cv::Mat& image, std::vector<Keypoint>& keypoints) const;

 private:
  SurfCpuOptions options_;
  int gridSize_;           ///< n: 20 or 15
  int subregions_;         ///< m: 4 or 3
  int length_;             ///< 4·m²
  std::vector<double> gaussian_;  ///< n × n row-major: weight of sample (i, j) at [j·n + i]
};

}  // namespace nft::detection
