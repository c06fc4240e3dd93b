#pragma once
// Motion model of the tracking lane: predicts the next frame's homography from the last ones,
// and how far that prediction may miss (which sets the tracking lane's search range).
// Wagner et al., TVCG 2010, section 5.1, use a constant-velocity model on the pose; PTAM (Klein
// and Murray, ISMAR 2007, section 5.2) a decaying-velocity one. A hand-held camera shaking at a
// few hertz changes its velocity by tens of pixels per frame (the POT presets of
// apps/replay/synthetic_presets.h: up to 38 px off with constant velocity, 21 px with constant
// acceleration, measured on their exact ground truth), so the model also offers constant
// acceleration and reports its recent misses.

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
  /// The frame-to-frame motion changes as it last changed: with Mₖ = Hₖ·Hₖ₋₁⁻¹ the prediction is
  /// (M₂·M₁⁻¹·M₂)·H₂ (for translations: position + velocity + acceleration); constant velocity
  /// until three frames are known.
  ConstantAcceleration,
};

/// "constant_velocity", "none" or "constant_acceleration".
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
  std::optional<cv::Matx33d> last() const { return history_[0]; }
  /// The homography recorded before the last one; std::nullopt with fewer than two frames since
  /// the last reset(). last() against it is the last frame-to-frame motion.
  std::optional<cv::Matx33d> previous() const { return history_[1]; }
  /// How far this model's prediction of the last recorded frame missed it, at the worst of the
  /// target's four corners (frame pixels; `targetSize` the target image's size): what the
  /// prediction for the next frame may miss by when the motion changes as it just did. 0 until
  /// the model has predicted a recorded frame from enough history (kind None: two frames;
  /// constant velocity: three; constant acceleration: four).
  double lastMissPx(cv::Size targetSize) const;
  MotionModelKind kind() const { return kind_; }

 private:
  /// The prediction from history_[first], history_[first + 1], ... (as predict() from there).
  std::optional<cv::Matx33d> predictFrom(size_t first) const;

  MotionModelKind kind_;
  std::optional<cv::Matx33d> history_[4];  // [0] the last homography, [1] the one before, ...
};

}  // namespace nft::tracker
