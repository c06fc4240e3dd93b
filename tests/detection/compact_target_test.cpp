// The compact form of a target model (detection/compact_target.h): 8-bit descriptors within their
// stated bound, a fixed point when saved again, the image and everything else kept.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "detection/compact_target.h"
#include "detection/surf_cpu.h"
#include "detection/target_trainer.h"
#include "support/test_data.h"

namespace {

using nft::detection::dequantizeDescriptors;
using nft::detection::quantizeDescriptors;

nft::detection::TargetModel trainCpu(const cv::Mat& image) {
  nft::detection::TargetTrainerOptions o;
  o.workingSize = 320;
  nft::detection::SurfCpu surf;
  return nft::detection::trainTarget(image, o, [&](const cv::Mat& gray, std::vector<nft::detection::Keypoint>& k) {
    return surf.describe(gray, k);
  });
}

/// Checks every row of `back` against `rows` (unit rows) with the header's bound.
void expectWithinBound(const cv::Mat& rows, const cv::Mat& back) {
  ASSERT_EQ(back.size(), rows.size());
  ASSERT_EQ(back.type(), CV_32FC1);
  for (int r = 0; r < rows.rows; ++r) {
    double largest = 0;
    cv::minMaxLoc(cv::abs(rows.row(r)), nullptr, &largest);
    const double bound = std::sqrt(static_cast<double>(rows.cols)) * largest / 127.0;
    EXPECT_LE(cv::norm(rows.row(r), back.row(r)), bound + 1e-6) << "row " << r;
    EXPECT_NEAR(cv::norm(back.row(r)), 1.0, 1e-5) << "row " << r << " is renormalised";
  }
}

TEST(CompactTarget, EightBitDescriptorsAreWithinTheirBoundAndAFixedPoint) {
  // Random unit rows, some with one dominant component (largest magnitude near 1).
  std::mt19937 random(7);
  std::normal_distribution<float> normal;
  cv::Mat rows(200, 64, CV_32F);
  for (int r = 0; r < rows.rows; ++r) {
    for (int c = 0; c < rows.cols; ++c) rows.at<float>(r, c) = normal(random);
    if (r % 10 == 0) rows.at<float>(r, r % 64) = 40.0f;
    rows.row(r) /= cv::norm(rows.row(r));
  }
  const cv::Mat q = quantizeDescriptors(rows);
  ASSERT_EQ(q.type(), CV_8SC1);
  for (int r = 0; r < q.rows; ++r) {  // every row uses the whole range: its largest is ±127
    double low = 0, high = 0;
    cv::minMaxLoc(q.row(r), &low, &high);
    EXPECT_EQ(std::max(-low, high), 127.0) << "row " << r;
  }
  const cv::Mat back = dequantizeDescriptors(q);
  expectWithinBound(rows, back);
  // The sign and position of each component survive: the largest component is where it was.
  for (int r = 0; r < rows.rows; r += 10) EXPECT_GT(back.at<float>(r, r % 64), 0.9f);
  EXPECT_EQ(cv::norm(quantizeDescriptors(back), q, cv::NORM_INF), 0.0) << "quantizing again changes nothing";
  // A zero row stays zero; other types are refused.
  const cv::Mat zero = dequantizeDescriptors(quantizeDescriptors(cv::Mat::zeros(1, 36, CV_32F)));
  EXPECT_EQ(cv::countNonZero(zero), 0);
  EXPECT_THROW(quantizeDescriptors(cv::Mat(2, 64, CV_64F)), std::invalid_argument);
  EXPECT_THROW(dequantizeDescriptors(cv::Mat(2, 64, CV_8U)), std::invalid_argument);
  cv::Mat nan = rows.rowRange(0, 2).clone();
  nan.at<float>(1, 3) = std::nanf("");
  EXPECT_THROW(quantizeDescriptors(nan), std::invalid_argument);
}

TEST(CompactTarget, RecordKeepsTheModelAndItsImageAsAsked) {
  NFT_REQUIRE_DATA("oxford/boat/img1.png");
  const nft::detection::TargetModel model = trainCpu(nft::testing::loadGray("oxford/boat/img1.png"));
  ASSERT_GT(model.tiltedKeypoints, 0);
  ASSERT_FALSE(model.patches.empty());
  for (int quality : {0, 85}) {
    nft::detection::binary::Writer w;
    nft::detection::encodeCompactTarget(model, {quality}, w);
    // Far smaller than the .nftm form (4 bytes a descriptor value, the raw image): boat's 2000
    // keypoints' descriptors are 128 KB instead of 512, its 640 x 480 image 61 KB as JPEG 85.
    const size_t raw = model.image.total() + model.descriptors.total() * 4 + model.keypoints.size() * 24;
    EXPECT_LT(w.bytes().size() * 3, raw * (quality == 0 ? 2 : 1))
        << "quality " << quality << ": " << w.bytes().size() << " bytes of " << raw;
    nft::detection::binary::Reader r(w.bytes().data(), w.bytes().size(), "test");
    const nft::detection::TargetModel back = nft::detection::decodeCompactTarget(r, "boat");
    ASSERT_EQ(back.image.size(), model.image.size());
    ASSERT_EQ(back.image.type(), CV_8UC1);
    if (quality == 0) {
      EXPECT_EQ(cv::norm(back.image, model.image, cv::NORM_INF), 0.0) << "PNG is lossless";
    } else {
      const double meanError = cv::norm(back.image, model.image, cv::NORM_L1) / static_cast<double>(model.image.total());
      EXPECT_GT(meanError, 0.0) << "JPEG is lossy";
      EXPECT_LT(meanError, 5.0) << "JPEG 85 is within a few gray levels (boat's fine texture: 3.4)";
    }
    EXPECT_EQ(back.originalScale, model.originalScale);
    EXPECT_EQ(back.widthMetres, model.widthMetres);
    EXPECT_EQ(back.descriptorType, model.descriptorType);
    EXPECT_EQ(back.orientation, model.orientation);
    EXPECT_EQ(back.tiltedKeypoints, model.tiltedKeypoints);
    ASSERT_EQ(back.keypoints.size(), model.keypoints.size());
    for (size_t i = 0; i < model.keypoints.size(); ++i) {
      const auto& a = model.keypoints[i];
      const auto& b = back.keypoints[i];
      EXPECT_EQ(b.x, a.x);
      EXPECT_EQ(b.y, a.y);
      EXPECT_NEAR(b.scale, a.scale, a.scale / 1024.0f);  // IEEE half: 11 significant bits
      EXPECT_NEAR(b.angle, a.angle, std::abs(a.angle) / 1024.0f);
      EXPECT_NEAR(b.response, a.response, std::abs(a.response) / 1024.0f);
      EXPECT_EQ(b.octave, a.octave);
    }
    expectWithinBound(model.descriptors, back.descriptors);
    ASSERT_EQ(back.patches.size(), model.patches.size());
    for (size_t i = 0; i < model.patches.size(); ++i) {
      EXPECT_EQ(back.patches[i].position, model.patches[i].position);
      EXPECT_EQ(back.patches[i].level, model.patches[i].level);
      EXPECT_EQ(back.patches[i].score, model.patches[i].score);
    }
    EXPECT_EQ(back.quality.stars, model.quality.stars);
    EXPECT_EQ(back.quality.coverage, model.quality.coverage);
    EXPECT_EQ(back.quality.warnings, model.quality.warnings);
  }
  nft::detection::binary::Writer w;
  EXPECT_THROW(nft::detection::encodeCompactTarget(model, {101}, w), std::invalid_argument);
}

}  // namespace
