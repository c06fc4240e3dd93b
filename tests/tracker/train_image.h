#pragma once
// A target model trained from an image as the Session trains an image target with the default
// configuration (detection/target_trainer.h defaults, SURF-ES descriptors). Needs the GL context
// current.

#include <vector>

#include <opencv2/imgproc.hpp>

#include "detection/surf_es.h"
#include "detection/target_trainer.h"
#include "gpu/capabilities.h"

namespace nft::testing {

/// The model of `image` (CV_8UC3 BGR or CV_8UC1). @throws what trainTarget and SurfEs throw.
inline detection::TargetModel trainImage(const gpu::Capabilities& caps, const cv::Mat& image) {
  cv::Mat gray = image;
  if (image.channels() == 3) cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
  const detection::TargetTrainerOptions options;
  detection::SurfEsOptions surf;
  surf.maxWidth = surf.maxHeight = options.workingSize;
  surf.maxKeypoints = options.detector.maxKeypoints;
  detection::SurfEs surfEs(caps, surf);
  return detection::trainTarget(gray, options, [&](const cv::Mat& g, std::vector<detection::Keypoint>& keypoints) {
    return surfEs.describe(g, keypoints);
  });
}

}  // namespace nft::testing
