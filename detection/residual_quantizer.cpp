#include "detection/residual_quantizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace nft::detection {
namespace {

std::string shape(const cv::Mat& m) {
  return std::to_string(m.rows) + "x" + std::to_string(m.cols) + " " + cv::typeToString(m.type());
}

/// The residuals of `descriptors` from their words, rows `rows` of them.
cv::Mat residuals(const cv::Mat& descriptors, const std::vector<int>& wordIds, const cv::Mat& words,
                  const std::vector<int>& rows) {
  cv::Mat out(static_cast<int>(rows.size()), descriptors.cols, CV_32F);
  for (size_t i = 0; i < rows.size(); ++i) {
    const int r = rows[i];
    cv::subtract(descriptors.row(r), words.row(wordIds[static_cast<size_t>(r)]), out.row(static_cast<int>(i)));
  }
  return out;
}

}  // namespace

int ResidualQuantizer::subvectorsFor(int length) {
  if (length <= 0 || length % 4 != 0)
    throw std::invalid_argument("ResidualQuantizer: descriptor length " + std::to_string(length) +
                                " (expected a positive multiple of 4)");
  return length % 8 == 0 ? length / 8 : length / 4;
}

ResidualQuantizer::ResidualQuantizer(cv::Mat words, cv::Mat codebooks, int subvectors)
    : words_(std::move(words)), codebooks_(std::move(codebooks)), subvectors_(subvectors) {
  if (words_.type() != CV_32FC1 || words_.empty() || codebooks_.type() != CV_32FC1 || subvectors_ <= 0 ||
      words_.cols % subvectors_ != 0 || codebooks_.cols != words_.cols / subvectors_ ||
      codebooks_.rows % subvectors_ != 0 || codebooks_.rows / subvectors_ < 1 ||
      codebooks_.rows / subvectors_ > kMaxCentroids)
    throw std::invalid_argument("ResidualQuantizer: words " + shape(words_) + ", codebooks " + shape(codebooks_) + ", " +
                                std::to_string(subvectors_) + " sub-vectors (expected K x D and (M * C) x (D / M) "
                                "CV_32FC1, 1 <= C <= 256)");
  if (!cv::checkRange(codebooks_)) throw std::invalid_argument("ResidualQuantizer: a codebook value is not finite");
}

void ResidualQuantizer::checkIds(const std::vector<int>& wordIds, int rows, int words, const char* who) {
  if (static_cast<int>(wordIds.size()) != rows)
    throw std::invalid_argument(std::string("ResidualQuantizer::") + who + ": " + std::to_string(rows) + " rows but " +
                                std::to_string(wordIds.size()) + " word ids");
  for (int id : wordIds)
    if (id < 0 || id >= words)
      throw std::invalid_argument(std::string("ResidualQuantizer::") + who + ": word id " + std::to_string(id) +
                                  " (the vocabulary has " + std::to_string(words) + ")");
}

ResidualQuantizer ResidualQuantizer::train(const cv::Mat& descriptors, const std::vector<int>& wordIds,
                                           const cv::Mat& words, int sampleLimit) {
  if (descriptors.empty() || descriptors.type() != CV_32FC1 || words.type() != CV_32FC1 || words.cols != descriptors.cols ||
      sampleLimit < 1)
    throw std::invalid_argument("ResidualQuantizer::train: descriptors " + shape(descriptors) + ", words " + shape(words) +
                                ", sample limit " + std::to_string(sampleLimit));
  const int m = subvectorsFor(descriptors.cols), width = descriptors.cols / m;
  checkIds(wordIds, descriptors.rows, words.rows, "train");
  const int n = std::min(descriptors.rows, sampleLimit);
  std::vector<int> rows(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = static_cast<int>(static_cast<long long>(i) * descriptors.rows / n);
  const cv::Mat sample = residuals(descriptors, wordIds, words, rows);
  const int c = std::min(kMaxCentroids, n);
  cv::Mat codebooks(m * c, width, CV_32F);
  const cv::RNG saved = cv::theRNG();
  cv::theRNG() = cv::RNG(1);  // cv::kmeans seeds k-means++ from the thread's RNG: the same codebooks every time
  for (int s = 0; s < m; ++s) {
    const cv::Mat part = sample.colRange(s * width, (s + 1) * width).clone();
    cv::Mat labels, centres;
    cv::kmeans(part, c, labels, cv::TermCriteria(cv::TermCriteria::MAX_ITER | cv::TermCriteria::EPS, 12, 1e-5), 1,
               cv::KMEANS_PP_CENTERS, centres);
    centres.copyTo(codebooks.rowRange(s * c, (s + 1) * c));
  }
  cv::theRNG() = saved;
  return ResidualQuantizer(words, codebooks, m);
}

cv::Mat ResidualQuantizer::encode(const cv::Mat& descriptors, const std::vector<int>& wordIds) const {
  if (empty()) throw std::invalid_argument("ResidualQuantizer::encode: an empty quantiser");
  if (descriptors.type() != CV_32FC1 || descriptors.cols != length())
    throw std::invalid_argument("ResidualQuantizer::encode: descriptors " + shape(descriptors) + " (expected N x " +
                                std::to_string(length()) + " CV_32FC1)");
  checkIds(wordIds, descriptors.rows, words_.rows, "encode");
  cv::Mat codes(descriptors.rows, subvectors_, CV_8UC1);
  if (descriptors.empty()) return codes;
  std::vector<int> all(static_cast<size_t>(descriptors.rows));
  for (int i = 0; i < descriptors.rows; ++i) all[static_cast<size_t>(i)] = i;
  const cv::Mat residual = residuals(descriptors, wordIds, words_, all);
  const int width = length() / subvectors_, c = centroids();
  for (int s = 0; s < subvectors_; ++s) {
    cv::Mat distances, nearest;  // OpenCV's vectorised nearest-neighbour search (K = 1)
    cv::batchDistance(residual.colRange(s * width, (s + 1) * width), codebooks_.rowRange(s * c, (s + 1) * c), distances,
                      CV_32F, nearest, cv::NORM_L2SQR, 1);
    for (int r = 0; r < descriptors.rows; ++r) codes.at<std::uint8_t>(r, s) = static_cast<std::uint8_t>(nearest.at<int>(r));
  }
  return codes;
}

cv::Mat ResidualQuantizer::decode(const cv::Mat& codes, const std::vector<int>& wordIds) const {
  if (empty()) throw std::invalid_argument("ResidualQuantizer::decode: an empty quantiser");
  if (codes.type() != CV_8UC1 || codes.cols != subvectors_)
    throw std::invalid_argument("ResidualQuantizer::decode: codes " + shape(codes) + " (expected N x " +
                                std::to_string(subvectors_) + " CV_8UC1)");
  checkIds(wordIds, codes.rows, words_.rows, "decode");
  const int width = length() / subvectors_, c = centroids();
  cv::Mat out(codes.rows, length(), CV_32F);
  for (int r = 0; r < codes.rows; ++r) {
    const float* word = words_.ptr<float>(wordIds[static_cast<size_t>(r)]);
    float* x = out.ptr<float>(r);
    for (int s = 0; s < subvectors_; ++s) {
      const int code = codes.at<std::uint8_t>(r, s);
      if (code >= c)
        throw std::invalid_argument("ResidualQuantizer::decode: code " + std::to_string(code) + " of sub-vector " +
                                    std::to_string(s) + " (there are " + std::to_string(c) + " centroids)");
      const float* centre = codebooks_.ptr<float>(s * c + code);
      for (int j = 0; j < width; ++j) {
        const int k = s * width + j;
        x[k] = word[k] + centre[j];
      }
    }
  }
  return out;
}

}  // namespace nft::detection
