#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "detection/surf_descriptor.h"

namespace nft::detection {
namespace {

TEST(SurfDescriptor, LayoutConstants) {
  EXPECT_EQ(descriptorLength(DescriptorType::Surf64), 64);
  EXPECT_EQ(descriptorLength(DescriptorType::Surf36), 36);
  // Bins = 4 sums per subregion, subregions of 5x5 samples.
  for (DescriptorType t : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    EXPECT_EQ(subregionsPerSide(t) * kSamplesPerSubregion, gridSize(t));
    EXPECT_EQ(4 * subregionsPerSide(t) * subregionsPerSide(t), descriptorLength(t));
  }
  EXPECT_DOUBLE_EQ(gaussianSigma(DescriptorType::Surf64), 3.3);
}

std::string errorOf(const std::vector<Keypoint>& kps, cv::Size size) {
  try {
    validateKeypoints(kps, size);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SurfDescriptor, ValidationNamesTheBadKeypoint) {
  const cv::Size size(100, 80);
  EXPECT_EQ(errorOf({{0.f, 0.f, 1.f}, {99.f, 79.f, 2.5f}}, size), "");  // corners are fine
  const std::string outside = errorOf({{10.f, 10.f, 1.f}, {100.5f, 3.f, 1.f}}, size);
  EXPECT_NE(outside.find("keypoint 1"), std::string::npos) << outside;
  EXPECT_NE(outside.find("x = 100.5"), std::string::npos) << outside;
  const std::string badScale = errorOf({{10.f, 10.f, 0.f}}, size);
  EXPECT_NE(badScale.find("keypoint 0: scale = 0"), std::string::npos) << badScale;
  EXPECT_NE(errorOf({{10.f, -1.f, 1.f}}, size).find("y = -1"), std::string::npos);
  EXPECT_NE(errorOf({{10.f, 10.f, std::numeric_limits<float>::quiet_NaN()}}, size), "");
  EXPECT_NE(errorOf({{10.f, 10.f, 1.f, std::numeric_limits<float>::infinity()}}, size).find("angle"),
            std::string::npos);
}

}  // namespace
}  // namespace nft::detection
