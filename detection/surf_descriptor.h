#pragma once
// The SURF descriptor as this project defines it: the one definition that the GPU extractor
// (SurfEs, detection/surf_es.h) and the CPU lane (SurfCpu, detection/surf_cpu.h) implement.
//
// Bay et al. 2008 / seeds/000 section 3.1.1 / seeds/002 section II, made exact:
// - Sample grid: n × n samples (n = 20 for SURF-64, 15 for SURF-36) at offsets
//   (i - (n-1)/2)·s, i = 0..n-1, along the keypoint's axes u = (cos a, sin a) and
//   v = (-sin a, cos a) (a = 0 when upright): sample (i, j) sits at
//   (x, y) + (i - (n-1)/2)·s·u + (j - (n-1)/2)·s·v.
// - Haar wavelets of size 2s in the keypoint's frame, from the mean intensities of four s × s
//   quadrants. With m(c) the mean intensity (in [0, 1], 8-bit value / 255) of the
//   axis-aligned s × s box centred at c on the piecewise-constant image (pixel (col, row)
//   covers [col − 0.5, col + 0.5] × [row − 0.5, row + 0.5]; outside the image the nearest
//   edge pixel, i.e. replicate/clamp-to-edge), and the box lattice
//     c(a, b) = (x, y) + (a − n/2)·s·u + (b − n/2)·s·v,   a, b = 0..n,
//   sample (i, j) has its quadrants at c(i, j) (top left in the keypoint frame), c(i+1, j),
//   c(i, j+1), c(i+1, j+1), and
//     dx' = ½·[(m(c(i+1, j)) + m(c(i+1, j+1))) − (m(c(i, j)) + m(c(i, j+1)))]
//     dy' = ½·[(m(c(i, j+1)) + m(c(i+1, j+1))) − (m(c(i, j)) + m(c(i+1, j)))]
//   i.e. the mean of the right minus the left half, of the bottom minus the top half. Boxes are
//   exact for any real centre and s (not rounded to whole pixels). Upright (a = 0) this is the
//   axis-aligned Haar wavelet of Bay et al.; oriented, the quadrant centres turn with the
//   keypoint (the boxes stay axis-aligned), so neighbouring samples share their quadrants —
//   (n+1)² box means per keypoint instead of 4n² (seeds/000 section 6.1 asks for fewer
//   fetches). Implementations that rotate axis-aligned responses (OpenCV, seeds/002) differ
//   slightly for oriented keypoints.
// - Gaussian weight w = exp(−(ĩ² + j̃²) / (2σ²)), ĩ = i − (n−1)/2, j̃ = j − (n−1)/2 in units of
//   s, σ = 3.3 (SURF-64; 0.165 of the window) and 2.475 (SURF-36, same fraction of its 15s
//   window). Unnormalised (1 at the centre).
// - Subregions of 5 × 5 samples: (sx, sy) = (i / 5, j / 5). Bin layout of the descriptor:
//   4·(sy·m + sx) + k, m = n / 5 subregions per side, k = 0: Σ w·dx', 1: Σ w·dy',
//   2: Σ |w·dx'|, 3: Σ |w·dy'|.
// - Normalised to unit L2 norm. A keypoint on a perfectly uniform patch has norm 0 and gets a
//   row of zeros.
// - Orientation (when computed, not given): the intensity centroid (Rosin 1999; ORB, Rublee
//   et al. 2011; seeds/000 section 6.1) over the disc of radius 6s: the lattice points (i, j)
//   with i² + j² ≤ 36 (113 points, integer i, j), each weighted by the mean intensity of the
//   s × s box centred at (x, y) + s·(i, j); m10 = Σ i·m, m01 = Σ j·m;
//   a = atan2(m01, m10) in degrees, mapped to [0, 360). Chosen over SURF's sliding-window
//   Haar orientation by measurement (see README): about 3% fewer correct matches on
//   oxford/graf and boat, for one GPU pass of 113 fetches per keypoint instead of thousands.

#include <opencv2/core.hpp>
#include <vector>

#include "detection/keypoint.h"

namespace nft::detection {

/// SURF-64 (4×4 subregions, 20×20 samples) or SURF-36 (3×3 subregions, 15×15 samples).
enum class DescriptorType { Surf64, Surf36 };

/// Whether descriptors are upright (U-SURF, a = 0 for every keypoint, any Keypoint::angle
/// ignored) or oriented (a = Keypoint::angle where it is >= 0, else computed by the intensity
/// centroid and written back to the keypoint).
enum class Orientation { Upright, Oriented };

inline constexpr int kSamplesPerSubregion = 5;
/// Radius of the orientation disc, in units of s.
inline constexpr int kOrientationRadius = 6;

/// 64 or 36.
int descriptorLength(DescriptorType type);
/// Samples per side of the grid: 20 or 15.
int gridSize(DescriptorType type);
/// Subregions per side: 4 or 3.
int subregionsPerSide(DescriptorType type);
/// σ of the Gaussian weight in units of s: 3.3 or 2.475.
double gaussianSigma(DescriptorType type);

/// Checks keypoints against an image of `imageSize`: x in [0, width − 1], y in [0, height − 1],
/// scale finite and in (0, max(width, height)], angle finite.
/// @throws std::invalid_argument naming the first bad keypoint's index, field and value.
void validateKeypoints(const std::vector<Keypoint>& keypoints, cv::Size imageSize);

}  // namespace nft::detection
