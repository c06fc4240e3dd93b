#pragma once
// The target database (.nftdb): many trained targets — name, physical width, model — and the
// visual words that recognise them (vocabulary.h), in one versioned, CRC-checked file written
// atomically (binary_io.h).
//
// Layout of the payload, version 3 (written): the vocabulary: word count K (u32), descriptor
// length D (u32), K × D f32; the residual quantiser (residual_quantizer.h): sub-vectors M (u32),
// centroids C (u32), (M · C) × (D / M) f32; target count T (u32); per target its name (u32
// length + UTF-8 bytes), the length (u64) and bytes of its compact record (compact_target.h,
// version 3: the descriptors as word ids and 8-byte residual codes, the working image as a PNG
// or JPEG file, keypoints packed). Version 2 (still read): the target count first, each record
// (version 2: 8-bit descriptors) followed by its keypoints' word ids (u32 count = keypoints, then
// u16 each), the vocabulary last. Version 1 (still read): as version 2 with each model as a whole
// .nftm file (target_model_io.h: f32 descriptors, the raw image). With nft_train's defaults
// (1,000 keypoints and up to 1,000 tilted views a target), 1,001 photographs took 580 MB in
// version 1, 168.6 MB in version 2, 64 KB a target of which 108 KB were the 8-bit descriptors
// (docs/results.md, "Several targets").

#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "detection/residual_quantizer.h"
#include "detection/stored_target.h"
#include "detection/target_model.h"
#include "detection/vocabulary.h"

namespace nft::detection {

/// The format version this build writes; it reads this one and kOldestTargetDatabaseVersion.
/// 4: each target's geometry (TargetModel::geometry) at the end of its record; older ones load as
/// planar targets.
inline constexpr std::uint32_t kTargetDatabaseVersion = 4;
/// The oldest version this build reads (1: the models as .nftm files; 2: 8-bit descriptors; 3:
/// word ids and residual codes).
inline constexpr std::uint32_t kOldestTargetDatabaseVersion = 1;

/// How save() stores the targets.
struct TargetDatabaseSaveOptions {
  /// The working images: 0 = PNG (lossless), 1..100 = JPEG at this quality. Default 85: on
  /// 1000 photographs of about 480 × 360 px, 25.5 KB an image against 57 KB as PNG and 104 KB
  /// raw; see docs/results.md ("Several targets") for its effect on tracking.
  int imageQuality = 85;
  /// The most tilted-view keypoints (TargetModel::tiltedKeypoints) kept a target: the strongest
  /// (FAST score, Keypoint::response), in their order; -1 = all. Default 300: with nft_train's
  /// defaults a target has about 940 keypoints of its own and 750 of its four tilted views, and
  /// at 21 bytes a keypoint stored (packed position, word id, residual codes) all of them made
  /// 66 MB for 1,001 targets, 300 of them 58 (docs/results.md, "Several targets"). Recognition
  /// among many targets matches their own keypoints only (tracker/multi_target_detector.h); the
  /// views serve a target's detection lane once it is found.
  int maxTiltedKeypoints = 300;
};

/// How TargetDatabase::load keeps the targets.
struct TargetDatabaseLoadOptions {
  /// false: every target decoded into DatabaseTarget::model. true (version 2 files; a version 1
  /// file is decoded as with false): each target kept as a StoredTarget over the file, mapped
  /// into memory (stored_target.h), and `model` left empty — for an application holding a large
  /// database (Session::loadDatabase). Every record is still decoded once while loading, so a
  /// corrupt file fails load() either way.
  bool keepCompact = false;
};

/// One target of a database.
struct DatabaseTarget {
  std::string name;          ///< Unique within the database, not empty.
  /// Its physical width is model.widthMetres (0 = unknown). Empty (no image, no keypoints) when
  /// `stored` is set.
  TargetModel model;
  std::vector<int> words;    ///< Word id of each keypoint (vocabulary's numbering).
  /// The target compact, decoded on demand (TargetDatabaseLoadOptions::keepCompact); else null.
  std::shared_ptr<const StoredTarget> stored;
};

/// Targets and their vocabulary. Names are unique.
class TargetDatabase {
 public:
  /// An empty database without a vocabulary.
  TargetDatabase() = default;

  /// Builds a database from named models: trains the vocabulary on all their descriptors
  /// (Vocabulary::train with `options`) and assigns every keypoint its word.
  /// @throws std::invalid_argument for an empty list, an empty or repeated name (both named), a
  ///   model without descriptors, or models of different descriptor types.
  static TargetDatabase build(std::vector<std::pair<std::string, TargetModel>> targets,
                              const VocabularyOptions& options = {});

  /// Writes the file atomically (a failure leaves any previous file as it was), in the format
  /// version kTargetDatabaseVersion: descriptors as their words and residual codes of a
  /// ResidualQuantizer trained here on an even sample of all targets' descriptors (a loaded
  /// version-3 database keeps its own; a loaded database's descriptors are near-unit rows, word +
  /// centroids, on the 1,001 photographs of docs/results.md within ~0.2 of those saved), images as `options` says,
  /// keypoint positions within S / 131070 px (S: the image's longer side), everything else as it
  /// is; at most options.maxTiltedKeypoints tilted-view keypoints a target. Stored targets are
  /// decoded.
  /// @throws std::runtime_error naming the file; std::invalid_argument for an empty database or
  ///   an image quality outside [0, 100] or maxTiltedKeypoints below -1.
  void save(const std::string& path, const TargetDatabaseSaveOptions& options = {}) const;
  /// Reads a file written by save() (version 3) or by an older build (versions 1 and 2): truncated,
  /// corrupt, foreign or other-version files, an image that does not decode, and two targets of
  /// one name are errors naming the file (and the target).
  /// With options.keepCompact the file stays mapped while a target holds it (its pages are
  /// released as they are checked and decoded, so neither the load nor the database after it
  /// keeps the file resident) and the targets are StoredTargets.
  /// @throws std::runtime_error "target database '<path>': <what is wrong>".
  static TargetDatabase load(const std::string& path, const TargetDatabaseLoadOptions& options = {});

  const std::vector<DatabaseTarget>& targets() const { return targets_; }
  /// Moves the targets out (the database keeps its vocabulary and is empty of targets after),
  /// so a large database is not held twice in memory.
  std::vector<DatabaseTarget> takeTargets() { return std::exchange(targets_, {}); }
  const Vocabulary& vocabulary() const { return vocabulary_; }
  int size() const { return static_cast<int>(targets_.size()); }
  /// Index of the target called `name`, or -1.
  int find(const std::string& name) const;

  /// Pairs of targets too alike to tell apart: (a, b, similarity) for every target a whose most
  /// similar other target b scores at least `threshold` in the inverted index (histogram
  /// intersection of tf-idf word vectors, 1 = identical words); each pair once. Sorted by
  /// similarity, highest first. With about 1000 words, unrelated photographs' most similar other
  /// scores 0.5-0.7 (median 0.61 over 1000 crops of different photographs), overlapping crops of
  /// one photograph 0.8 and more: hence the default 0.8.
  std::vector<std::tuple<std::string, std::string, double>> lookAlikes(double threshold = 0.8) const;

 private:
  /// A ResidualQuantizer trained on an even sample (at most 100,000 rows) of the targets'
  /// descriptors; `modelOf(i)` is target i's model (decoded when stored).
  ResidualQuantizer trainQuantizer(const std::function<const TargetModel&(size_t)>& modelOf) const;

  std::vector<DatabaseTarget> targets_;
  Vocabulary vocabulary_;
  /// The quantiser of a loaded version-3 file (reused by save()); null otherwise.
  std::shared_ptr<const ResidualQuantizer> quantizer_;
};

}  // namespace nft::detection
