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
/// Box means are exact for real-valued box edges: the integral of the piecewise-constant,
/// replicate-bordered image is bilinear inside each pixel cell, so a box's exact sum is a
/// bilinear combination of 16 integral-image values (4 rows × 4 columns around its corners),
/// linearly extrapolated beyond the image (exact for the replicate border), so windows of any
/// size reaching past the image edge are handled exactly. The integral image holds 32-bit
/// integers, and every box is formed from integer differences first (its box and strip sums, at
/// most 255 · (s + 2)², exact) and only then weighted in float: no cancellation of large values.
/// Both orientations compute the (n+1) × (n+1) box means m(c(a, b)) of the box lattice
/// (surf_descriptor.h; upright is the angle 0), each sample's dx', dy' in the keypoint's frame
/// from its four quadrant boxes, and the orientation disc's 113 boxes, four boxes at a time in
/// 128-bit vectors (OpenCV's universal intrinsics: SSE2, NEON, WebAssembly SIMD, or OpenCV's C++
/// emulation). Results agree with a double-precision evaluation of the definition to about 1e-6
/// per bin (float rounding).
/// Limit of the 32-bit sums: a box's sum must stay under 2³¹, which holds for every keypoint in
/// an image of up to 8,421,504 pixels (4K UHD has 8,294,400) and for s <= 2899 in larger ones.
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
  ///   CV_8UC3 (the message names the type), a bad keypoint (validateKeypoints: the message
  ///   names the keypoint index and field), or a keypoint of s > 2899 in an image of more than
  ///   8,421,504 pixels (named: its boxes' sums could exceed the 32-bit integral image).
  cv::Mat describe(const cv::Mat& image, std::vector<Keypoint>& keypoints) const;

 private:
  SurfCpuOptions options_;
  int gridSize_;           ///< n: 20 or 15
  int subregions_;         ///< m: 4 or 3
  int length_;             ///< 4·m²
  int paddedGrid_;         ///< n rounded up to the vector width (4): 20 or 16
  std::vector<float> gaussian_;  ///< n × paddedGrid_ row-major: weight of sample (i, j) at [j·paddedGrid_ + i], 0 beyond n
  int latticeBoxes_;             ///< (n+1)² rounded up to the vector width
  std::vector<float> latticeA_;  ///< a − n/2 of box lattice entry k (row-major over (a, b)), padded
  std::vector<float> latticeB_;  ///< b − n/2 of entry k
  std::vector<float> discI_;     ///< the orientation disc's points (i, j), padded with (0, 0)
  std::vector<float> discJ_;
};

}  // namespace nft::detection
