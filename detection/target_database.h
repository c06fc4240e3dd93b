#pragma once
// The target database (.nftdb): many trained targets — name, physical width, model — and the
// visual words that recognise them (vocabulary.h), in one versioned, CRC-checked file written
// atomically (binary_io.h).
//
// Layout of the payload: target count T (u32); per target its name (u32 length + UTF-8 bytes),
// the length (u64) and bytes of its model as a whole .nftm file (target_model_io.h: its own
// version and checksum inside), its keypoints' word ids (u32 count = keypoints, then u16 each);
// then the vocabulary: word count K (u32), descriptor length D (u32), K × D f32.

#include <cstdint>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "detection/target_model.h"
#include "detection/vocabulary.h"

namespace nft::detection {

/// The format version this build writes and reads.
inline constexpr std::uint32_t kTargetDatabaseVersion = 1;

/// One target of a database.
struct DatabaseTarget {
  std::string name;          ///< Unique within the database, not empty.
  TargetModel model;         ///< Its physical width is model.widthMetres (0 = unknown).
  std::vector<int> words;    ///< Word id of each of model.keypoints (vocabulary's numbering).
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

  /// Writes the file atomically (a failure leaves any previous file as it was).
  /// @throws std::runtime_error naming the file; std::invalid_argument for an empty database.
  void save(const std::string& path) const;
  /// Reads a file written by save(): truncated, corrupt, foreign or other-version files and two
  /// targets of one name are errors naming the file (and the target).
  /// @throws std::runtime_error "target database '<path>': <what is wrong>".
  static TargetDatabase load(const std::string& path);

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
