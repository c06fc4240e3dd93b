#include "gst/frame_drawing.h"

#include <algorithm>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

namespace nft::gst {
namespace {

/// A colour as the frame's first plane stores it: `rgb` for colour formats, `luma` (one byte;
/// YUY2: luma and neutral chroma) for the others.
cv::Scalar colourFor(GstVideoFormat format, cv::Scalar rgb, double luma) {
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA: return {rgb[0], rgb[1], rgb[2], 255};
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_BGR: return {rgb[2], rgb[1], rgb[0], 255};
    case GST_VIDEO_FORMAT_YUY2: return {luma, 128};
    default: return cv::Scalar::all(luma);
  }
}

int matTypeOf(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRx: return CV_8UC4;
    case GST_VIDEO_FORMAT_BGR: return CV_8UC3;
    case GST_VIDEO_FORMAT_YUY2: return CV_8UC2;
    default: return CV_8UC1;  // GRAY8 and the luma plane of NV12, NV21, I420
  }
}

}  // namespace

void drawAugmentations(GstVideoFrame& frame, const FrameResult& result, const Calibration& camera,
                       const std::vector<TargetInfo>& targets) {
  const GstVideoFormat format = GST_VIDEO_FRAME_FORMAT(&frame);
  cv::Mat plane(GST_VIDEO_FRAME_HEIGHT(&frame), GST_VIDEO_FRAME_WIDTH(&frame), matTypeOf(format),
                GST_VIDEO_FRAME_PLANE_DATA(&frame, 0), static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0)));
  const int thickness = std::max(1, plane.rows / 240);
  const cv::Scalar outline = colourFor(format, {0, 255, 0}, 255), box = colourFor(format, {255, 255, 0}, 0);
  const cv::Scalar axis[3] = {colourFor(format, {255, 0, 0}, 255), colourFor(format, {0, 255, 0}, 255),
                              colourFor(format, {0, 0, 255}, 255)};
  for (const TargetResult& t : result.targets) {
    if (!t.found || t.corners.size() != 4) continue;
    // TargetResult::outline: a flat target's closed quad, a curved label's edges and silhouette
    // (what faces the camera); the Session sets it for every found target.
    std::vector<std::vector<cv::Point>> lines;
    for (const std::vector<cv::Point2f>& line : t.outline) {
      lines.emplace_back();
      for (const cv::Point2f& q : line) lines.back().emplace_back(cvRound(q.x), cvRound(q.y));
    }
    cv::polylines(plane, lines, false, outline, thickness, cv::LINE_AA);
    const auto info = std::find_if(targets.begin(), targets.end(), [&](const TargetInfo& i) { return i.id == t.id; });
    if (info == targets.end() || info->imageSize.width <= 0) continue;
    // A curved label's pose is that of its tangent plane along the middle column
    // (detection/label_surface.h): the axes are drawn as the renderer draws them, but a box
    // lifted off that plane would not stand on the bent label, so it is left out.
    const bool curved = info->geometry.curved();
    // The pose's unit: metres with a known width, else target pixels (types.h).
    const double w = info->widthMetres > 0 ? info->widthMetres : info->imageSize.width;
    const double h = w * info->imageSize.height / info->imageSize.width;
    const double lift = -0.5 * std::min(w, h);  // z points into the target: −z is towards the camera
    const std::vector<cv::Point3d> points = {{0, 0, 0},    {w / 2, 0, 0}, {0, w / 2, 0}, {0, 0, -w / 2},
                                             {0, 0, lift}, {w, 0, lift},  {w, h, lift},  {0, h, lift},
                                             {w, 0, 0},    {w, h, 0},     {0, h, 0}};
    std::vector<cv::Point2d> image;
    cv::projectPoints(points, cv::Vec3d(t.pose.rvec), cv::Vec3d(t.pose.t), cv::Mat(camera.K),
                      camera.distortion.empty() ? cv::Mat() : camera.distortion, image);
    // A point behind the camera projects far away: clamped so that cvRound stays in int's range.
    const auto p = [&](size_t i) {
      return cv::Point(cvRound(std::clamp(image[i].x, -1e6, 1e6)), cvRound(std::clamp(image[i].y, -1e6, 1e6)));
    };
    const size_t base[4] = {0, 8, 9, 10};  // the target's corners at z = 0
    for (size_t k = 0; k < 4 && !curved; ++k) {
      cv::line(plane, p(base[k]), p(4 + k), box, thickness, cv::LINE_AA);
      cv::line(plane, p(4 + k), p(4 + (k + 1) % 4), box, thickness, cv::LINE_AA);
    }
    for (size_t k = 0; k < 3; ++k) cv::line(plane, p(0), p(1 + k), axis[k], thickness + 1, cv::LINE_AA);
  }
}

}  // namespace nft::gst
