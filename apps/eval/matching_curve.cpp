// Threshold and ratio-test matching measures (see matching_curve.h).

#include "apps/eval/matching_curve.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <opencv2/core.hpp>

namespace nft::eval {

CorrespondenceMask::CorrespondenceMask(int r, int c, const std::vector<std::pair<int, int>>& pairs)
    : rows(r), cols(c), mask(static_cast<size_t>(r) * static_cast<size_t>(c), 0) {
  for (const auto& [i, j] : pairs) {
    if (i < 0 || j < 0 || i >= rows || j >= cols)
      throw std::out_of_range("correspondence (" + std::to_string(i) + ", " + std::to_string(j) + ") outside " +
                              std::to_string(rows) + " x " + std::to_string(cols));
    std::uint8_t& flag = mask[static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)];
    if (flag == 0) ++count;
    flag = 1;
  }
}

cv::Mat descriptorDistances(const cv::Mat& d1, const cv::Mat& dN, int normType) {
  if (d1.rows == 0 || dN.rows == 0) return cv::Mat(d1.rows, dN.rows, CV_32F);
  cv::Mat distances;
  // OpenCV computes Hamming distances only as integers.
  const bool hamming = normType == cv::NORM_HAMMING || normType == cv::NORM_HAMMING2;
  cv::batchDistance(d1, dN, distances, hamming ? CV_32S : CV_32F, cv::noArray(), normType);
  if (hamming) distances.convertTo(distances, CV_32F);
  return distances;
}

namespace {

void checkShape(const cv::Mat& distances, const CorrespondenceMask& truth) {
  if (distances.type() != CV_32F || distances.rows != truth.rows || distances.cols != truth.cols)
    throw std::invalid_argument("distances (" + std::to_string(distances.rows) + " x " +
                                std::to_string(distances.cols) + ", CV_32F expected) and correspondences (" +
                                std::to_string(truth.rows) + " x " + std::to_string(truth.cols) + ") differ");
}

}  // namespace

std::vector<CurvePoint> thresholdCurve(const cv::Mat& distances, const CorrespondenceMask& truth, double maxThreshold,
                                       int steps) {
  if (steps < 1) throw std::invalid_argument("threshold curve: steps must be >= 1 (got " + std::to_string(steps) + ")");
  if (!(maxThreshold > 0))
    throw std::invalid_argument("threshold curve: the largest threshold must be > 0 (got " +
                                std::to_string(maxThreshold) + ")");
  checkShape(distances, truth);
  // Histogram: a pair of distance d matches from the first threshold t_k > d on, i.e.
  // k = floor(d·steps/max) + 1; a cumulative sum then gives every threshold at once.
  std::vector<long> all(static_cast<size_t>(steps) + 1, 0), good(static_cast<size_t>(steps) + 1, 0);
  const double perUnit = steps / maxThreshold;
  for (int i = 0; i < distances.rows; ++i) {
    const float* row = distances.ptr<float>(i);
    for (int j = 0; j < distances.cols; ++j) {
      const double k = std::floor(row[j] * perUnit) + 1.0;
      if (!(k <= steps)) continue;  // beyond the largest threshold (or NaN)
      const size_t slot = static_cast<size_t>(std::max(1.0, k));
      ++all[slot];
      if (truth.at(i, j)) ++good[slot];
    }
  }
  std::vector<CurvePoint> curve(static_cast<size_t>(steps));
  long matches = 0, correct = 0;
  for (int k = 1; k <= steps; ++k) {
    matches += all[static_cast<size_t>(k)];
    correct += good[static_cast<size_t>(k)];
    CurvePoint& p = curve[static_cast<size_t>(k) - 1];
    p.threshold = maxThreshold * k / steps;
    p.matches = matches;
    p.correct = correct;
    p.recall = truth.count > 0 ? static_cast<double>(correct) / static_cast<double>(truth.count) : 0.0;
    p.oneMinusPrecision = matches > 0 ? static_cast<double>(matches - correct) / static_cast<double>(matches) : 0.0;
  }
  return curve;
}

double recallAtOneMinusPrecision(const std::vector<CurvePoint>& curve, double level) {
  if (curve.empty()) return 0.0;
  // Last point at or below the level; the one after it (if any) is above.
  int last = -1;  // -1: the origin (no matches)
  for (int k = static_cast<int>(curve.size()) - 1; k >= 0; --k) {
    if (curve[static_cast<size_t>(k)].oneMinusPrecision <= level) {
      last = k;
      break;
    }
  }
  if (last == static_cast<int>(curve.size()) - 1) return curve.back().recall;
  const double x0 = last < 0 ? 0.0 : curve[static_cast<size_t>(last)].oneMinusPrecision;
  const double y0 = last < 0 ? 0.0 : curve[static_cast<size_t>(last)].recall;
  const CurvePoint& next = curve[static_cast<size_t>(last + 1)];
  if (next.oneMinusPrecision <= x0) return y0;  // cannot happen (next is above level >= x0); be safe
  return y0 + (next.recall - y0) * (level - x0) / (next.oneMinusPrecision - x0);
}

RatioTestResult ratioTestMatching(const cv::Mat& distances, const CorrespondenceMask& truth, double ratio) {
  if (!(ratio > 0 && ratio <= 1))
    throw std::invalid_argument("ratio test: ratio must be in (0, 1] (got " + std::to_string(ratio) + ")");
  checkShape(distances, truth);
  RatioTestResult r;
  if (distances.cols >= 2) {
    for (int i = 0; i < distances.rows; ++i) {
      const float* row = distances.ptr<float>(i);
      float best = std::numeric_limits<float>::infinity(), second = best;
      int bestJ = -1;
      for (int j = 0; j < distances.cols; ++j) {
        if (row[j] < best) {
          second = best;
          best = row[j];
          bestJ = j;
        } else if (row[j] < second) {
          second = row[j];
        }
      }
      if (bestJ >= 0 && best < ratio * second) {
        ++r.matches;
        if (truth.at(i, bestJ)) ++r.correct;
      }
    }
  }
  r.precision = r.matches > 0 ? static_cast<double>(r.correct) / static_cast<double>(r.matches) : 0.0;
  r.recall = truth.count > 0 ? static_cast<double>(r.correct) / static_cast<double>(truth.count) : 0.0;
  return r;
}

std::vector<CurvePoint> meanCurve(const std::vector<std::vector<CurvePoint>>& curves) {
  if (curves.empty()) return {};
  std::vector<CurvePoint> mean(curves.front().size());
  for (const auto& c : curves) {
    if (c.size() != mean.size())
      throw std::invalid_argument("mean curve: curves of " + std::to_string(mean.size()) + " and " +
                                  std::to_string(c.size()) + " points");
    for (size_t k = 0; k < c.size(); ++k) {
      mean[k].threshold = c[k].threshold;
      mean[k].matches += c[k].matches;
      mean[k].correct += c[k].correct;
      mean[k].recall += c[k].recall / static_cast<double>(curves.size());
      mean[k].oneMinusPrecision += c[k].oneMinusPrecision / static_cast<double>(curves.size());
    }
  }
  return mean;
}

}  // namespace nft::eval
