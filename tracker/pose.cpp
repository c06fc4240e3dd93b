#include "tracker/pose.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/calib3d.hpp>

#include "tracker/blur_aware_fit.h"

namespace nft::tracker {
namespace {

// The mean distance between `image` and `object` projected with `pose`, pixels.
template <typename P>
double meanDistance(const CameraCalibration& calibration, const Pose& pose, const std::vector<cv::Point3d>& object,
                    const std::vector<P>& image) {
  if (image.empty()) return 0.0;
  std::vector<cv::Point2d> projected;
  cv::projectPoints(object, pose.rvec, pose.tvec, cv::Mat(calibration.K), calibration.distortion, projected);
  double sum = 0.0;
  for (size_t i = 0; i < image.size(); ++i)
    sum += cv::norm(projected[i] - cv::Point2d(static_cast<double>(image[i].x), static_cast<double>(image[i].y)));
  return sum / static_cast<double>(image.size());
}

template <typename P>
Pose estimate(const CameraCalibration& calibration, const std::vector<P>& targetPixels,
              const std::vector<P>& framePixels, double metresPerPixel, bool refine) {
  if (targetPixels.size() != framePixels.size()) {
    throw std::invalid_argument("estimatePose: " + std::to_string(targetPixels.size()) + " target points but " +
                                std::to_string(framePixels.size()) + " frame points");
  }
  if (targetPixels.size() < 4) {
    throw std::invalid_argument("estimatePose: planar PnP needs at least 4 points, got " +
                                std::to_string(targetPixels.size()));
  }
  if (!std::isfinite(metresPerPixel) || metresPerPixel < 0.0) {
    throw std::invalid_argument("estimatePose: metresPerPixel must be finite and >= 0");
  }
  const double mpp = metresPerPixel > 0.0 ? metresPerPixel : 1.0;
  std::vector<cv::Point3d> object;
  std::vector<cv::Point2d> image;
  object.reserve(targetPixels.size());
  image.reserve(framePixels.size());
  for (size_t i = 0; i < targetPixels.size(); ++i) {
    const double tx = targetPixels[i].x, ty = targetPixels[i].y, fx = framePixels[i].x, fy = framePixels[i].y;
    if (!std::isfinite(tx) || !std::isfinite(ty) || !std::isfinite(fx) || !std::isfinite(fy)) {
      throw std::invalid_argument("estimatePose: point " + std::to_string(i) + " is not finite");
    }
    object.emplace_back(tx * mpp, ty * mpp, 0.0);
    image.emplace_back(fx, fy);
  }

  const cv::Mat K(calibration.K);
  cv::Mat rvec, tvec;
  bool found = false;
  try {
    found = cv::solvePnP(object, image, K, calibration.distortion, rvec, tvec, false, cv::SOLVEPNP_IPPE);
  } catch (const cv::Exception& e) {
    throw std::runtime_error("estimatePose: IPPE failed (" + e.err + ")");
  }
  if (!found || rvec.empty() || tvec.empty()) throw std::runtime_error("estimatePose: IPPE found no pose");
  if (refine) cv::solvePnPRefineLM(object, image, K, calibration.distortion, rvec, tvec);

  Pose pose;
  pose.rvec = cv::Vec3d(rvec.reshape(1, 3));
  pose.tvec = cv::Vec3d(tvec.reshape(1, 3));
  pose.reprojectionErrorPx = meanDistance(calibration, pose, object, image);
  pose.inliers = static_cast<int>(image.size());
  return pose;
}

}  // namespace

Pose estimatePose(const CameraCalibration& calibration, const std::vector<cv::Point2f>& targetPixels,
                  const std::vector<cv::Point2f>& framePixels, double metresPerPixel, bool refine) {
  return estimate(calibration, targetPixels, framePixels, metresPerPixel, refine);
}

Pose estimatePose(const CameraCalibration& calibration, const std::vector<cv::Point2d>& targetPixels,
                  const std::vector<cv::Point2d>& framePixels, double metresPerPixel, bool refine) {
  return estimate(calibration, targetPixels, framePixels, metresPerPixel, refine);
}

double meanReprojectionErrorPx(const CameraCalibration& calibration, const Pose& pose,
                               const std::vector<cv::Point2f>& targetPixels,
                               const std::vector<cv::Point2f>& framePixels, double metresPerPixel) {
  if (targetPixels.size() != framePixels.size()) {
    throw std::invalid_argument("meanReprojectionErrorPx: " + std::to_string(targetPixels.size()) +
                                " target points but " + std::to_string(framePixels.size()) + " frame points");
  }
  if (!std::isfinite(metresPerPixel) || metresPerPixel < 0.0) {
    throw std::invalid_argument("meanReprojectionErrorPx: metresPerPixel must be finite and >= 0");
  }
  const double mpp = metresPerPixel > 0.0 ? metresPerPixel : 1.0;
  std::vector<cv::Point3d> object;
  object.reserve(targetPixels.size());
  for (const cv::Point2f& p : targetPixels) object.emplace_back(p.x * mpp, p.y * mpp, 0.0);
  return meanDistance(calibration, pose, object, framePixels);
}

Pose poseFromHomography(const CameraCalibration& calibration, const cv::Matx33d& H, cv::Size targetSize,
                        double metresPerPixel, int gridSize, bool refine) {
  if (targetSize.width <= 0 || targetSize.height <= 0) {
    throw std::invalid_argument("poseFromHomography: target size must be positive");
  }
  if (gridSize < 2) throw std::invalid_argument("poseFromHomography: gridSize must be >= 2");
  for (int i = 0; i < 9; ++i) {
    if (!std::isfinite(H.val[i])) throw std::invalid_argument("poseFromHomography: H is not finite");
  }
  std::vector<cv::Point2d> target, frame;
  int positive = 0, negative = 0;
  for (int r = 0; r < gridSize; ++r) {
    for (int c = 0; c < gridSize; ++c) {
      const double x = targetSize.width * static_cast<double>(c) / (gridSize - 1);
      const double y = targetSize.height * static_cast<double>(r) / (gridSize - 1);
      const cv::Vec3d q = H * cv::Vec3d(x, y, 1.0);
      if (q[2] == 0.0) throw std::invalid_argument("poseFromHomography: H sends a target point to infinity");
      positive += q[2] > 0.0 ? 1 : 0;
      negative += q[2] < 0.0 ? 1 : 0;
      target.emplace_back(x, y);
      frame.emplace_back(q[0] / q[2], q[1] / q[2]);
    }
  }
  if (positive > 0 && negative > 0) {
    throw std::invalid_argument("poseFromHomography: H puts part of the target behind the image plane");
  }
  return estimatePose(calibration, target, frame, metresPerPixel, refine);
}

bool refinePose(const CameraCalibration& calibration, const std::vector<cv::Point3d>& object,
                const std::vector<cv::Point2d>& image, const std::vector<int>* subset, cv::Vec3d& rvec,
                cv::Vec3d& tvec, const std::vector<cv::Point2d>* streaks) {
  if (object.size() != image.size())
    throw std::invalid_argument("refinePose: " + std::to_string(object.size()) + " object points but " +
                                std::to_string(image.size()) + " image points");
  if (streaks && streaks->size() != object.size())
    throw std::invalid_argument("refinePose: " + std::to_string(streaks->size()) + " streaks for " +
                                std::to_string(object.size()) + " points");
  const size_t n = subset ? subset->size() : object.size();
  if (subset)
    for (const int i : *subset)
      if (i < 0 || static_cast<size_t>(i) >= object.size())
        throw std::invalid_argument("refinePose: subset index " + std::to_string(i) + " outside the " +
                                    std::to_string(object.size()) + " points");
  if (n < 3) return false;
  const auto at = [&](size_t k) { return subset ? static_cast<size_t>((*subset)[k]) : k; };
  if (!calibration.distortion.empty() && cv::countNonZero(calibration.distortion) > 0) {
    std::vector<cv::Point3d> o;
    std::vector<cv::Point2d> q;
    for (size_t k = 0; k < n; ++k) {
      o.push_back(object[at(k)]);
      q.push_back(image[at(k)]);
    }
    cv::Vec3d r = rvec, t = tvec;
    cv::solvePnPRefineLM(o, q, calibration.K, calibration.distortion, r, t);
    rvec = r;
    tvec = t;
    return true;
  }
  const cv::Matx33d& K = calibration.K;
  // Each point's whitening, rows (across, along) its streak: the residual's components across the
  // streak at weight 1 and along it at 1 / (1 + (kAlongStreakSigmaPerPx·L)²) (blur_aware_fit.h);
  // the identity without a streak.
  std::vector<cv::Matx22d> whiten(n, cv::Matx22d::eye());
  if (streaks)
    for (size_t k = 0; k < n; ++k) {
      const cv::Point2d& streak = (*streaks)[at(k)];
      const double length = std::hypot(streak.x, streak.y);
      if (!(length > 1e-9)) continue;
      const double ux = streak.x / length, uy = streak.y / length;
      const double along = 1.0 / std::sqrt(1.0 + std::pow(kAlongStreakSigmaPerPx * length, 2));
      whiten[k] = cv::Matx22d(-uy, ux, along * ux, along * uy);
    }
  // The sum of squared (whitened) reprojection errors under (R, t); false when a point is not in front.
  const auto cost = [&](const cv::Matx33d& R, const cv::Vec3d& t, double& sum) {
    sum = 0;
    for (size_t k = 0; k < n; ++k) {
      const cv::Point3d& X = object[at(k)];
      const cv::Vec3d Xc = R * cv::Vec3d(X.x, X.y, X.z) + t;
      if (!(Xc[2] > 1e-12)) return false;
      const cv::Vec3d q = K * Xc;
      const cv::Vec2d e = whiten[k] * cv::Vec2d(q[0] / Xc[2] - image[at(k)].x, q[1] / Xc[2] - image[at(k)].y);
      sum += e.dot(e);
    }
    return std::isfinite(sum);
  };
  cv::Matx33d R;
  cv::Rodrigues(rvec, R);
  cv::Vec3d t = tvec;
  double current = 0;
  if (!cost(R, t, current)) return false;
  double lambda = 1e-6;
  bool converged = false;
  for (int iteration = 0; iteration < 20 && current > 0 && !converged; ++iteration) {
    cv::Matx<double, 6, 6> A;
    cv::Vec<double, 6> g;
    for (size_t k = 0; k < n; ++k) {
      const cv::Point3d& X = object[at(k)];
      const cv::Vec3d Xc = R * cv::Vec3d(X.x, X.y, X.z) + t;
      const double iz = 1.0 / Xc[2];
      const cv::Vec3d q = K * Xc;
      const cv::Point2d qp(q[0] * iz, q[1] * iz);
      const cv::Matx22d& W = whiten[k];
      const cv::Vec2d e = W * cv::Vec2d(qp.x - image[at(k)].x, qp.y - image[at(k)].y);
      // ∂q/∂Xc, one row per image axis, whitened; the row of the residual in (ω, v): (Xc × a, a).
      const cv::Matx23d J = projectionJacobian(K, Xc, qp);
      const cv::Vec3d dx(J(0, 0), J(0, 1), J(0, 2)), dy(J(1, 0), J(1, 1), J(1, 2));
      const cv::Vec3d a[2] = {W(0, 0) * dx + W(0, 1) * dy, W(1, 0) * dx + W(1, 1) * dy};
      for (int r = 0; r < 2; ++r) {
        const cv::Vec3d w = Xc.cross(a[r]);
        const double j[6] = {w[0], w[1], w[2], a[r][0], a[r][1], a[r][2]};
        for (int p = 0; p < 6; ++p) {
          g[p] += j[p] * e[r];
          for (int c = p; c < 6; ++c) A(p, c) += j[p] * j[c];
        }
      }
    }
    cv::Vec<double, 6> d;  // the columns' scales: radians and metres differ
    for (int p = 0; p < 6; ++p) {
      for (int c = 0; c < p; ++c) A(p, c) = A(c, p);
      d[p] = A(p, p) > 0 ? 1.0 / std::sqrt(A(p, p)) : 0.0;
    }
    bool improved = false;
    for (; lambda < 1e6 && !improved; lambda *= 10) {
      cv::Matx<double, 6, 6> As;
      cv::Vec<double, 6> gs, delta;
      for (int p = 0; p < 6; ++p) {
        gs[p] = -g[p] * d[p];
        for (int c = 0; c < 6; ++c) As(p, c) = A(p, c) * d[p] * d[c];
        As(p, p) += lambda * As(p, p);
      }
      if (!cv::solve(As, gs, delta, cv::DECOMP_CHOLESKY)) continue;
      for (int p = 0; p < 6; ++p) delta[p] *= d[p];
      cv::Matx33d dR;
      cv::Rodrigues(cv::Vec3d(delta[0], delta[1], delta[2]), dR);
      const cv::Matx33d nextR = dR * R;
      const cv::Vec3d nextT = dR * t + cv::Vec3d(delta[3], delta[4], delta[5]);
      double next = 0;
      if (!cost(nextR, nextT, next) || !(next < current)) continue;
      improved = true;
      const double gain = current - next;
      R = nextR;
      t = nextT;
      current = next;
      converged = gain <= 1e-10 * (current + gain);
    }
    if (!improved) break;
    lambda = std::max(1e-9, lambda / 100);  // the loop's last ×10 undone, and one step less damped
  }
  cv::Vec3d r;
  cv::Rodrigues(R, r);
  rvec = r;
  tvec = t;
  return true;
}

}  // namespace nft::tracker
