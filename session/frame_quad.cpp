// Instant targets: quad checks, rectification and the starting homography (see frame_quad.h).
#include "session/frame_quad.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <opencv2/imgproc.hpp>

#include "nft/error.h"

namespace nft::session {
namespace {

const char* const kCornerNames[4] = {"upper-left", "upper-right", "lower-right", "lower-left"};

std::string pointText(const cv::Point2f& p) {
  std::ostringstream s;
  s << "(" << p.x << ", " << p.y << ")";
  return s.str();
}

double length(const cv::Point2f& a, const cv::Point2f& b) { return std::hypot(a.x - b.x, a.y - b.y); }

}  // namespace

void checkFrameQuad(const std::vector<cv::Point2f>& quad, cv::Size frameSize, const std::string& context) {
  if (quad.size() != 4)
    throw InputError(context + ": quad has " + std::to_string(quad.size()) +
                     " corners: expected 4 (upper-left, upper-right, lower-right, lower-left)");
  for (size_t i = 0; i < 4; ++i) {
    const cv::Point2f& p = quad[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y))
      throw InputError(context + ": quad corner " + std::to_string(i) + " (" + kCornerNames[i] +
                       ") is not finite: expected frame pixels");
    if (p.x < -0.5 || p.y < -0.5 || p.x > frameSize.width - 0.5 || p.y > frameSize.height - 0.5)
      throw InputError(context + ": quad corner " + std::to_string(i) + " (" + kCornerNames[i] + ") " +
                       pointText(p) + " is outside the " + std::to_string(frameSize.width) + "x" +
                       std::to_string(frameSize.height) + " frame: expected the whole quad in view");
  }
  // Convex and clockwise on the screen (y down): every turn from one side to the next has a
  // positive cross product; a crossing quad has turns of both signs, a reflex corner one of the
  // wrong sign, a counter-clockwise (mirrored) one all negative.
  for (size_t i = 0; i < 4; ++i) {
    const cv::Point2f a = quad[i], b = quad[(i + 1) % 4], c = quad[(i + 2) % 4];
    const double cross = static_cast<double>(b.x - a.x) * (c.y - b.y) - static_cast<double>(b.y - a.y) * (c.x - b.x);
    if (!(cross > 0))
      throw InputError(context + ": quad is not convex and clockwise at its " + kCornerNames[(i + 1) % 4] +
                       " corner " + pointText(b) +
                       ": expected upper-left, upper-right, lower-right, lower-left corners of a convex region, "
                       "clockwise on the screen");
  }
  for (size_t i = 0; i < 4; ++i) {
    const double side = length(quad[i], quad[(i + 1) % 4]);
    if (side < kMinQuadSidePx) {
      std::ostringstream s;
      s << context << ": quad is too small: its side from the " << kCornerNames[i] << " to the "
        << kCornerNames[(i + 1) % 4] << " corner is " << side << " px: expected at least " << kMinQuadSidePx
        << " px a side";
      throw InputError(s.str());
    }
  }
}

cv::Size rectifiedSize(const std::vector<cv::Point2f>& quad) {
  const double width = std::max(length(quad[0], quad[1]), length(quad[3], quad[2]));
  const double height = std::max(length(quad[0], quad[3]), length(quad[1], quad[2]));
  return {std::max(1, static_cast<int>(std::lround(width))), std::max(1, static_cast<int>(std::lround(height)))};
}

cv::Matx33d quadHomography(cv::Size targetSize, const std::vector<cv::Point2f>& quad) {
  const float w = static_cast<float>(targetSize.width), h = static_cast<float>(targetSize.height);
  const cv::Point2f from[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  const cv::Point2f to[4] = {quad[0], quad[1], quad[2], quad[3]};
  cv::Matx33d H(cv::getPerspectiveTransform(from, to));
  return H * (1.0 / H(2, 2));
}

cv::Mat rectifyQuad(const cv::Mat& frame, const std::vector<cv::Point2f>& quad) {
  const cv::Size size = rectifiedSize(quad);
  cv::Mat out;
  // WARP_INVERSE_MAP: the matrix maps output (target) pixels to input (frame) pixels.
  cv::warpPerspective(frame, out, cv::Mat(quadHomography(size, quad)), size, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                      cv::BORDER_REPLICATE);
  return out;
}

}  // namespace nft::session
