#pragma once
// Deterministic random descriptor sets for the matcher tests: rows of normal noise, unit L2
// norm like SURF's, and queries that are noisy copies of some of them, so that most queries
// have a clear nearest target.

#include <opencv2/core.hpp>

namespace nft::testing {

/// rows × cols CV_32F of N(0, 1) values from seed `seed`, each row normalised to unit L2 norm
/// unless `unit` is false.
inline cv::Mat randomDescriptors(int rows, int cols, unsigned seed, bool unit = true) {
  cv::Mat m(rows, cols, CV_32F);
  cv::RNG rng(seed);
  rng.fill(m, cv::RNG::NORMAL, 0.0, 1.0);
  if (unit)
    for (int i = 0; i < rows; ++i) cv::normalize(m.row(i), m.row(i));
  return m;
}

/// `rows` unit rows, each a random row of `targets` plus N(0, noise²) per value, renormalised.
inline cv::Mat noisyCopies(const cv::Mat& targets, int rows, double noise, unsigned seed) {
  cv::RNG rng(seed);
  cv::Mat q(rows, targets.cols, CV_32F);
  for (int i = 0; i < rows; ++i) {
    cv::Mat n(1, targets.cols, CV_32F);
    rng.fill(n, cv::RNG::NORMAL, 0.0, noise);
    cv::Mat row = targets.row(rng.uniform(0, targets.rows)) + n;
    cv::normalize(row, q.row(i));
  }
  return q;
}

}  // namespace nft::testing
