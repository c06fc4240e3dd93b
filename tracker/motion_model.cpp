#include "tracker/motion_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nft::tracker {
namespace {

std::optional<cv::Matx33d> normalised(const cv::Matx33d& H) {
  if (!(std::abs(H(2, 2)) > 1e-12)) return std::nullopt;
  cv::Matx33d out = H * (1.0 / H(2, 2));
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(out.val[i])) return std::nullopt;
  return out;
}

cv::Point2d apply(const cv::Matx33d& H, double x, double y) {
  const double w = H(2, 0) * x + H(2, 1) * y + H(2, 2);
  return {(H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w, (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w};
}

}  // namespace

std::string toString(MotionModelKind kind) {
  switch (kind) {
    case MotionModelKind::ConstantVelocity: return "constant_velocity";
    case MotionModelKind::None: return "none";
    case MotionModelKind::ConstantAcceleration: return "constant_acceleration";
  }
  return "?";
}

MotionModelKind motionModelKindFromString(const std::string& name) {
  if (name == "constant_velocity") return MotionModelKind::ConstantVelocity;
  if (name == "none") return MotionModelKind::None;
  if (name == "constant_acceleration") return MotionModelKind::ConstantAcceleration;
  throw std::invalid_argument("unknown motion model '" + name +
                              "' (allowed: constant_velocity, none, constant_acceleration)");
}

void MotionModel::update(const cv::Matx33d& homography) {
  for (size_t i = 3; i > 0; --i) history_[i] = history_[i - 1];
  history_[0] = homography;
}

void MotionModel::reset() {
  for (auto& h : history_) h.reset();
}

std::optional<cv::Matx33d> MotionModel::predict() const { return predictFrom(0); }

std::optional<cv::Matx33d> MotionModel::predictFrom(size_t first) const {
  if (first >= 4 || !history_[first]) return std::nullopt;
  const cv::Matx33d& H2 = *history_[first];
  if (kind_ == MotionModelKind::None || first + 1 >= 4 || !history_[first + 1]) return H2;
  // The frame-to-frame motion M₂ = H₂·H₁⁻¹ maps the previous frame's pixels to the last frame's;
  // applying it again to the last homography extrapolates at constant velocity.
  const cv::Matx33d M2 = H2 * history_[first + 1]->inv();
  cv::Matx33d M = M2;
  if (kind_ == MotionModelKind::ConstantAcceleration && first + 2 < 4 && history_[first + 2]) {
    const cv::Matx33d M1 = *history_[first + 1] * history_[first + 2]->inv();
    M = M2 * M1.inv() * M2;  // the motion changes again by M₁⁻¹·M₂
  }
  const std::optional<cv::Matx33d> predicted = normalised(M * H2);
  return predicted ? predicted : std::optional<cv::Matx33d>(H2);
}

double MotionModel::lastMissPx(cv::Size targetSize) const {
  const size_t needed = kind_ == MotionModelKind::None ? 2 : kind_ == MotionModelKind::ConstantVelocity ? 3 : 4;
  for (size_t i = 0; i < needed; ++i)
    if (!history_[i]) return 0;
  const std::optional<cv::Matx33d> predicted = predictFrom(1);
  if (!predicted) return 0;
  const double w = targetSize.width, h = targetSize.height;
  double miss = 0;
  for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(w, 0), cv::Point2d(w, h), cv::Point2d(0, h)})
    miss = std::max(miss, cv::norm(apply(*predicted, c.x, c.y) - apply(*history_[0], c.x, c.y)));
  return std::isfinite(miss) ? miss : 0;
}

}  // namespace nft::tracker
