#pragma once
// Descriptors in 8 bytes: a visual word (vocabulary.h) plus the product quantisation of what is
// left (the residual), as FAISS's IVFADC (Jégou, Douze, Schmid, "Product quantization for nearest
// neighbor search", TPAMI 33(1), 2011). The target database (version 3, target_database.h) stores
// every keypoint's word id already, for recognition; the residual, cut into M sub-vectors of
// D / M values, is stored as one byte a sub-vector: the nearest of 256 centroids that k-means
// (cv::kmeans) found on the database's residuals of that sub-vector.
//
// Why this and not fewer bits a component: SURF-64 in 8 bits a component is 64 bytes a keypoint,
// two thirds of a default target's record (docs/results.md, "Several targets": 1,000 keypoints
// and up to 1,000 tilted views a target). 4 bits would still be 32 bytes; 8 bytes of codes over
// the word the file holds anyway keep the distances the matcher's ratio test compares (docs/
// results.md measures recognition among 1,000 targets with it). Private to detection/.

#include <vector>

#include <opencv2/core.hpp>

namespace nft::detection {

/// A trained residual product quantiser over a vocabulary's words. Immutable; thread-safe.
class ResidualQuantizer {
 public:
  /// Centroids a sub-vector has at most (one byte a code).
  static constexpr int kMaxCentroids = 256;

  /// An empty quantiser (empty() true).
  ResidualQuantizer() = default;
  /// Wraps trained codebooks: `words` K × D CV_32F (the vocabulary's word centres), `codebooks`
  /// (M · C) × (D / M) CV_32F, sub-vector m's centroid c at row m · C + c, 1 <= C <= 256.
  /// @throws std::invalid_argument for other types or shapes (naming them) or a value that is not
  ///   finite.
  ResidualQuantizer(cv::Mat words, cv::Mat codebooks, int subvectors);

  /// The number of sub-vectors for descriptors of `length` values: 8 values each (8 for SURF-64)
  /// where `length` is a multiple of 8, else 4 values each (9 for SURF-36).
  /// @throws std::invalid_argument if `length` is not a positive multiple of 4.
  static int subvectorsFor(int length);

  /// Trains the codebooks on `descriptors` (N × D CV_32F, N >= 1) whose words are `wordIds` (N
  /// ids into `words`, K × D CV_32F): per sub-vector, seeded k-means (the same codebooks every
  /// time) with min(256, N) centroids on at most `sampleLimit` residuals taken evenly.
  /// @throws std::invalid_argument for mismatched shapes or a word id out of range.
  static ResidualQuantizer train(const cv::Mat& descriptors, const std::vector<int>& wordIds, const cv::Mat& words,
                                 int sampleLimit = 100000);

  /// The codes of `descriptors` (N × D CV_32F) with words `wordIds` (N ids): N × M CV_8UC1, the
  /// nearest centroid (L2) of each sub-vector of each residual.
  /// @throws std::invalid_argument for mismatched shapes or a word id out of range.
  cv::Mat encode(const cv::Mat& descriptors, const std::vector<int>& wordIds) const;
  /// The descriptors back from `codes` (N × M CV_8UC1) and `wordIds` (N ids): word + centroids,
  /// N × D CV_32F, near unit L2 rows (not renormalised: then encode(decode(codes)) gives `codes`
  /// back, so a database saved again writes the same bytes; renormalised rows moved some codes to
  /// a neighbouring centroid on each trip, as the target_database fuzzer found).
  /// @throws std::invalid_argument for mismatched shapes, a word id or a code out of range.
  cv::Mat decode(const cv::Mat& codes, const std::vector<int>& wordIds) const;

  bool empty() const { return codebooks_.empty(); }
  int subvectors() const { return subvectors_; }                        ///< M
  int centroids() const { return empty() ? 0 : codebooks_.rows / subvectors_; }  ///< C
  int length() const { return words_.cols; }                            ///< D
  int words() const { return words_.rows; }                             ///< K
  const cv::Mat& codebooks() const { return codebooks_; }               ///< (M · C) × (D / M) CV_32F

 private:
  /// Throws unless there are `rows` ids, each in [0, words).
  static void checkIds(const std::vector<int>& wordIds, int rows, int words, const char* who);

  cv::Mat words_, codebooks_;
  int subvectors_ = 0;
};

}  // namespace nft::detection
