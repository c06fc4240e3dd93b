// The residual product quantiser of the target database (detection/residual_quantizer.h) on real
// SURF-64 descriptors of ../shared/data/oxford images.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>

#include "detection/residual_quantizer.h"
#include "detection/surf_cpu.h"
#include "detection/target_trainer.h"
#include "detection/vocabulary.h"
#include "support/test_data.h"

namespace {

using nft::detection::ResidualQuantizer;

cv::Mat descriptorsOf(const std::string& image) {
  nft::detection::TargetTrainerOptions o;
  o.workingSize = 400;
  o.viewTiltDeg = 0;
  nft::detection::SurfCpu surf;
  return nft::detection::trainTarget(nft::testing::loadGray(image), o,
                                     [&](const cv::Mat& gray, std::vector<nft::detection::Keypoint>& k) {
                                       return surf.describe(gray, k);
                                     })
      .descriptors;
}

TEST(ResidualQuantizer, CodesKeepWhatTheWordLosesAndTheNearestNeighbours) {
  NFT_REQUIRE_DATA("oxford/graf/img2.png");
  const cv::Mat a = descriptorsOf("oxford/graf/img1.png"), b = descriptorsOf("oxford/graf/img2.png");
  ASSERT_GT(a.rows, 500);
  const nft::detection::Vocabulary vocabulary = nft::detection::Vocabulary::train(a);
  const std::vector<int> words = vocabulary.quantize(a);
  const ResidualQuantizer q = ResidualQuantizer::train(a, words, vocabulary.words());
  EXPECT_EQ(q.subvectors(), 8);
  EXPECT_EQ(q.centroids(), 256);
  const cv::Mat codes = q.encode(a, words);
  ASSERT_EQ(codes.rows, a.rows);
  ASSERT_EQ(codes.cols, 8);
  const cv::Mat back = q.decode(codes, words);
  double error = 0, wordError = 0;
  for (int r = 0; r < a.rows; ++r) {
    EXPECT_NEAR(cv::norm(back.row(r)), 1.0, 0.2) << "near a unit row, as SURF's";
    error += cv::norm(a.row(r), back.row(r));
    wordError += cv::norm(a.row(r), vocabulary.words().row(words[static_cast<size_t>(r)]));
  }
  EXPECT_LT(error, 0.5 * wordError) << "mean error " << error / a.rows << ", the word's " << wordError / a.rows;
  // Decoded rows encode to the same codes: a database saved again writes the same bytes.
  EXPECT_EQ(cv::norm(q.encode(back, words), codes, cv::NORM_INF), 0.0);
  // What the matcher needs: another view's descriptors find mostly the same nearest neighbour
  // among the decoded rows as among the originals.
  cv::Mat distances, exact, approximate;
  cv::batchDistance(b, a, distances, CV_32F, exact, cv::NORM_L2SQR, 1);
  cv::batchDistance(b, back, distances, CV_32F, approximate, cv::NORM_L2SQR, 1);
  int same = 0;
  for (int r = 0; r < b.rows; ++r) same += exact.at<int>(r) == approximate.at<int>(r);
  EXPECT_GT(same, b.rows / 2) << same << " of " << b.rows << " nearest neighbours kept";
  // Seeded: the same codebooks every time.
  const ResidualQuantizer again = ResidualQuantizer::train(a, words, vocabulary.words());
  EXPECT_EQ(cv::norm(again.codebooks(), q.codebooks(), cv::NORM_INF), 0.0);
}

TEST(ResidualQuantizer, BadShapesIdsAndCodesAreErrors) {
  const cv::Mat words = cv::Mat::eye(4, 64, CV_32F);
  const ResidualQuantizer q(words, cv::Mat::zeros(8 * 2, 8, CV_32F), 8);
  EXPECT_EQ(q.centroids(), 2);
  EXPECT_THROW(ResidualQuantizer(words, cv::Mat::zeros(8 * 2, 4, CV_32F), 8), std::invalid_argument);
  EXPECT_THROW(ResidualQuantizer(words, cv::Mat::zeros(8 * 300, 8, CV_32F), 8), std::invalid_argument);
  EXPECT_THROW(q.encode(cv::Mat::zeros(2, 64, CV_32F), {0, 4}), std::invalid_argument);  // word 4 of 4
  EXPECT_THROW(q.encode(cv::Mat::zeros(2, 64, CV_32F), {0}), std::invalid_argument);
  EXPECT_THROW(q.encode(cv::Mat::zeros(1, 36, CV_32F), {0}), std::invalid_argument);
  EXPECT_THROW(q.decode(cv::Mat(1, 8, CV_8UC1, cv::Scalar(2)), {0}), std::invalid_argument);  // code 2 of 2
  EXPECT_EQ(ResidualQuantizer::subvectorsFor(64), 8);
  EXPECT_EQ(ResidualQuantizer::subvectorsFor(36), 9);
  EXPECT_THROW(ResidualQuantizer::subvectorsFor(30), std::invalid_argument);
}

}  // namespace
