#pragma once
// The target of a replay: a trained model file (.nftm, detection/target_model_io.h) or an image
// trained at start-up with SURF-ES (as nft_train does), checked for enough keypoints and patches
// for the pipeline to have a chance.

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "session/pipeline_options.h"
#include "detection/target_model.h"
#include "gpu/capabilities.h"
#include "nft/types.h"

namespace nft::session {

/// A target ready for the Tracker.
struct LoadedTarget {
  detection::TargetModel model;
  /// The file it came from (or a name given by the caller), for messages and the report.
  std::string source;
  /// Size of the image the user gave (before scaling to the working size), pixels.
  cv::Size originalSize;
  /// True when trained here, false when loaded from a model file.
  bool trained = false;
  /// Seconds spent loading or training.
  double seconds = 0;
};

/// Loads `path`: a model file when it ends in ".nftm", else an image trained with
/// options.training and SURF-ES (options.trainingStorage, options.trainingPrecisionBits).
/// Needs the GL context current. Then checkTarget().
/// @throws std::runtime_error naming the file when it does not exist, cannot be read (not an
///   image, corrupt model: loadTargetModel's message), or is unusable (checkTarget()).
LoadedTarget loadTarget(const std::string& path, const PipelineOptions& options, const gpu::Capabilities& caps);

/// A model from the bytes of a .nftm file (detection::decodeTargetModel), checked as loadTarget()
/// checks a model file; `source` names it in messages.
/// @throws std::runtime_error "target model <source>: ..." for bytes that are not a model, and as
///   checkTarget().
LoadedTarget loadTargetModel(const std::vector<unsigned char>& bytes, const std::string& source,
                             const PipelineOptions& options);

/// Trains `image` (CV_8UC1 or CV_8UC3) as loadTarget() does; `source` names it in messages.
/// @throws std::runtime_error naming `source` when training fails or the result is unusable.
LoadedTarget trainTargetImage(const cv::Mat& image, const std::string& source, const PipelineOptions& options,
                              const gpu::Capabilities& caps);

/// The public geometry (nft::TargetGeometry) as the model's, and back; field for field.
detection::TargetGeometry detectionGeometry(const TargetGeometry& geometry);
TargetGeometry publicGeometry(const detection::TargetGeometry& geometry);

/// Refuses a target the pipeline cannot find or follow: fewer keypoints than the detection lane's inlier floor (ransac.min_inliers), or, with tracking on,
/// fewer tracking patches than the tracking lane's (tracking.min_inliers).
/// @throws std::runtime_error "target '<source>' has only N keypoints (the detection lane needs
///   at least M inliers): too plain or too small an image? ..." and the like for patches.
void checkTarget(const LoadedTarget& target, const PipelineOptions& options);

/// The public quality report (nft::TargetQuality) of a trained or loaded model: its keypoint
/// count and detection::TargetQuality's coverage, distinctness, contrast, stars and warnings.
TargetQuality qualityOf(const detection::TargetModel& model);

}  // namespace nft::session
