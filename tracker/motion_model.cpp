#include "tracker/motion_model.h"

#include <cmath>
#include <stdexcept>

namespace nft::tracker {

std::string toString(MotionModelKind kind) {
  return kind == MotionModelKind::ConstantVelocity ? "constant_velocity" : "none";
}

MotionModelKind motionModelKindFromString(const std::string& name) {
  if (name == "constant_velocity") return MotionModelKind::ConstantVelocity;
  if (name == "none") return MotionModelKind::None;
  throw std::invalid_argument("unknown motion model '" + name + "' (allowed: constant_velocity, none)");
}

void MotionModel::update(const cv::Matx33d& homography) {
  previous_ = last_;
  last_ = homography;
}

void MotionModel::reset() {
  last_.reset();
  previous_.reset();
}

std::optional<cv::Matx33d> MotionModel::predict() const {
  if (!last_) return std::nullopt;
  if (kind_ == MotionModelKind::None || !previous_) return last_;
  // The frame-to-frame motion M = H₂·H₁⁻¹ maps the previous frame's pixels to the last frame's;
  // applying it again to the last homography extrapolates at constant velocity.
  cv::Matx33d predicted = (*last_) * previous_->inv() * (*last_);
  if (!(std::abs(predicted(2, 2)) > 1e-12)) return last_;
  predicted *= 1.0 / predicted(2, 2);
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(predicted.val[i])) return last_;
  return predicted;
}

}  // namespace nft::tracker
