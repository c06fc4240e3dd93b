#pragma once
// Motion model of the tracking lane: predicts the next frame's homography from the last ones
// (Wagner et al., TVCG 2010, section 5.1 use a constant-velocity model on the pose).

#include <optional>
#include <string>

#include <opencv2/core.hpp>

namespace nft::tracker {

/// Which prediction the tracker uses.
enum class MotionModelKind {
  /// The last frame-to-frame motion is applied once more: with H₁ the previous and H₂ the last
  /// homography (target pixels → frame pixels), the prediction is (H₂·H₁⁻¹)·H₂.
  ConstantVelocity,
  /// The last homography as it is (for slow motion, or when the velocity is unreliable).
  None,
};

/// "constant_velocity" or "none".
std::string toString(MotionModelKind kind);
/// The kind named by toString(). @throws std::invalid_argument naming the value and the allowed ones.
MotionModelKind motionModelKindFromString(const std::string& name);

/// Homography predictor fed with each frame's tracked homography. Copyable.
class MotionModel {
 public:
  explicit MotionModel(MotionModelKind kind = MotionModelKind::ConstantVelocity) : kind_(kind) {}

  /// Records the homography found in the current frame (target pixels → frame pixels). Frames
  /// must be consecutive: call reset() when one is skipped or the target was lost.
  void update(const cv::Matx33d& homography);
  /// Forgets the history (after a loss).
  void reset();
  /// The predicted homography of the next frame, normalised to H(2,2) = 1; std::nullopt before
  /// the first update(). With one recorded frame (or kind None): the last homography.
  std::optional<cv::Matx33d> predict() const;
  /// The last recorded homography; std::nullopt before the first update().
  std::optional<cv::Matx33d> last() const { return last_; }
  MotionModelKind kind() const { return kind_; }

 private:
  MotionModelKind kind_;
  std::optional<cv::Matx33d> last_, previous_;
};

}  // namespace nft::tracker
