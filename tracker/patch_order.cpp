#include "tracker/patch_order.h"

#include <algorithm>
#include <cmath>

namespace nft::tracker {

std::vector<cv::Point2f> interleavedPatches(const std::vector<detection::TrackingPatch>& patches) {
  std::vector<std::vector<cv::Point2f>> byLevel;
  for (const detection::TrackingPatch& p : patches) {
    const size_t level = static_cast<size_t>(std::max(0, p.level));
    if (byLevel.size() <= level) byLevel.resize(level + 1);
    byLevel[level].push_back(p.position);  // the trainer lists each level strongest first
  }
  std::vector<cv::Point2f> order;
  for (size_t rank = 0; order.size() < patches.size(); ++rank)
    for (const auto& level : byLevel)
      if (rank < level.size()) order.push_back(level[rank]);
  return order;
}

std::vector<int> spreadOrder(const std::vector<cv::Point2d>& frame, const std::vector<unsigned char>& visible,
                             int budget) {
  std::vector<int> order;
  double x0 = HUGE_VAL, y0 = HUGE_VAL, x1 = -HUGE_VAL, y1 = -HUGE_VAL;
  for (size_t i = 0; i < frame.size(); ++i)
    if (visible[i]) {
      order.push_back(static_cast<int>(i));
      x0 = std::min(x0, frame[i].x), x1 = std::max(x1, frame[i].x);
      y0 = std::min(y0, frame[i].y), y1 = std::max(y1, frame[i].y);
    }
  if (static_cast<int>(order.size()) <= budget) return order;  // every visible one is searched anyway
  // Square cells: about `budget` of them over the box.
  const double w = std::max(1.0, x1 - x0), h = std::max(1.0, y1 - y0);
  const double side = std::sqrt(w * h / std::max(1, budget));
  const int cols = std::max(1, static_cast<int>(std::ceil(w / side))), rows = std::max(1, static_cast<int>(std::ceil(h / side)));
  std::vector<std::vector<int>> cells(static_cast<size_t>(cols * rows));
  for (const int i : order) {
    const int cx = std::min(cols - 1, static_cast<int>((frame[static_cast<size_t>(i)].x - x0) / side));
    const int cy = std::min(rows - 1, static_cast<int>((frame[static_cast<size_t>(i)].y - y0) / side));
    cells[static_cast<size_t>(cy * cols + cx)].push_back(i);
  }
  std::vector<int> spread;
  spread.reserve(order.size());
  for (size_t rank = 0; spread.size() < order.size(); ++rank)
    for (const std::vector<int>& cell : cells)
      if (rank < cell.size()) spread.push_back(cell[rank]);
  return spread;
}

}  // namespace nft::tracker
