// FastDetector: pyramid, per-level FAST-9, spread selection (see fast_detector.h).
#include "detection/fast_detector.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

namespace nft::detection {
namespace {

// FAST-9 tests a radius-3 circle: a level needs at least 7 × 7 pixels to hold one candidate.
constexpr int kMinLevelSide = 7;
// No cell keeps more than this many times the equal share (fast_detector.h, step 3). 1 forces
// the same count into weak and strong cells, 3 lets strong texture crowd the rest out; measured
// with the defaults (correct matches, boat 1→2 / 1→3 / cmu_book scenes): 1: 266/221/1071,
// 2: 322/298/1222, 3: 330/315/1105.
constexpr int kShareCap = 2;

[[noreturn]] void badOption(const std::string& name, const std::string& value, const std::string& allowed) {
  throw std::invalid_argument("FastDetectorOptions::" + name + " = " + value + " is out of range (allowed: " +
                              allowed + ")");
}

// The strength order as one integer, so that ordering is a plain integer sort: descending
// score, ties in detection order (level 0 first, then cv::FAST's raster order), which makes
// the order total and the output deterministic. FAST scores are non-negative floats, whose
// IEEE-754 bit patterns order like their values; the low 32 bits hold the detection index.
uint64_t strengthKey(float response, size_t index) {
  uint32_t bits = 0;
  std::memcpy(&bits, &response, sizeof bits);
  return (static_cast<uint64_t>(~bits) << 32) | static_cast<uint64_t>(index);
}

size_t indexOf(uint64_t key) { return static_cast<size_t>(key & 0xffffffffu); }

// Runs FAST on `level` and appends its corners, mapped to level-0 pixels, to `out`.
void detectLevel(const cv::Mat& level, int index, double toFullX, double toFullY, float scale, int threshold,
                 std::vector<cv::KeyPoint>& scratch, std::vector<Keypoint>& out) {
  cv::FAST(level, scratch, threshold, /*nonmaxSuppression=*/true, cv::FastFeatureDetector::TYPE_9_16);
  out.reserve(out.size() + scratch.size());
  for (const cv::KeyPoint& corner : scratch) {
    Keypoint kp;
    // Pixel-centre mapping of cv::resize: level pixel u covers [u, u + 1) in pixel-edge units,
    // i.e. [u·r, (u + 1)·r) at level 0, whose centre is (u + 0.5)·r − 0.5 in centre units.
    kp.x = static_cast<float>((static_cast<double>(corner.pt.x) + 0.5) * toFullX - 0.5);
    kp.y = static_cast<float>((static_cast<double>(corner.pt.y) + 0.5) * toFullY - 0.5);
    kp.scale = scale;
    kp.angle = kNoAngle;
    kp.response = corner.response;
    kp.octave = index;
    out.push_back(kp);
  }
}

// All FAST corners of all pyramid levels, in level-0 pixels.
std::vector<Keypoint> detectPyramid(const cv::Mat& gray, const FastDetectorOptions& o) {
  std::vector<Keypoint> candidates;
  std::vector<cv::KeyPoint> scratch;
  const int width = gray.cols, height = gray.rows;
  // Bilinear taps spaced f <= 2 apart still read every source pixel; beyond that, INTER_AREA
  // averages instead of skipping pixels (aliasing).
  const int interpolation = o.scaleFactor <= 2.0 ? cv::INTER_LINEAR : cv::INTER_AREA;
  cv::Mat previous = gray;  // level 0 is the image itself: no copy
  for (int level = 0; level < o.levels; ++level) {
    cv::Mat current;
    const double factor = std::pow(o.scaleFactor, level);
    if (level == 0) {
      current = gray;
    } else {
      const cv::Size size(static_cast<int>(std::lround(width / factor)), static_cast<int>(std::lround(height / factor)));
      if (std::min(size.width, size.height) < kMinLevelSide) break;
      cv::resize(previous, current, size, 0.0, 0.0, interpolation);
    }
    // The chain's step ratios multiply to W / w_L: the exact level-to-full mapping.
    const double toFullX = static_cast<double>(width) / current.cols;
    const double toFullY = static_cast<double>(height) / current.rows;
    detectLevel(current, level, toFullX, toFullY, static_cast<float>(o.baseScale * factor), o.threshold, scratch,
                candidates);
    previous = current;
  }
  return candidates;
}

// All candidates' strength keys, strongest first.
std::vector<uint64_t> strengthOrder(const std::vector<Keypoint>& candidates) {
  std::vector<uint64_t> keys(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) keys[i] = strengthKey(candidates[i].response, i);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<Keypoint> gather(const std::vector<Keypoint>& candidates, const std::vector<uint64_t>& keys) {
  std::vector<Keypoint> out;
  out.reserve(keys.size());
  for (const uint64_t key : keys) out.push_back(candidates[indexOf(key)]);
  return out;
}

// Step 3 of fast_detector.h: every non-empty cell keeps its strongest, no cell more than
// kShareCap·k, the rest by strength. `order` holds all candidates' keys, strongest first, and
// has more than n entries. Walking it once in that order yields each cell's corners strongest
// first, so the firsts and the pool come out sorted and only need a merge.
std::vector<Keypoint> selectSpread(const std::vector<Keypoint>& candidates, const std::vector<uint64_t>& order,
                                   size_t n, int width, int height, int cellSize) {
  const int cols = (width + cellSize - 1) / cellSize, rows = (height + cellSize - 1) / cellSize;
  const size_t cells = static_cast<size_t>(cols) * static_cast<size_t>(rows);
  // Cell of the pixel containing the position.
  std::vector<uint32_t> cellOf(candidates.size());
  std::vector<size_t> count(cells, 0);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const int cx = std::min(cols - 1, static_cast<int>((candidates[i].x + 0.5f) / static_cast<float>(cellSize)));
    const int cy = std::min(rows - 1, static_cast<int>((candidates[i].y + 0.5f) / static_cast<float>(cellSize)));
    cellOf[i] = static_cast<uint32_t>(cy * cols + cx);
    ++count[cellOf[i]];
  }
  // Equal share k: the smallest k with Σ min(count, k) >= n (exists: Σ count > n).
  auto keptAtCap = [&](size_t k) {
    size_t total = 0;
    for (const size_t c : count) total += std::min(c, k);
    return total;
  };
  size_t lo = 1, hi = *std::max_element(count.begin(), count.end());
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (keptAtCap(mid) >= n) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  const size_t cap = static_cast<size_t>(kShareCap) * lo;

  std::vector<uint64_t> firsts, pool;
  std::vector<size_t> taken(cells, 0);
  for (const uint64_t key : order) {
    size_t& t = taken[cellOf[indexOf(key)]];
    if (t == 0) {
      firsts.push_back(key);
    } else if (t < cap) {
      pool.push_back(key);
    }
    ++t;
  }
  if (firsts.size() >= n) {  // more textured cells than places: the strongest cells' best
    firsts.resize(n);
    return gather(candidates, firsts);
  }
  pool.resize(std::min(pool.size(), n - firsts.size()));
  std::vector<uint64_t> kept(firsts.size() + pool.size());
  std::merge(firsts.begin(), firsts.end(), pool.begin(), pool.end(), kept.begin());
  return gather(candidates, kept);
}

}  // namespace

FastDetector::FastDetector(const FastDetectorOptions& options) : options_(options) {
  const FastDetectorOptions& o = options_;
  if (o.maxKeypoints < 1) badOption("maxKeypoints", std::to_string(o.maxKeypoints), ">= 1");
  if (!(o.scaleFactor > 1.0 && o.scaleFactor <= 4.0)) {
    std::ostringstream value;
    value << o.scaleFactor;
    badOption("scaleFactor", value.str(), "(1, 4]");
  }
  if (o.levels < 1 || o.levels > 32) badOption("levels", std::to_string(o.levels), "[1, 32]");
  if (o.threshold < 1 || o.threshold > 255) badOption("threshold", std::to_string(o.threshold), "[1, 255]");
  if (o.cellSize < 0) badOption("cellSize", std::to_string(o.cellSize), ">= 0, 0 = no spread");
  if (!(std::isfinite(o.baseScale) && o.baseScale > 0.0f)) {
    std::ostringstream value;
    value << o.baseScale;
    badOption("baseScale", value.str(), "finite, > 0");
  }
}

const FastDetectorOptions& FastDetector::options() const { return options_; }

std::vector<Keypoint> FastDetector::detect(const cv::Mat& image) const { return detect(image, cv::Mat()); }

std::vector<Keypoint> FastDetector::detect(const cv::Mat& image, const cv::Mat& mask) const {
  if (image.empty()) {
    throw std::invalid_argument("FastDetector::detect: the image is empty (" + std::to_string(image.cols) + "x" +
                                std::to_string(image.rows) + ")");
  }
  if (image.type() != CV_8UC1 && image.type() != CV_8UC3) {
    throw std::invalid_argument("FastDetector::detect: image type " + cv::typeToString(image.type()) +
                                " is not supported (CV_8UC1 grey or CV_8UC3 BGR)");
  }
  cv::Mat gray = image;
  if (image.type() == CV_8UC3) cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);

  if (!mask.empty() && (mask.type() != CV_8UC1 || mask.size() != gray.size()))
    throw std::invalid_argument("FastDetector::detect: the mask is " + cv::typeToString(mask.type()) + " " +
                                std::to_string(mask.cols) + "x" + std::to_string(mask.rows) + ", expected CV_8UC1 " +
                                std::to_string(gray.cols) + "x" + std::to_string(gray.rows));
  std::vector<Keypoint> candidates = detectPyramid(gray, options_);
  if (!mask.empty())  // before the spread and the cap: the budget goes to the allowed part only
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [&](const Keypoint& k) {
                                      const int x = std::clamp(static_cast<int>(std::lround(k.x)), 0, mask.cols - 1);
                                      const int y = std::clamp(static_cast<int>(std::lround(k.y)), 0, mask.rows - 1);
                                      return mask.at<uchar>(y, x) == 0;
                                    }),
                     candidates.end());
  const size_t n = static_cast<size_t>(options_.maxKeypoints);
  std::vector<uint64_t> order = strengthOrder(candidates);
  if (order.size() <= n || options_.cellSize == 0) {
    order.resize(std::min(order.size(), n));
    return gather(candidates, order);
  }
  return selectSpread(candidates, order, n, gray.cols, gray.rows, options_.cellSize);
}

}  // namespace nft::detection
