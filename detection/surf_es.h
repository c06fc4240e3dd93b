#pragma once
// SURF-ES: SURF descriptors computed on the GPU with OpenGL ES 2.0 shaders (Hofmann 2012,
// seeds/000 sections 3.3-4.5), past the thesis's limits: up to 4096+ keypoints per call
// (sample blocks tiled in 2D), an orientation computed on the GPU, a float-texture storage
// path, and a precision override that emulates a mediump GPU. The descriptor is the one
// defined in detection/surf_descriptor.h; SurfCpu computes the same on the CPU.

#include <memory>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"
#include "detection/surf_descriptor.h"

namespace nft::gpu {
struct Capabilities;
class Texture;
}  // namespace nft::gpu

namespace nft::detection {

/// Where intermediate and final values live on the GPU.
enum class DescriptorStorage {
  Auto,   ///< Float where a float or half-float texture is renderable, else Rgba8.
  Rgba8,  ///< Any GLES2 GPU: RGBA8 textures with the precision-adaptive encoding (seeds/000 4.5).
  Float,  ///< RGBA32F (or RGBA16F) render targets: four sums per texel, fewer passes (6.1).
};

/// How SurfEs reads the 2 × 2 quarter boxes of SurfEsOptions::boxTaps 2 (issue 36).
enum class QuarterBoxes {
  /// One trilinear lookup per box mean in a box pyramid kept in the pyramid atlas's green
  /// channel: its level k holds, on each corner of image level k, the mean of the 2 × 2 texels
  /// around it (level k + 1 at level k's density: one texel is a box of four quarter boxes; the
  /// mipmap summation of seeds/000 section 6.1), so one bilinear lookup in it is exactly four
  /// in level k at ± half a texel (surf_es_pyramid.glsl). Made with the pyramid at no extra pass
  /// (level 0 on the CPU with the upload, or in the gray pass; the others in the halve pass).
  /// As many lookups as boxTaps 1; descriptors within a mean cosine of 0.998 of the four
  /// lookups' (tests/detection/surf_es_test.cpp), recall at least the CPU lane's minus 0.6 points
  /// on the Oxford sequences (docs/results.md, "SURF-ES box reads").
  BoxPyramid,
  /// Four trilinear lookups per box mean in the image pyramid, one per quarter box (issue 22):
  /// 4 times the lookups of boxTaps 1.
  Lookups,
};

/// Construction options of SurfEs.
struct SurfEsOptions {
  int maxWidth = 1920;       ///< largest image, pixels
  int maxHeight = 1080;
  int maxKeypoints = 4096;   ///< most keypoints per call
  DescriptorType type = DescriptorType::Surf64;
  /// Oriented by default; upright (U-SURF, about half the time) where rotation is not needed.
  Orientation orientation = Orientation::Oriented;
  DescriptorStorage storage = DescriptorStorage::Auto;
  /// Fragment precision p for the RGBA8 encoding. 0: the GPU's (the probe's). A value below
  /// the GPU's also rounds every intermediate value to p bits, to see on a desktop what a
  /// mediump GPU (p = 10: Mali-400, seeds/000 table 3) would produce.
  int precisionBits = 0;
  /// Box means per box: 1 (one trilinear lookup per box, the thesis's) or 2 (the mean of its
  /// 2 × 2 quarter boxes, read as `quarterBoxes` says; see surf_es_pyramid.glsl). 2 brings
  /// SURF-ES's matching recall to the CPU lane's (wall, oriented: 1 gives 12.9 % against the CPU
  /// lane's 15.2 %; 2 gives 18.9 % from the box pyramid, 15.6 % with four lookups, see
  /// kBoxPyramidLodBias and kQuarterBoxLodBias in surf_es.cpp). From the box pyramid it costs
  /// the lookups of 1; with four lookups about 3.3 times the texture fetches. 2 by default.
  int boxTaps = 2;
  /// With boxTaps 2: one lookup in the box pyramid (the default) or four in the image pyramid.
  /// Ignored with boxTaps 1. @throws std::invalid_argument (constructor) for another value.
  QuarterBoxes quarterBoxes = QuarterBoxes::BoxPyramid;
};

/// Descriptors left on the GPU for the matcher (no readback). Valid until the next call of
/// the SurfEs that made them.
///
/// Layout: keypoint k's descriptor is in the blockSide × blockSide block of `texture` at
/// ((k % blocksPerRow)·blockSide, (k / blocksPerRow)·blockSide), descriptor texel t at
/// (t % texelsPerSide, t / texelsPerSide) in it — square blocks, as seeds/000 section 6.1
/// suggests for cache locality. Rgba8 storage: 8 × 8 (SURF-64) or 6 × 6 (SURF-36) texels, texel
/// t holding bin t encoded with gpu/float_codec.glsl at `precisionBits`; Float storage: 4 × 4
/// or 3 × 3 texels (in a 4 × 4 block), texel t holding bins 4t .. 4t + 3 (one subregion).
/// Rows have unit L2 norm.
struct GpuDescriptors {
  const gpu::Texture* texture = nullptr;
  int count = 0;
  int blocksPerRow = 0;
  int blockSide = 0;
  int texelsPerSide = 0;
  DescriptorStorage storage = DescriptorStorage::Rgba8;
  DescriptorType type = DescriptorType::Surf64;
  int precisionBits = 0;
};

/// GPU time of each stage of the last call, in milliseconds (when profiling is on; NaN for a
/// stage that did not run or whose sample was void). Measured with gpu::GpuTimer.
/// pyramid: image upload, gray conversion, pyramid levels and box-pyramid levels; lattice: box means (RGBA8 path);
/// sums: subregion sums (the float path forms its box means here); readback: describe() only.
struct SurfEsTimings {
  double pyramid = 0, orientation = 0, lattice = 0, sums = 0, norm = 0, normalize = 0, readback = 0;
  double total() const;
};

/// The GPU descriptor extractor. Built once for a maximum image size, keypoint count and
/// descriptor type; reuses its textures and programs on every call. Needs the GL context
/// current in every call and at destruction. Move-only.
class SurfEs {
 public:
  /// Compiles the programs and allocates the textures.
  /// @throws std::invalid_argument for non-positive sizes/counts, a precision override the GPU
  ///         cannot honour, or Float storage forced where no float texture is renderable;
  ///         gpu::GpuError / gpu::ShaderError if the GPU refuses.
  SurfEs(const gpu::Capabilities& caps, const SurfEsOptions& options = {});
  ~SurfEs();
  SurfEs(SurfEs&&) noexcept;
  SurfEs& operator=(SurfEs&&) noexcept;

  /// Computes descriptors for `keypoints` of `image` and leaves them on the GPU.
  /// image: CV_8UC1 gray or CV_8UC3 BGR, at most maxWidth × maxHeight.
  /// With Orientation::Oriented, keypoints with angle < 0 get one computed on the GPU (not
  /// read back: use describe() for the angles).
  /// @throws std::invalid_argument for an empty, too large or wrongly typed image, more than
  ///         maxKeypoints keypoints, or a bad keypoint (validateKeypoints names it).
  GpuDescriptors extract(const cv::Mat& image, const std::vector<Keypoint>& keypoints);

  /// extract() and readback: an N × descriptorLength CV_32F matrix, row i for keypoints[i],
  /// unit L2 norm (zero for a uniform patch). With Orientation::Oriented, computed angles
  /// (degrees, [0, 360)) are written to the keypoints. Same errors as extract().
  cv::Mat describe(const cv::Mat& image, std::vector<Keypoint>& keypoints);

  /// The storage path in use (never Auto) and the encoding precision p.
  DescriptorStorage storage() const;
  int precisionBits() const;
  const SurfEsOptions& options() const;

  /// Per-stage GPU timing of later calls (adds a GPU sync per stage: for benchmarks).
  void setProfiling(bool on);
  const SurfEsTimings& lastTimings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::detection
