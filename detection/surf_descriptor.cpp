#include "detection/surf_descriptor.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace nft::detection {

int descriptorLength(DescriptorType type) { return type == DescriptorType::Surf64 ? 64 : 36; }
int gridSize(DescriptorType type) { return type == DescriptorType::Surf64 ? 20 : 15; }
int subregionsPerSide(DescriptorType type) { return type == DescriptorType::Surf64 ? 4 : 3; }
double gaussianSigma(DescriptorType type) { return 0.165 * gridSize(type); }

void validateKeypoints(const std::vector<Keypoint>& keypoints, cv::Size imageSize) {
  const float maxScale = static_cast<float>(std::max(imageSize.width, imageSize.height));
  for (size_t i = 0; i < keypoints.size(); ++i) {
    const Keypoint& k = keypoints[i];
    auto fail = [&](const char* field, float value, const std::string& expected) {
      std::ostringstream msg;
      msg << "keypoint " << i << ": " << field << " = " << value << " (expected " << expected << ")";
      throw std::invalid_argument(msg.str());
    };
    if (!(k.x >= 0.0f && k.x <= static_cast<float>(imageSize.width - 1)))
      fail("x", k.x, "a pixel position in [0, " + std::to_string(imageSize.width - 1) + "]");
    if (!(k.y >= 0.0f && k.y <= static_cast<float>(imageSize.height - 1)))
      fail("y", k.y, "a pixel position in [0, " + std::to_string(imageSize.height - 1) + "]");
    if (!(k.scale > 0.0f && k.scale <= maxScale))
      fail("scale", k.scale, "a SURF scale s in (0, " + std::to_string(static_cast<int>(maxScale)) + "]");
    if (!std::isfinite(k.angle)) fail("angle", k.angle, "degrees, or a negative value for none");
  }
}

}  // namespace nft::detection
