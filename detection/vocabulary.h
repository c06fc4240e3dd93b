#pragma once
// Recognition among many targets without matching a frame against every target: visual words and
// an inverted index scored by tf-idf — the vocabulary tree of Nistér and Stewénius, "Scalable
// Recognition with a Vocabulary Tree", CVPR 2006, as the retrieval stage of
// ../shared/seeds/003_85cb3d17c84d86ed.txt (Garbo and Quer) uses it.
//
// Why this method: the words are trained once per database (OpenCV's k-means), a frame's
// descriptors are assigned to words on the GPU by the same brute-force matcher that matches
// targets (GpuMatcher against the word centres: one pass of N × K, the cost of matching one
// target of K descriptors), and the inverted index then scores every target in time
// proportional to the postings of the frame's words — so the detection lane matches only the
// few shortlisted targets, whatever the database's size.
//
// The tree is built by hierarchical k-means (branching b, depth L: up to b^L leaves); its leaves
// are then used as a flat vocabulary with exact nearest-word assignment (no tree descent), so a
// descriptor gets the same word on the GPU (frames) and on the CPU (training).

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::detection {

/// Settings of Vocabulary::train().
struct VocabularyOptions {
  int branching = 10;  ///< Children per node, >= 2.
  int depth = 3;       ///< Levels, >= 1: up to branching^depth words.
  /// At most this many descriptors (a uniform random subset) train the tree, > 0.
  int maxTrainingDescriptors = 100000;
  int kmeansIterations = 8;  ///< Lloyd iterations per node (cv::kmeans), >= 1.
  std::uint64_t seed = 1;    ///< Random seed (subset and k-means++ seeding): the same input gives the same words.
};

/// K visual words: K × D CV_32F word centres (D = 64 or 36, SURF descriptors).
class Vocabulary {
 public:
  /// An empty vocabulary (size() 0).
  Vocabulary() = default;
  /// Wraps word centres. @throws std::invalid_argument unless CV_32F with 1..65535 rows.
  explicit Vocabulary(cv::Mat words);
  /// Hierarchical k-means over `descriptors` (N × D CV_32F, N >= 1). Nodes with fewer than
  /// 2 · branching descriptors become leaves.
  /// @throws std::invalid_argument for an empty or non-CV_32F matrix or options out of range.
  static Vocabulary train(const cv::Mat& descriptors, const VocabularyOptions& options = {});

  /// K × D CV_32F word centres.
  const cv::Mat& words() const { return words_; }
  int size() const { return words_.rows; }
  /// The nearest word (L2) of each row of `descriptors` (N × D CV_32F, D = words().cols), by
  /// OpenCV's brute-force matcher. @throws std::invalid_argument for another width or type.
  std::vector<int> quantize(const cv::Mat& descriptors) const;

 private:
  cv::Mat words_;
};

/// The inverted index: for each word the targets (documents) that contain it and how often;
/// scores by tf-idf (idf_i = ln(N / N_i), vectors L1-normalised) and histogram intersection
/// Σ_i min(q_i, d_i) ∈ [0, 1] — equivalent to Nistér and Stewénius's L1 distance
/// (‖q − d‖₁ = 2 − 2 Σ min(q_i, d_i)).
class InvertedIndex {
 public:
  /// An index over `words` words (the vocabulary's size).
  explicit InvertedIndex(int words = 0);
  /// Adds or replaces document `id` (>= 0) with its descriptors' word ids (each in [0, words)).
  /// @throws std::invalid_argument for a negative id or a word out of range.
  void add(int id, const std::vector<int>& wordIds);
  /// Removes document `id` (nothing if absent).
  void remove(int id);
  /// Number of documents.
  int documents() const { return static_cast<int>(documentWords_.size()); }

  /// The `top` best documents for a query's word ids, best first: (id, score in [0, 1]);
  /// documents in `excluded` are skipped; documents that share no word are not returned.
  std::vector<std::pair<int, double>> query(const std::vector<int>& wordIds, int top,
                                            const std::vector<int>& excluded = {}) const;

 private:
  void refreshWeights() const;

  int words_ = 0;
  /// word → (document, count)
  std::vector<std::vector<std::pair<int, int>>> postings_;
  /// document → (word → count)
  std::unordered_map<int, std::unordered_map<int, int>> documentWords_;
  // Cached weights, rebuilt after a change: idf per word, L1 norm of each document's tf-idf.
  mutable bool dirty_ = true;
  mutable std::vector<double> idf_;
  mutable std::unordered_map<int, double> norm_;
};

}  // namespace nft::detection
