#include "apps/train/target_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "detection/label_surface.h"

namespace nft::train {
namespace {

constexpr int kGrid = 16;
// A cell without keypoints or patches is plain when its mean local contrast is under this (8-bit
// grey levels): the quality report's "too plain" contrast. A textured cell the keypoint budget
// left out is not.
constexpr double kPlainContrast = 8.0;
const cv::Scalar kYellow(0, 230, 255), kCyan(255, 220, 0), kGreen(0, 200, 0), kRed(0, 0, 255);

}  // namespace

TargetPicture targetPicture(const detection::TargetModel& model) {
  if (model.image.empty() || model.image.type() != CV_8UC1)
    throw std::invalid_argument("targetPicture: the model has no grey working image");
  const double zoom = model.image.cols < 400 ? 2.0 : 1.0;
  cv::Mat grey;
  cv::resize(model.image, grey, cv::Size(), zoom, zoom, cv::INTER_LINEAR);
  // Dimmed, so that the marks stand out on a bright print.
  cv::Mat label;
  grey.convertTo(grey, CV_8U, 0.6, 40);
  cv::cvtColor(grey, label, cv::COLOR_GRAY2BGR);

  // Which of the label's cells are on the printed label (a sector's bounding box is not).
  std::optional<detection::LabelSurface> surface;
  if (model.geometry.curved()) surface.emplace(model.geometry, model.widthMetres, model.image.size());
  const auto onLabel = [&](double x, double y) { return !surface || surface->onLabel({x, y}); };
  std::vector<int> used(kGrid * kGrid, 0);
  const auto cellOf = [&](double x, double y) {
    const int cx = std::clamp(static_cast<int>(x * kGrid / model.image.cols), 0, kGrid - 1);
    const int cy = std::clamp(static_cast<int>(y * kGrid / model.image.rows), 0, kGrid - 1);
    return cy * kGrid + cx;
  };
  const int frontal = model.frontalKeypoints();
  for (int i = 0; i < frontal; ++i)
    used[static_cast<size_t>(cellOf(model.keypoints[static_cast<size_t>(i)].x, model.keypoints[static_cast<size_t>(i)].y))] = 1;
  for (const detection::TrackingPatch& p : model.patches) used[static_cast<size_t>(cellOf(p.position.x, p.position.y))] = 1;

  // Local contrast: the standard deviation over 7 × 7 windows, as the quality report's.
  cv::Mat f, mean, meanSq, deviation;
  model.image.convertTo(f, CV_32F);
  cv::boxFilter(f, mean, CV_32F, cv::Size(7, 7));
  cv::boxFilter(f.mul(f), meanSq, CV_32F, cv::Size(7, 7));
  cv::sqrt(cv::max(meanSq - mean.mul(mean), 0.0f), deviation);

  // Plain cells shaded red; a sector's outside hatched.
  cv::Mat shade = label.clone();
  int cells = 0, plain = 0;
  for (int cy = 0; cy < kGrid; ++cy)
    for (int cx = 0; cx < kGrid; ++cx) {
      const double x0 = cx * model.image.cols / double(kGrid), x1 = (cx + 1) * model.image.cols / double(kGrid);
      const double y0 = cy * model.image.rows / double(kGrid), y1 = (cy + 1) * model.image.rows / double(kGrid);
      const cv::Rect r(cv::Point(cvRound(x0 * zoom), cvRound(y0 * zoom)), cv::Point(cvRound(x1 * zoom), cvRound(y1 * zoom)));
      if (!onLabel((x0 + x1) / 2, (y0 + y1) / 2)) {
        cv::rectangle(shade, r, cv::Scalar(60, 60, 60), cv::FILLED);
        for (int d = -r.height; d < r.width; d += 6)
          cv::line(shade(r), cv::Point(d, r.height), cv::Point(d + r.height, 0), cv::Scalar(128, 128, 128), 1);
        continue;
      }
      ++cells;
      if (used[static_cast<size_t>(cy * kGrid + cx)]) continue;
      const cv::Rect inImage(cv::Point(static_cast<int>(x0), static_cast<int>(y0)),
                             cv::Point(std::max(static_cast<int>(x0) + 1, static_cast<int>(x1)),
                                       std::max(static_cast<int>(y0) + 1, static_cast<int>(y1))));
      if (cv::mean(deviation(inImage & cv::Rect(0, 0, f.cols, f.rows)))[0] >= kPlainContrast) continue;
      ++plain;
      cv::rectangle(shade, r, kRed, cv::FILLED);
    }
  cv::addWeighted(label, 0.6, shade, 0.4, 0, label);

  for (const detection::TrackingPatch& p : model.patches) {
    const double half = 4.0 * (1 << p.level) * zoom;
    const cv::Point2d c(p.position.x * zoom, p.position.y * zoom);
    cv::rectangle(label, cv::Point(cvRound(c.x - half), cvRound(c.y - half)),
                  cv::Point(cvRound(c.x + half), cvRound(c.y + half)), kGreen, 1, cv::LINE_AA);
  }
  for (size_t i = static_cast<size_t>(frontal); i < model.keypoints.size(); ++i)
    cv::circle(label, cv::Point(cvRound(model.keypoints[i].x * zoom), cvRound(model.keypoints[i].y * zoom)), 1, kCyan,
               cv::FILLED);
  for (int i = 0; i < frontal; ++i) {
    const detection::Keypoint& k = model.keypoints[static_cast<size_t>(i)];
    cv::drawMarker(label, cv::Point(cvRound(k.x * zoom), cvRound(k.y * zoom)), kYellow, cv::MARKER_CROSS, 7, 1);
  }

  TargetPicture out;
  out.plainFraction = cells > 0 ? static_cast<double>(plain) / cells : 0.0;
  // The legend strip under the label.
  char line[3][200];
  std::string stars;
  for (int s = 0; s < 5; ++s) stars += s < model.quality.stars ? "*" : ".";
  std::snprintf(line[0], sizeof line[0], "%d keypoints (yellow), %d of simulated views (cyan)", frontal,
                static_cast<int>(model.keypoints.size()) - frontal);
  std::snprintf(line[1], sizeof line[1], "%zu tracking patches (green); too plain (red): %.0f%% of the target",
                model.patches.size(), 100.0 * out.plainFraction);
  std::snprintf(line[2], sizeof line[2], "quality %s (%d/5), %s, %.3f m wide", stars.c_str(), model.quality.stars,
                detection::toString(model.geometry.kind).c_str(), model.widthMetres);
  const int lineHeight = 18, width = std::max(label.cols, 420);
  out.image = cv::Mat(label.rows + 3 * lineHeight + 10, width, CV_8UC3, cv::Scalar(32, 32, 32));
  label.copyTo(out.image(cv::Rect(0, 0, label.cols, label.rows)));
  for (int i = 0; i < 3; ++i)
    cv::putText(out.image, line[i], cv::Point(6, label.rows + 4 + lineHeight * (i + 1) - 5), cv::FONT_HERSHEY_SIMPLEX,
                0.45, cv::Scalar(235, 235, 235), 1, cv::LINE_AA);
  return out;
}

}  // namespace nft::train
