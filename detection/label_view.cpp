#include "detection/label_view.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace nft::detection {

cv::Vec3d LabelCamera::ray(double x, double y) const {
  const cv::Vec3d inCamera((x - K(0, 2)) / K(0, 0), (y - K(1, 2)) / K(1, 1), 1.0);
  return cv::normalize(R.t() * inCamera);
}

LabelCamera turnedCamera(const LabelSurface& surface, cv::Point2d labelPixel, double turnRad, double distanceMetres,
                         cv::Size viewSize) {
  if (!(distanceMetres > 0)) throw std::invalid_argument("turnedCamera: distance " + std::to_string(distanceMetres) +
                                                         " m (expected > 0)");
  if (viewSize.width <= 0 || viewSize.height <= 0) throw std::invalid_argument("turnedCamera: empty view size");
  const double s = surface.metresPerPixel();
  cv::Vec3d target, normal, down;
  if (surface.geometry().curved()) {
    const cv::Vec2d tp = surface.slantAngle(labelPixel);
    const cv::Point2d p = surface.pixelAt(tp[0], tp[1] + turnRad);
    const cv::Point3d x = surface.point(p);
    target = cv::Vec3d(x.x, x.y, x.z);
    normal = surface.normal(p);
    down = surface.axisDirection();
  } else {
    // Orbit about the vertical centre line through the label's point.
    const cv::Point3d x = surface.point(labelPixel);
    target = cv::Vec3d(x.x, x.y, x.z);
    normal = cv::Vec3d(std::sin(turnRad), 0, -std::cos(turnRad));
    down = cv::Vec3d(0, 1, 0);
  }
  const cv::Vec3d centre = target + distanceMetres * normal;
  const cv::Vec3d zAxis = -normal;
  const cv::Vec3d yAxis = cv::normalize(down - down.dot(zAxis) * zAxis);
  const cv::Vec3d xAxis = yAxis.cross(zAxis);
  LabelCamera c;
  c.R = cv::Matx33d(xAxis[0], xAxis[1], xAxis[2], yAxis[0], yAxis[1], yAxis[2], zAxis[0], zAxis[1], zAxis[2]);
  c.t = -(c.R * centre);
  const double f = distanceMetres / s;
  c.K = cv::Matx33d(f, 0, (viewSize.width - 1) / 2.0, 0, f, (viewSize.height - 1) / 2.0, 0, 0, 1);
  c.size = viewSize;
  return c;
}

cv::Mat renderLabel(const cv::Mat& label, const LabelSurface& surface, const LabelCamera& camera, cv::Mat* labelMap,
                    cv::Mat* facing, uchar background) {
  if (label.type() != CV_8UC1) throw std::invalid_argument("renderLabel: the label must be CV_8UC1");
  if (camera.size.width <= 0 || camera.size.height <= 0) throw std::invalid_argument("renderLabel: empty camera size");
  cv::Mat map(camera.size, CV_32FC2, cv::Scalar(-1, -1));
  cv::Mat cosine(camera.size, CV_32F, cv::Scalar(0));
  const cv::Vec3d centre = camera.centre();
  cv::parallel_for_(cv::Range(0, camera.size.height), [&](const cv::Range& rows) {
    for (int y = rows.start; y < rows.end; ++y) {
      cv::Vec2f* m = map.ptr<cv::Vec2f>(y);
      float* c = cosine.ptr<float>(y);
      for (int x = 0; x < camera.size.width; ++x) {
        const cv::Vec3d w = camera.ray(x, y);
        const std::optional<cv::Point2d> p = surface.intersect(centre, w);
        if (!p) continue;
        // Label coordinates are the image's pixel coordinates (keypoints' and patches').
        m[x] = cv::Vec2f(static_cast<float>(p->x), static_cast<float>(p->y));
        c[x] = static_cast<float>(std::abs(surface.normal(*p).dot(w)));
      }
    }
  });
  cv::Mat view;
  cv::remap(label, view, map, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
  view.setTo(background, cosine == 0);
  if (labelMap) *labelMap = map;
  if (facing) *facing = cosine;
  return view;
}

}  // namespace nft::detection
