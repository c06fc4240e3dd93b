#pragma once
// A target of a database kept compact in memory: its record (compact_target.h) stays in the
// database's file, memory-mapped (mapped_file.h), and only what recognition needs at all times
// is resident: the image size, metres per pixel, the keypoint counts and the descriptor kind
// (the inverted index holds the words). The recogniser decodes the descriptors and keypoint
// positions of a target it verifies (tracker/multi_target_detector.h), the session the whole
// model of a target it found (session/target_tracking.h). The positions were resident until
// issue 46 item 3: 1,300 keypoints a target, 10.4 MB for 1,001 targets. Issue 33, item 6:
// decoded at load, a 300-keypoint target costs about 223 KB of memory (the working image, f32
// descriptors), and 1,000 of them 220 MB on top of the 170 MB process; compact, about 5 KB
// (docs/results.md, "Several targets").

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/mapped_file.h"
#include "detection/residual_quantizer.h"
#include "detection/target_model.h"

namespace nft::detection {

/// What the recogniser verifies a stored target with (StoredTarget::decodeKeypoints).
struct StoredKeypoints {
  /// keypointCount() × descriptorLength(descriptorType()) CV_32F, row i for keypoint i
  /// (TargetModel::keypoints' order: its own keypoints, then its tilted views'): unit rows from
  /// a version-2 record, near-unit ones (word + centroids, residual_quantizer.h) from version 3.
  cv::Mat descriptors;
  /// keypointCount() positions, working-image pixels, [i] for keypoint i.
  std::vector<cv::Point2f> points;
};

/// One target of a loaded database (TargetDatabase::load with keepCompact), decoded on demand.
/// Immutable after construction; decode() and decodeDescriptors() may run on several threads at
/// once (the asynchronous recogniser's worker and the session's thread).
class StoredTarget {
 public:
  /// Keeps `file` and the record of `bytes` bytes at `record` (within file's bytes, checked by
  /// the caller's CRC and decoded once as `decoded`, the summary's source). `what` and `name`
  /// name it in errors. `quantizer`: the database's, for a version-3 or 4 record
  /// (compact_target.h); null for a version-2 one. `geometry`: the record holds the geometry (a
  /// version-4 database's).
  StoredTarget(std::shared_ptr<const MappedFile> file, const unsigned char* record, size_t bytes, std::string what,
               std::string name, const TargetModel& decoded,
               std::shared_ptr<const ResidualQuantizer> quantizer = nullptr, bool geometry = false);

  const std::string& name() const { return name_; }
  cv::Size imageSize() const { return imageSize_; }             ///< working image, pixels
  double originalScale() const { return originalScale_; }       ///< TargetModel::originalScale
  double widthMetres() const { return widthMetres_; }           ///< TargetModel::widthMetres
  double metresPerPixel() const { return imageSize_.width > 0 ? widthMetres_ / imageSize_.width : 0.0; }
  DescriptorType descriptorType() const { return descriptorType_; }
  Orientation orientation() const { return orientation_; }
  int keypointCount() const { return keypointCount_; }          ///< TargetModel::keypoints.size()
  int tiltedKeypoints() const { return tiltedKeypoints_; }       ///< TargetModel::tiltedKeypoints
  int frontalKeypoints() const { return keypointCount() - tiltedKeypoints_; }
  int patchCount() const { return patchCount_; }
  const TargetQuality& quality() const { return quality_; }
  const TargetGeometry& geometry() const { return geometry_; }  ///< TargetModel::geometry

  /// The whole model to track the target with (the session's, once it is found): as stored, and
  /// for a version-3 record its own keypoints described again from its image
  /// (describeOwnKeypointsAgain in compact_target.h: nearer the trained descriptors than the codes).
  /// @throws std::runtime_error naming the file and target if the record no longer decodes.
  TargetModel decode() const;
  /// The whole model as the file stores it, as TargetDatabase::load without keepCompact gives it
  /// (the same bits): what TargetDatabase::save writes again.
  /// @throws std::runtime_error as decode().
  TargetModel decodeStored() const;
  /// The descriptors only, as StoredKeypoints::descriptors: decoded from the stored 8-bit rows or
  /// residual codes (the image is not decoded).
  /// @throws std::runtime_error as decode().
  cv::Mat decodeDescriptors() const;
  /// The descriptors and keypoint positions (the image is not decoded).
  /// @throws std::runtime_error as decode().
  StoredKeypoints decodeKeypoints() const;
  /// How many times decode(), decodeStored(), decodeDescriptors() or decodeKeypoints() ran on
  /// this target (an observable for the tests and the memory report: a target never verified
  /// nor found is never decoded).
  int decodeCount() const { return decodes_.load(); }

 private:
  TargetModel decodeRecord(bool image) const;

  std::shared_ptr<const MappedFile> file_;
  std::shared_ptr<const ResidualQuantizer> quantizer_;
  const unsigned char* record_;
  size_t bytes_;
  std::string what_, name_;
  cv::Size imageSize_;
  double originalScale_, widthMetres_;
  DescriptorType descriptorType_;
  Orientation orientation_;
  int keypointCount_, tiltedKeypoints_, patchCount_;
  TargetQuality quality_;
  TargetGeometry geometry_;
  bool geometryInRecord_;
  mutable std::atomic<int> decodes_{0};
};

/// Describes the target's own keypoints (the first frontalKeypoints() rows of `model.descriptors`)
/// again from `model.image` with SurfCpu at their positions, scales and angles, as trainTarget
/// described them; the tilted views' rows are left as they are (the views are not stored). For a
/// version-3 record, whose residual codes are within ~0.09–0.2 RMS of the trained unit
/// descriptors: close enough to recognise a target among many, not to match a found target as
/// closely as trained (tmt_bookI from a database of the book, detection alone: 85.7 % of frames
/// within 5 px described again from the JPEG 85 image, 85.9 % from PNG, 87.4 % with version 2's
/// 8-bit descriptors; docs/results.md, "A compact database by default").
/// Nothing happens without an image or own keypoints.
/// @throws std::invalid_argument as SurfCpu::describe (a keypoint outside the image, ...).
void describeOwnKeypointsAgain(TargetModel& model);

}  // namespace nft::detection
