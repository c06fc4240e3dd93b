// The vocabulary of targets added one by one (session/target_words.h), trained in process()
// without the detection worker and on the worker with it: only the frontal keypoints' descriptors
// train it, the same targets give the same words, and bad counts are refused by name.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "session/target_words.h"

namespace {

using nft::session::trainTargetsVocabulary;

/// n random unit rows of 64 CV_32F (SURF-64-like), from `seed`.
cv::Mat randomDescriptors(int n, int seed) {
  cv::Mat d(n, 64, CV_32F);
  cv::RNG rng(static_cast<uint64_t>(seed));
  rng.fill(d, cv::RNG::UNIFORM, -1.0, 1.0);
  for (int r = 0; r < n; ++r) cv::normalize(d.row(r), d.row(r));
  return d;
}

bool sameWords(const nft::detection::Vocabulary& a, const nft::detection::Vocabulary& b) {
  return a.words().size() == b.words().size() && cv::norm(a.words(), b.words(), cv::NORM_INF) == 0.0;
}

TEST(TargetWords, OnlyTheFrontalKeypointsTrainTheVocabularyAndTheSameTargetsGiveTheSameWords) {
  const cv::Mat a = randomDescriptors(600, 1), b = randomDescriptors(500, 2);
  const nft::detection::Vocabulary v = trainTargetsVocabulary({a, b}, {400, 300});
  EXPECT_GT(v.size(), 10) << "a depth-2 tree over 700 descriptors";
  EXPECT_TRUE(sameWords(v, trainTargetsVocabulary({a, b}, {400, 300}))) << "deterministic";

  cv::Mat otherTilted = b.clone();  // its tilted rows (past the 300 frontal ones) changed
  randomDescriptors(200, 3).copyTo(otherTilted.rowRange(300, 500));
  EXPECT_TRUE(sameWords(v, trainTargetsVocabulary({a, otherTilted}, {400, 300}))) << "tilted rows train nothing";

  cv::Mat otherFrontal = b.clone();  // a frontal row changed
  randomDescriptors(100, 4).copyTo(otherFrontal.rowRange(0, 100));
  EXPECT_FALSE(sameWords(v, trainTargetsVocabulary({a, otherFrontal}, {400, 300}))) << "frontal rows train it";
}

TEST(TargetWords, MismatchedOrOutOfRangeCountsAreRefusedByName) {
  const cv::Mat a = randomDescriptors(50, 1);
  try {
    trainTargetsVocabulary({a, a}, {50});
    ADD_FAILURE() << "two matrices, one count: not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2 descriptor matrices but 1 frontal counts"), std::string::npos) << e.what();
  }
  try {
    trainTargetsVocabulary({a}, {51});
    ADD_FAILURE() << "51 frontal of 50: not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("target 0 has 50 descriptors, frontal count 51"), std::string::npos) << e.what();
  }
}

}  // namespace
