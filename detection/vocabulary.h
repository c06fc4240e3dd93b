#pragma once
// Recognition among many targets without matching a frame against every target: visual words and
// an inverted index scored by tf-idf — the vocabulary tree of Nistér and Stewénius, "Scalable
// Recognition with a Vocabulary Tree", CVPR 2006, as the retrieval stage of
// ../shared/seeds/003_85cb3d17c84d86ed.txt (Garbo and Quer) uses it.
//
// Why this method: the words are trained once per database (OpenCV's k-means), a frame's
// descriptors get their words by descending a tree (a beam of 6 nodes per level: a few hundred
// distances per descriptor, whatever the vocabulary's size), and the inverted index then scores every target in time proportional
// to the postings of the frame's words — so the detection lane matches only the few shortlisted
// targets, whatever the database's size.
//
// The words are the leaves of a hierarchical k-means (branching b, depth L: up to b^L leaves),
// trained over the database's descriptors. A descriptor's word is found as in the vocabulary
// tree: from the root down through the nearest centres (the 6 nearest nodes of each level
// followed) to leaf buckets of at most b words, the nearest of which it takes — nearly always the
// nearest word, and the same one at training and at detection. The search tree is built over the words themselves when a
// Vocabulary is made (seeded k-means: the same words give the same tree), so a database file
// holds the words only. As Nistér and Stewénius found, recognition needs many words: among 1,000
// distractors, with 1,000 words (depth 3) three of the four prints of nft_eval multi's pan
// (each filling about a fifth of a cluttered frame) were never found, with 10,000 (depth 4, the
// default) all four were; exact assignment against 10,000 words cost 17–50 ms per frame on llvmpipe's machine
// (FLANN's k-d trees, the GPU matcher, BFMatcher), the tree descent about 4 ms.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::detection {

/// Settings of Vocabulary::train().
struct VocabularyOptions {
  int branching = 10;  ///< Children per node, >= 2.
  /// Levels, >= 1: up to branching^depth words. 4: 10,000 words (see the top of this file).
  int depth = 4;
  /// At most this many descriptors (a uniform random subset) train the tree, > 0: 300,000, about
  /// 30 per word at depth 4 (a node of fewer than 2 · branching is a leaf).
  int maxTrainingDescriptors = 300000;
  int kmeansIterations = 8;  ///< Lloyd iterations per node (cv::kmeans), >= 1.
  std::uint64_t seed = 1;    ///< Random seed (subset and k-means++ seeding): the same input gives the same words.
};

/// K visual words: K × D CV_32F word centres (D = 64 or 36, SURF descriptors).
class Vocabulary {
 public:
  /// An empty vocabulary (size() 0).
  Vocabulary();
  /// Wraps word centres and builds their search tree (seeded k-means, branching 10: 0.1 s for
  /// 10,000 words). @throws std::invalid_argument unless CV_32F with 1..65535 rows.
  explicit Vocabulary(cv::Mat words);
  ~Vocabulary();
  Vocabulary(const Vocabulary&);
  Vocabulary& operator=(const Vocabulary&);
  Vocabulary(Vocabulary&&) noexcept;
  Vocabulary& operator=(Vocabulary&&) noexcept;
  /// Hierarchical k-means over `descriptors` (N × D CV_32F, N >= 1). Nodes with fewer than
  /// 2 · branching descriptors become leaves.
  /// @throws std::invalid_argument for an empty or non-CV_32F matrix or options out of range.
  static Vocabulary train(const cv::Mat& descriptors, const VocabularyOptions& options = {});

  /// K × D CV_32F word centres.
  const cv::Mat& words() const { return words_; }
  int size() const { return words_.rows; }
  /// The word of each row of `descriptors` (N × D CV_32F, D = words().cols): the nearest (L2)
  /// word of the leaf buckets the search tree's beam leads to (see the top of this file).
  /// Thread-safe.
  /// @throws std::invalid_argument for another width or type.
  std::vector<int> quantize(const cv::Mat& descriptors) const;

 private:
  struct Tree;
  cv::Mat words_;
  std::shared_ptr<const Tree> tree_;  // immutable: shared by copies
};

/// The inverted index: for each word the targets (documents) that contain it and how often;
/// scores by tf-idf (idf_i = ln(N / N_i)): the geometric mean of
/// - the histogram intersection of the L1-normalised vectors, Σ_i min(q_i, d_i) ∈ [0, 1] —
///   equivalent to Nistér and Stewénius's L1 distance (‖q − d‖₁ = 2 − 2 Σ min(q_i, d_i)); and
/// - the document's coverage, Σ_i min(c_qi, c_di)·idf_i / Σ_i c_di·idf_i ∈ [0, 1]: how much of
///   the target the frame shows, whatever else it shows.
/// A frame is mostly clutter around a target, so its normalised histogram shares little mass
/// with any one target's, and the intersection alone favours large generic targets: with five
/// targets added to a Session (100 words) it left tmt_bookI's book out of the best 3 in its own
/// frames (GPU descriptors), where the mean ranks it 1st; among 1,000 distractors (10,000 words) the pan of nft_eval multi
/// finds its prints as with the intersection alone.
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
  int documents() const { return static_cast<int>(documents_.size()); }

  /// The `top` best documents for a query's word ids, best first: (id, score in [0, 1]);
  /// documents in `excluded` are skipped; documents that share no word are not returned.
  std::vector<std::pair<int, double>> query(const std::vector<int>& wordIds, int top,
                                            const std::vector<int>& excluded = {}) const;

 private:
  void refreshWeights() const;

  int words_ = 0;
  /// word → (document, count); each list trimmed to its size when the weights are refreshed.
  /// The only copy of the pairs: a second one by document (for remove() and the norms) took
  /// 5.6 MB of a 1,001-target database's memory (issue 46 item 3), and remove(), rare, scans
  /// the lists instead.
  mutable std::vector<std::vector<std::pair<int, int>>> postings_;
  std::unordered_set<int> documents_;
  // Cached weights, rebuilt after a change: idf per word, L1 norm of each document's tf-idf.
  mutable bool dirty_ = true;
  mutable std::vector<double> idf_;
  mutable std::unordered_map<int, double> norm_;
};

}  // namespace nft::detection
