#include "detection/vocabulary.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include <opencv2/core/utility.hpp>
#include <opencv2/features2d.hpp>

namespace nft::detection {
namespace {

/// Splits `rows` of `data` recursively; appends the leaves' centres to `leaves`.
void split(const cv::Mat& data, const std::vector<int>& rows, int level, const VocabularyOptions& o, cv::RNG& rng,
           std::vector<cv::Mat>& leaves) {
  const int n = static_cast<int>(rows.size());
  if (level == o.depth || n < 2 * o.branching) {
    cv::Mat centre = cv::Mat::zeros(1, data.cols, CV_32F);
    for (int r : rows) centre += data.row(r);
    leaves.push_back(centre / std::max(1, n));
    return;
  }
  cv::Mat subset(n, data.cols, CV_32F);
  for (int i = 0; i < n; ++i) data.row(rows[static_cast<size_t>(i)]).copyTo(subset.row(i));
  cv::Mat labels, centres;
  cv::theRNG() = rng;  // cv::kmeans seeds k-means++ from the thread's RNG: deterministic
  cv::kmeans(subset, o.branching, labels,
             cv::TermCriteria(cv::TermCriteria::MAX_ITER | cv::TermCriteria::EPS, o.kmeansIterations, 1e-4), 1,
             cv::KMEANS_PP_CENTERS, centres);
  rng = cv::theRNG();
  std::vector<std::vector<int>> children(static_cast<size_t>(o.branching));
  for (int i = 0; i < n; ++i) children[static_cast<size_t>(labels.at<int>(i))].push_back(rows[static_cast<size_t>(i)]);
  for (const std::vector<int>& child : children)
    if (!child.empty()) split(data, child, level + 1, o, rng, leaves);
}

}  // namespace

Vocabulary::Vocabulary(cv::Mat words) : words_(std::move(words)) {
  if (words_.type() != CV_32F || words_.rows < 1 || words_.rows > 65535)
    throw std::invalid_argument("Vocabulary: expected 1..65535 CV_32F word rows, got " + std::to_string(words_.rows) +
                                " rows of " + cv::typeToString(words_.type()));
}

Vocabulary Vocabulary::train(const cv::Mat& descriptors, const VocabularyOptions& o) {
  if (descriptors.empty() || descriptors.type() != CV_32F)
    throw std::invalid_argument("Vocabulary::train: expected N x D CV_32F descriptors, N >= 1");
  if (o.branching < 2 || o.depth < 1 || o.maxTrainingDescriptors < 1 || o.kmeansIterations < 1)
    throw std::invalid_argument("Vocabulary::train: need branching >= 2, depth >= 1, maxTrainingDescriptors >= 1, "
                                "kmeansIterations >= 1");
  if (std::pow(static_cast<double>(o.branching), o.depth) > 65535)
    throw std::invalid_argument("Vocabulary::train: branching^depth must be at most 65535 words");
  cv::RNG rng(o.seed);
  std::vector<int> rows(static_cast<size_t>(descriptors.rows));
  std::iota(rows.begin(), rows.end(), 0);
  if (descriptors.rows > o.maxTrainingDescriptors) {
    cv::randShuffle(rows, 1.0, &rng);
    rows.resize(static_cast<size_t>(o.maxTrainingDescriptors));
    std::sort(rows.begin(), rows.end());
  }
  const cv::RNG saved = cv::theRNG();
  std::vector<cv::Mat> leaves;
  split(descriptors, rows, 0, o, rng, leaves);
  cv::theRNG() = saved;
  cv::Mat words;
  cv::vconcat(leaves, words);
  return Vocabulary(words);
}

std::vector<int> Vocabulary::quantize(const cv::Mat& descriptors) const {
  if (descriptors.empty()) return {};
  if (descriptors.type() != CV_32F || descriptors.cols != words_.cols)
    throw std::invalid_argument("Vocabulary::quantize: expected CV_32F descriptors of " + std::to_string(words_.cols) +
                                " values, got " + std::to_string(descriptors.cols) + " of " +
                                cv::typeToString(descriptors.type()));
  cv::BFMatcher matcher(cv::NORM_L2);
  std::vector<cv::DMatch> matches;
  matcher.match(descriptors, words_, matches);
  std::vector<int> ids(static_cast<size_t>(descriptors.rows), 0);
  for (const cv::DMatch& m : matches) ids[static_cast<size_t>(m.queryIdx)] = m.trainIdx;
  return ids;
}

InvertedIndex::InvertedIndex(int words) : words_(words), postings_(static_cast<size_t>(std::max(0, words))) {}

void InvertedIndex::add(int id, const std::vector<int>& wordIds) {
  if (id < 0) throw std::invalid_argument("InvertedIndex::add: negative document id " + std::to_string(id));
  for (int w : wordIds)
    if (w < 0 || w >= words_)
      throw std::invalid_argument("InvertedIndex::add: word " + std::to_string(w) + " is outside [0, " +
                                  std::to_string(words_) + ")");
  remove(id);
  std::unordered_map<int, int>& counts = documentWords_[id];
  for (int w : wordIds) ++counts[w];
  for (const auto& [w, c] : counts) postings_[static_cast<size_t>(w)].emplace_back(id, c);
  dirty_ = true;
}

void InvertedIndex::remove(int id) {
  const auto it = documentWords_.find(id);
  if (it == documentWords_.end()) return;
  for (const auto& [w, c] : it->second) {
    auto& list = postings_[static_cast<size_t>(w)];
    list.erase(std::remove_if(list.begin(), list.end(), [&](const auto& p) { return p.first == id; }), list.end());
  }
  documentWords_.erase(it);
  dirty_ = true;
}

void InvertedIndex::refreshWeights() const {
  if (!dirty_) return;
  const double n = static_cast<double>(documentWords_.size());
  idf_.assign(static_cast<size_t>(words_), 0.0);
  for (int w = 0; w < words_; ++w) {
    const size_t containing = postings_[static_cast<size_t>(w)].size();
    idf_[static_cast<size_t>(w)] = containing > 0 ? std::log(n / static_cast<double>(containing)) : 0.0;
  }
  norm_.clear();
  for (const auto& [id, counts] : documentWords_) {
    double sum = 0;
    for (const auto& [w, c] : counts) sum += c * idf_[static_cast<size_t>(w)];
    norm_[id] = sum;
  }
  dirty_ = false;
}

std::vector<std::pair<int, double>> InvertedIndex::query(const std::vector<int>& wordIds, int top,
                                                         const std::vector<int>& excluded) const {
  refreshWeights();
  std::unordered_map<int, int> counts;
  for (int w : wordIds)
    if (w >= 0 && w < words_) ++counts[w];
  double qNorm = 0;
  for (const auto& [w, c] : counts) qNorm += c * idf_[static_cast<size_t>(w)];
  std::unordered_map<int, double> score;
  if (qNorm > 0)
    for (const auto& [w, c] : counts) {
      const double idf = idf_[static_cast<size_t>(w)];
      if (idf <= 0) continue;  // a word in every document says nothing
      const double q = c * idf / qNorm;
      for (const auto& [id, dc] : postings_[static_cast<size_t>(w)]) {
        const double norm = norm_.at(id);
        if (norm > 0) score[id] += std::min(q, dc * idf / norm);
      }
    }
  std::vector<std::pair<int, double>> ranked;
  for (const auto& [id, s] : score)
    if (std::find(excluded.begin(), excluded.end(), id) == excluded.end()) ranked.emplace_back(id, s);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (top >= 0 && static_cast<int>(ranked.size()) > top) ranked.resize(static_cast<size_t>(top));
  return ranked;
}

}  // namespace nft::detection
