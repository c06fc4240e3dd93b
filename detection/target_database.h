#pragma once
// The target database (.nftdb): many trained targets — name, physical width, model — and the
// visual words that recognise them (vocabulary.h), in one versioned, CRC-checked file written
// atomically (binary_io.h).
//
// Layout of the payload, version 2 (written): target count T (u32); per target its name (u32
// length + UTF-8 bytes), the length (u64) and bytes of its compact record (compact_target.h:
// 8-bit descriptors, the working image as a PNG or JPEG file, keypoints packed), its keypoints'
// word ids (u32 count = keypoints, then u16 each); then the vocabulary: word count K (u32),
// descriptor length D (u32), K × D f32. Version 1 (still read) held each model as a whole .nftm
// file (target_model_io.h: f32 descriptors, the raw image) instead of the compact record: about
// 580 KB a target against 52 KB trained with nft_train --keypoints 300 --view-tilt 0, 167 KB with
// the defaults (docs/results.md, "Several targets").

#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "detection/stored_target.h"
#include "detection/target_model.h"
#include "detection/vocabulary.h"

namespace nft::detection {

/// The format version this build writes; it reads this one and kOldestTargetDatabaseVersion.
inline constexpr std::uint32_t kTargetDatabaseVersion = 2;
/// The oldest version this build reads (1: the models as .nftm files).
inline constexpr std::uint32_t kOldestTargetDatabaseVersion = 1;

/// How save() stores the targets.
struct TargetDatabaseSaveOptions {
  /// The working images: 0 = PNG (lossless), 1..100 = JPEG at this quality. Default 85: on
  /// 1000 photographs of about 480 × 360 px, 25.5 KB an image against 57 KB as PNG and 104 KB
  /// raw; see docs/results.md ("Several targets") for its effect on tracking.
  int imageQuality = 85;
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
  /// version kTargetDatabaseVersion: descriptors quantised to 8 bits (quantizeDescriptors in
  /// compact_target.h: a loaded database's descriptors are unit rows within 0.02 of those
  /// saved), images as `options` says, everything else as it is. Stored targets are decoded.
  /// @throws std::runtime_error naming the file; std::invalid_argument for an empty database or
  ///   an image quality outside [0, 100].
  void save(const std::string& path, const TargetDatabaseSaveOptions& options = {}) const;
  /// Reads a file written by save() (version 2) or by an older build (version 1): truncated,
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
  std::vector<DatabaseTarget> targets_;
  Vocabulary vocabulary_;
};

}  // namespace nft::detection
