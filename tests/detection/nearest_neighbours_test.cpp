// twoNearest (detection/nearest_neighbours.h) against an exhaustive search written out here in
// double precision, Σ (q − t)² per pair: block remainders (counts that are not multiples of the
// 4 × 16 register block), SURF-64 and SURF-36, rows that are not unit, Laplacian signs, zero
// rows, single and ineligible targets, rows that are not contiguous, and bad input.

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include "detection/nearest_neighbours.h"
#include "support/random_descriptors.h"

namespace nft::detection {
namespace {

using testing::noisyCopies;

cv::Mat randomRows(int rows, int cols, unsigned seed, bool unit = true) {
  return testing::randomDescriptors(rows, cols, seed, unit);
}

struct Reference {
  int target = -1;
  double first = std::numeric_limits<double>::infinity();
  double second = std::numeric_limits<double>::infinity();
};

Reference exhaustive(const cv::Mat& queries, int i, const cv::Mat& targets, const LaplacianSigns& querySigns,
                     const LaplacianSigns& targetSigns) {
  Reference r;
  for (int j = 0; j < targets.rows; ++j) {
    if (!querySigns.empty() && !targetSigns.empty() &&
        querySigns[static_cast<size_t>(i)] * targetSigns[static_cast<size_t>(j)] < 0)
      continue;
    double sum = 0;
    for (int d = 0; d < queries.cols; ++d) {
      const double e = static_cast<double>(queries.at<float>(i, d)) - targets.at<float>(j, d);
      sum += e * e;
    }
    const double distance = std::sqrt(sum);
    if (distance < r.first) {
      r.second = r.first;
      r.first = distance;
      r.target = j;
    } else if (distance < r.second) {
      r.second = distance;
    }
  }
  return r;
}

// Every query's result equals the exhaustive search's: the same nearest target (or, within
// `tolerance`, an equally near one) and both distances within `tolerance`.
void expectExhaustive(const cv::Mat& queries, const cv::Mat& targets, double tolerance,
                      const LaplacianSigns& querySigns = {}, const LaplacianSigns& targetSigns = {}) {
  const std::vector<Match> found = twoNearest(queries, DescriptorTable(targets), querySigns, targetSigns);
  ASSERT_EQ(found.size(), static_cast<size_t>(queries.rows));
  int sameTarget = 0;
  for (int i = 0; i < queries.rows; ++i) {
    SCOPED_TRACE("query " + std::to_string(i));
    const Match& m = found[static_cast<size_t>(i)];
    const Reference r = exhaustive(queries, i, targets, querySigns, targetSigns);
    EXPECT_EQ(m.query, i);
    if (r.target < 0) {
      EXPECT_EQ(m.target, -1);
      EXPECT_EQ(m.distance, kNoDistance);
      continue;
    }
    ASSERT_GE(m.target, 0);
    if (m.target == r.target) ++sameTarget;
    else EXPECT_NEAR(r.second, r.first, 2 * tolerance) << "a different target that is not a tie: " << m.target;
    EXPECT_NEAR(m.distance, r.first, tolerance);
    if (std::isinf(r.second)) EXPECT_EQ(m.secondDistance, kNoDistance);
    else EXPECT_NEAR(m.secondDistance, r.second, tolerance);
  }
  EXPECT_GE(sameTarget, queries.rows * 99 / 100);
}

TEST(TwoNearestTest, EqualsTheExhaustiveSearchAtBlockRemainders) {
  const cv::Mat targets = randomRows(1003, 64, 1);  // 1003 = 62 blocks of 16 + 11
  expectExhaustive(noisyCopies(targets, 517, 0.05, 2), targets, 1e-4);  // 517 = 129 blocks of 4 + 1
  expectExhaustive(randomRows(6, 64, 3), targets, 1e-4);                // far queries: close seconds
  const cv::Mat few = randomRows(5, 64, 4);                              // less than one block
  expectExhaustive(noisyCopies(few, 3, 0.1, 5), few, 1e-4);
}

TEST(TwoNearestTest, EqualsTheExhaustiveSearchForSurf36AndRowsThatAreNotUnit) {
  const cv::Mat targets = randomRows(300, 36, 6);
  expectExhaustive(noisyCopies(targets, 101, 0.05, 7), targets, 1e-4);
  const cv::Mat scaled = randomRows(200, 64, 8, false);  // norms about 8
  expectExhaustive(randomRows(33, 64, 9, false), scaled, 1e-3);
}

TEST(TwoNearestTest, NeverPairsDifferentLaplacianSigns) {
  const cv::Mat targets = randomRows(500, 64, 10);
  const cv::Mat queries = noisyCopies(targets, 400, 0.05, 11);
  cv::RNG rng(12);
  LaplacianSigns targetSigns(500), querySigns(400);
  for (auto& s : targetSigns) s = static_cast<std::int8_t>(rng.uniform(-1, 2));
  for (auto& s : querySigns) s = static_cast<std::int8_t>(rng.uniform(-1, 2));
  expectExhaustive(queries, targets, 1e-4, querySigns, targetSigns);
  // Signs on one side only prune nothing.
  expectExhaustive(queries, targets, 1e-4, querySigns, {});
}

TEST(TwoNearestTest, HandlesZeroRowsSingleTargetsAndNoEligibleTarget) {
  cv::Mat targets = randomRows(50, 64, 13);
  targets.row(7).setTo(0);  // a uniform patch's descriptor
  cv::Mat queries = noisyCopies(targets, 20, 0.1, 14);
  queries.row(3).setTo(0);
  expectExhaustive(queries, targets, 1e-4);

  const cv::Mat one = randomRows(1, 64, 15);
  const std::vector<Match> m = twoNearest(noisyCopies(one, 3, 0.1, 16), DescriptorTable(one));
  ASSERT_EQ(m.size(), 3u);
  for (const Match& x : m) {
    EXPECT_EQ(x.target, 0);
    EXPECT_EQ(x.secondDistance, kNoDistance);
  }
  // The only target has the other sign: no match at all.
  const std::vector<Match> none = twoNearest(one, DescriptorTable(one), LaplacianSigns{1}, LaplacianSigns{-1});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].target, -1);
  EXPECT_EQ(none[0].distance, kNoDistance);
}

TEST(TwoNearestTest, ReadsRowsThatAreNotContiguous) {
  const cv::Mat wide = randomRows(120, 80, 17);
  const cv::Mat targets = wide(cv::Rect(8, 0, 64, 120));  // a column range: rows 80 floats apart
  ASSERT_FALSE(targets.isContinuous());
  const cv::Mat queries = wide(cv::Rect(8, 30, 64, 41));
  const std::vector<Match> found = twoNearest(queries, DescriptorTable(targets));
  ASSERT_EQ(found.size(), 41u);
  for (int i = 0; i < 41; ++i) {  // each query is target 30 + i itself
    EXPECT_EQ(found[static_cast<size_t>(i)].target, 30 + i);
    EXPECT_NEAR(found[static_cast<size_t>(i)].distance, 0.0, 2e-3);
  }
}

TEST(TwoNearestTest, EmptyInputsGiveNoMatchesAndBadInputIsNamed) {
  const cv::Mat targets = randomRows(10, 64, 18);
  EXPECT_TRUE(twoNearest(cv::Mat(), DescriptorTable(targets)).empty());
  EXPECT_TRUE(twoNearest(targets, DescriptorTable()).empty());
  EXPECT_EQ(DescriptorTable(cv::Mat()).count(), 0);
  try {
    twoNearest(randomRows(3, 36, 19), DescriptorTable(targets));
    ADD_FAILURE() << "a length mismatch was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("query length 36"), std::string::npos) << e.what();
  }
  cv::Mat doubles;
  targets.convertTo(doubles, CV_64F);
  EXPECT_THROW(DescriptorTable{doubles}, std::invalid_argument);
  EXPECT_THROW(twoNearest(targets, DescriptorTable(targets), LaplacianSigns(3, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace nft::detection
