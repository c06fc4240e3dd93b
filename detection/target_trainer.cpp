#include "detection/target_trainer.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "detection/label_view.h"
#include "detection/target_quality.h"

namespace nft::detection {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Candidates per tracking patch wanted, from which spreadOverGrid keeps the spread ones.
constexpr int kSpreadCandidates = 4;

cv::Mat toGray(const cv::Mat& image) {
  if (image.empty() || image.cols < 16 || image.rows < 16)
    throw std::invalid_argument("trainTarget: the target image is " + std::to_string(image.cols) + "x" +
                                std::to_string(image.rows) + " (expected at least 16x16)");
  if (image.type() == CV_8UC1) return image;
  if (image.type() == CV_8UC3) {
    cv::Mat gray;
    cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
    return gray;
  }
  throw std::invalid_argument("trainTarget: image type " + cv::typeToString(image.type()) +
                              " is not supported (expected CV_8UC1 or CV_8UC3)");
}

// The `want` corners of `corners` (strongest first, `score` each one's) to keep: the strongest of
// each cell of a grid of about `want` cells over `size` first, then the strongest of the rest,
// returned strongest first. The strongest corners of a print cluster where it has most contrast
// (a title, a band of text); a large target seen partly, or not quite flat, is constrained only
// where its patches are (issue 45, Deliver 4).
std::vector<size_t> spreadOverGrid(const std::vector<cv::Point2f>& corners, const std::vector<float>& score,
                                   cv::Size size, int want) {
  if (static_cast<int>(corners.size()) <= want) {
    std::vector<size_t> all(corners.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  const double side = std::sqrt(static_cast<double>(size.area()) / want);
  const int cols = std::max(1, static_cast<int>(std::ceil(size.width / side)));
  std::vector<char> cellTaken(static_cast<size_t>(cols * (static_cast<int>(std::ceil(size.height / side)) + 1)), 0);
  std::vector<char> taken(corners.size(), 0);
  std::vector<size_t> keep;
  for (size_t i = 0; i < corners.size() && static_cast<int>(keep.size()) < want; ++i) {  // strongest first
    const size_t cell = static_cast<size_t>(static_cast<int>(corners[i].y / side) * cols + static_cast<int>(corners[i].x / side));
    if (cellTaken[cell]) continue;
    cellTaken[cell] = 1;
    taken[i] = 1;
    keep.push_back(i);
  }
  for (size_t i = 0; i < corners.size() && static_cast<int>(keep.size()) < want; ++i)
    if (!taken[i]) keep.push_back(i);
  std::stable_sort(keep.begin(), keep.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
  return keep;
}

// Well-textured points to track by NCC (Wagner et al. 2010), spread over the target at each
// level of a factor-2 pyramid: Shi-Tomasi corners (the minimum eigenvalue of the structure
// tensor, which NCC search needs large in both directions), at least `spacing` apart, the
// strongest of each cell of a grid first (spreadOverGrid) from kSpreadCandidates times the
// corners wanted.
std::vector<TrackingPatch> selectPatches(const cv::Mat& gray, const TargetTrainerOptions& o) {
  std::vector<TrackingPatch> patches;
  cv::Mat level = gray;
  // Finer levels get more of the budget: half, a quarter, …, the rest to the last level.
  int budget = o.maxPatches;
  for (int l = 0; l < o.patchLevels && budget > 0; ++l) {
    const int want = l + 1 == o.patchLevels ? budget : std::max(1, budget / 2);
    if (level.cols <= 2 * o.patchMargin || level.rows <= 2 * o.patchMargin) break;
    cv::Mat mask(level.size(), CV_8UC1, cv::Scalar(0));
    mask(cv::Rect(o.patchMargin, o.patchMargin, level.cols - 2 * o.patchMargin, level.rows - 2 * o.patchMargin))
        .setTo(255);
    std::vector<cv::Point2f> corners;
    cv::goodFeaturesToTrack(level, corners, kSpreadCandidates * want, 0.01, o.patchSpacing, mask, 3);
    cv::Mat eigen;
    cv::cornerMinEigenVal(level, eigen, 3);
    std::vector<float> score(corners.size());
    for (size_t i = 0; i < corners.size(); ++i) score[i] = eigen.at<float>(cvRound(corners[i].y), cvRound(corners[i].x));
    const std::vector<size_t> kept = spreadOverGrid(corners, score, level.size(), want);
    const float scale = static_cast<float>(1 << l);
    for (const size_t i : kept) {
      const cv::Point2f& c = corners[i];
      TrackingPatch p;
      // Level pixel centre (u, v) is level-0 position ((u + 0.5)·2^l − 0.5, …).
      p.position = cv::Point2f((c.x + 0.5f) * scale - 0.5f, (c.y + 0.5f) * scale - 0.5f);
      p.level = l;
      p.score = score[i];
      patches.push_back(p);
    }
    budget -= static_cast<int>(kept.size());
    cv::Mat next;
    cv::resize(level, next, cv::Size((level.cols + 1) / 2, (level.rows + 1) / 2), 0, 0, cv::INTER_AREA);
    level = next;
  }
  return patches;
}

// The target's keypoints: FAST over enough levels that a target seen as small as
// options.minDetectedSidePx still has keypoints at its scale, each level given its share of the
// budget (see TargetTrainerOptions::minDetectedSidePx).
std::vector<Keypoint> detectOverScales(const cv::Mat& image, const TargetTrainerOptions& options) {
  if (options.minDetectedSidePx <= 0) return FastDetector(options.detector).detect(image);
  FastDetectorOptions o = options.detector;
  const double longest = std::max(image.cols, image.rows);
  const int needed = 1 + static_cast<int>(std::ceil(std::log(longest / options.minDetectedSidePx) /
                                                    std::log(o.scaleFactor) - 1e-9));
  o.levels = std::clamp(needed, o.levels, 32);
  const int budget = o.maxKeypoints;
  o.maxKeypoints = budget * o.levels;  // every corner the spread keeps; the shares are taken below
  std::vector<Keypoint> all = FastDetector(o).detect(image);  // strongest first
  // Shares in proportion to each level's area (1/f^(2L)), each at least budget / (2·levels).
  std::vector<double> weight(static_cast<size_t>(o.levels));
  double total = 0;
  for (int l = 0; l < o.levels; ++l) total += weight[static_cast<size_t>(l)] = std::pow(o.scaleFactor, -2.0 * l);
  std::vector<int> share(weight.size());
  const int floorShare = budget / (2 * o.levels);
  for (size_t l = 0; l < weight.size(); ++l)
    share[l] = floorShare + static_cast<int>(std::lround((budget - floorShare * o.levels) * weight[l] / total));
  std::vector<Keypoint> kept;
  std::vector<bool> used(all.size(), false);
  std::vector<int> taken(weight.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) {
    const size_t l = static_cast<size_t>(std::clamp(all[i].octave, 0, o.levels - 1));
    if (taken[l] < share[l]) ++taken[l], used[i] = true;
  }
  // Levels with fewer corners than their share leave budget: the strongest of the rest fill it.
  int count = static_cast<int>(std::count(used.begin(), used.end(), true));
  for (size_t i = 0; i < all.size() && count < budget; ++i)
    if (!used[i]) used[i] = true, ++count;
  for (size_t i = 0; i < all.size() && static_cast<int>(kept.size()) < budget; ++i)
    if (used[i]) kept.push_back(all[i]);  // still strongest first
  return kept;
}

/// The tilted views of TargetTrainerOptions::viewTiltDeg: keypoints and descriptors of each view,
/// their positions mapped back into `image`'s pixels, appended to `keypoints` / `descriptors`.
void addTiltedViews(const cv::Mat& image, const TargetTrainerOptions& options, const DescribeFunction& describe,
                    std::vector<Keypoint>& keypoints, cv::Mat& descriptors) {
  const double t = std::cos(options.viewTiltDeg * kPi / 180.0);
  FastDetectorOptions detector = options.detector;
  detector.maxKeypoints = std::max(1, detector.maxKeypoints / 4);
  for (const double azimuthDeg : {0.0, 45.0, 90.0, 135.0}) {
    // A = R(−φ) · diag(1, t) · R(φ): compression by t along the direction φ + 90°.
    const double a = azimuthDeg * kPi / 180.0, c = std::cos(a), s = std::sin(a);
    const cv::Matx22d R(c, s, -s, c);
    cv::Matx22d A = R.t() * cv::Matx22d(1, 0, 0, t) * R;
    // Its bounding box from the image's corners, shifted to start at (0, 0).
    double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
    for (const cv::Vec2d& p : {cv::Vec2d(0, 0), cv::Vec2d(image.cols, 0), cv::Vec2d(image.cols, image.rows),
                              cv::Vec2d(0, image.rows)}) {
      const cv::Vec2d q = A * p;
      x0 = std::min(x0, q[0]), y0 = std::min(y0, q[1]), x1 = std::max(x1, q[0]), y1 = std::max(y1, q[1]);
    }
    const cv::Matx23d warp(A(0, 0), A(0, 1), -x0, A(1, 0), A(1, 1), -y0);
    // Anti-aliasing before the compression (ASIFT: σ = 0.8·sqrt(1/t² − 1) across it).
    cv::Mat smoothed;
    cv::GaussianBlur(image, smoothed, cv::Size(), 0.8 * std::sqrt(1.0 / (t * t) - 1.0) * 0.5);
    cv::Mat view;
    // At these four azimuths each of A's rows sums to at most 1 in absolute value, so each
    // extent is at most a convex combination of the image's width and height: the view fits in
    // the longest side's square, as the describers are sized (session::trainTargetImage); the
    // epsilon keeps rounding from adding a column or row.
    cv::warpAffine(smoothed, view, warp,
                   cv::Size(static_cast<int>(std::ceil(x1 - x0 - 1e-6)), static_cast<int>(std::ceil(y1 - y0 - 1e-6))),
                   cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::Mat inside;  // keypoints away from the view's black corners
    cv::warpAffine(cv::Mat(image.size(), CV_8U, cv::Scalar(255)), inside, warp, view.size(), cv::INTER_NEAREST);
    cv::erode(inside, inside, cv::Mat(), cv::Point(-1, -1), 8);
    std::vector<Keypoint> found = FastDetector(detector).detect(view), kept;
    for (const Keypoint& k : found)
      if (inside.at<uchar>(cvRound(k.y), cvRound(k.x)) != 0) kept.push_back(k);
    if (kept.empty()) continue;
    const cv::Mat d = describe(view, kept);
    cv::Matx23d back;
    cv::invertAffineTransform(warp, back);
    for (int i = 0; i < d.rows; ++i) {
      if (cv::norm(d.row(i)) < 0.5) continue;
      Keypoint k = kept[static_cast<size_t>(i)];
      const cv::Vec3d p(k.x, k.y, 1.0);
      const cv::Vec2d q = back * p;
      k.x = static_cast<float>(q[0]);
      k.y = static_cast<float>(q[1]);
      keypoints.push_back(k);
      descriptors.push_back(d.row(i));
    }
  }
}

/// A camera that frames the label's parts facing it within 75° when the label is turned by
/// `turnRad` (turnedCamera at its middle, 1 label pixel a view pixel there), its view cropped to
/// them and at most `maxSide` pixels a side (the focal length scaled down when they are larger).
LabelCamera framingCamera(const LabelSurface& surface, cv::Size label, double turnRad, int maxSide) {
  const double height = label.height * surface.metresPerPixel();
  const double distance = 2.5 * std::max(height, label.width * surface.metresPerPixel() / 2);
  LabelCamera c = turnedCamera(surface, {label.width / 2.0, label.height / 2.0}, turnRad, distance, {1, 1});
  c.K(0, 2) = c.K(1, 2) = 0;
  const cv::Vec3d centre = c.centre();
  double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
  const double step = std::max(1.0, std::max(label.width, label.height) / 64.0);
  for (double v = 0; v <= label.height; v += step)
    for (double u = 0; u <= label.width; u += step) {
      const cv::Point3d x = surface.point({u, v});
      const cv::Vec3d w = cv::normalize(cv::Vec3d(x.x, x.y, x.z) - centre);
      if (surface.normal({u, v}).dot(w) > -std::cos(75.0 * kPi / 180.0)) continue;
      const cv::Vec3d q = c.K * (c.R * cv::Vec3d(x.x, x.y, x.z) + c.t);
      x0 = std::min(x0, q[0] / q[2]), x1 = std::max(x1, q[0] / q[2]);
      y0 = std::min(y0, q[1] / q[2]), y1 = std::max(y1, q[1] / q[2]);
    }
  if (x1 < x0) return c;  // nothing faces it: an empty view
  constexpr double kMargin = 12;
  const double fit = std::min(1.0, (maxSide - 2 * kMargin) / std::max(x1 - x0, y1 - y0));
  c.K(0, 0) *= fit, c.K(1, 1) *= fit;
  c.K(0, 2) = kMargin - x0 * fit, c.K(1, 2) = kMargin - y0 * fit;
  c.size = cv::Size(std::min(maxSide, static_cast<int>(std::ceil((x1 - x0) * fit + 2 * kMargin))),
                    std::min(maxSide, static_cast<int>(std::ceil((y1 - y0) * fit + 2 * kMargin))));
  return c;
}

/// The turned views of TargetTrainerOptions::viewTurnDeg: keypoints and descriptors of each view
/// of the curved label, mapped back into `image`'s pixels, appended to `keypoints` /
/// `descriptors`.
void addTurnedViews(const cv::Mat& image, const LabelSurface& surface, const TargetTrainerOptions& options,
                    const DescribeFunction& describe, std::vector<Keypoint>& keypoints, cv::Mat& descriptors) {
  // Each view over the scales the label is to be found at (detectOverScales), a quarter of the budget.
  TargetTrainerOptions viewOptions = options;
  viewOptions.detector.maxKeypoints = std::max(1, options.detector.maxKeypoints / 4);
  const double turn = options.viewTurnDeg * kPi / 180.0;
  for (const double t : {0.0, -turn / 2, turn / 2, -turn, turn}) {
    const LabelCamera camera = framingCamera(surface, image.size(), t, std::max(image.cols, image.rows));
    if (camera.size.width < 32 || camera.size.height < 32) continue;
    cv::Mat facing;
    const cv::Mat view = renderLabel(image, surface, camera, nullptr, &facing);
    // Keypoints 8 pixels inside the label's outline and off its most foreshortened parts.
    cv::Mat inside = facing > std::cos(75.0 * kPi / 180.0);
    cv::erode(inside, inside, cv::Mat(), cv::Point(-1, -1), 8);
    std::vector<Keypoint> kept;
    for (const Keypoint& k : detectOverScales(view, viewOptions))
      if (inside.at<uchar>(cvRound(k.y), cvRound(k.x)) != 0) kept.push_back(k);
    if (kept.empty()) continue;
    const cv::Mat d = describe(view, kept);
    const cv::Vec3d centre = camera.centre();
    for (int i = 0; i < d.rows; ++i) {
      if (cv::norm(d.row(i)) < 0.5) continue;
      Keypoint k = kept[static_cast<size_t>(i)];
      const std::optional<cv::Point2d> p = surface.intersect(centre, camera.ray(k.x, k.y));
      const std::optional<cv::Point2d> px = surface.intersect(centre, camera.ray(k.x + 1, k.y));
      const std::optional<cv::Point2d> py = surface.intersect(centre, camera.ray(k.x, k.y + 1));
      if (!p || !px || !py) continue;
      // The view's local scale: label pixels per view pixel, the square root of the area ratio.
      const cv::Point2d a = *px - *p, b = *py - *p;
      k.scale = static_cast<float>(k.scale * std::sqrt(std::abs(a.x * b.y - a.y * b.x)));
      k.x = static_cast<float>(p->x);
      k.y = static_cast<float>(p->y);
      keypoints.push_back(k);
      descriptors.push_back(d.row(i));
    }
  }
}

}  // namespace

TargetModel trainTarget(const cv::Mat& image, const TargetTrainerOptions& options, const DescribeFunction& describe) {
  if (options.workingSize < 64)
    throw std::invalid_argument("trainTarget: workingSize " + std::to_string(options.workingSize) + " (expected >= 64)");
  if (!(options.widthMetres > 0.0) || !std::isfinite(options.widthMetres))
    throw std::invalid_argument("trainTarget: target width " + std::to_string(options.widthMetres) +
                                " m (expected a positive width in metres)");
  if (options.minDetectedSidePx < 0)
    throw std::invalid_argument("trainTarget: minDetectedSidePx " + std::to_string(options.minDetectedSidePx) +
                                " (expected >= 0)");
  if (!(options.viewTiltDeg >= 0 && options.viewTiltDeg < 80))
    throw std::invalid_argument("trainTarget: viewTiltDeg " + std::to_string(options.viewTiltDeg) +
                                " (expected degrees in [0, 80))");
  if (options.maxPatches < 0 || options.patchLevels < 1 || options.patchSpacing < 1 || options.patchMargin < 0)
    throw std::invalid_argument("trainTarget: patch options out of range (maxPatches >= 0, patchLevels >= 1, "
                                "patchSpacing >= 1, patchMargin >= 0)");
  if (!(options.viewTurnDeg >= 0 && options.viewTurnDeg <= 90))
    throw std::invalid_argument("trainTarget: viewTurnDeg " + std::to_string(options.viewTurnDeg) +
                                " (expected degrees in [0, 90])");
  const cv::Mat gray = toGray(image);
  validateTargetGeometry(options.geometry, options.widthMetres, gray.size(), "trainTarget");

  TargetModel model;
  const int longest = std::max(gray.cols, gray.rows);
  if (longest > options.workingSize) {
    model.originalScale = static_cast<double>(longest) / options.workingSize;
    const cv::Size size(std::max(1, static_cast<int>(std::lround(gray.cols / model.originalScale))),
                        std::max(1, static_cast<int>(std::lround(gray.rows / model.originalScale))));
    cv::resize(gray, model.image, size, 0, 0, cv::INTER_AREA);
  } else {
    model.image = gray.clone();
  }
  model.widthMetres = options.widthMetres;
  model.geometry = options.geometry;
  model.descriptorType = options.descriptorType;
  model.orientation = options.orientation;

  std::vector<Keypoint> keypoints = detectOverScales(model.image, options);
  cv::Mat descriptors = describe(model.image, keypoints);
  if (descriptors.rows != static_cast<int>(keypoints.size()) ||
      descriptors.cols != descriptorLength(options.descriptorType))
    throw std::logic_error("trainTarget: the describe function returned " + std::to_string(descriptors.rows) + "x" +
                           std::to_string(descriptors.cols) + " for " + std::to_string(keypoints.size()) +
                           " keypoints");
  // Keep the keypoints that have a descriptor (a uniform patch gives a zero row).
  cv::Mat kept(0, descriptors.cols, CV_32F);
  for (int i = 0; i < descriptors.rows; ++i) {
    if (cv::norm(descriptors.row(i)) < 0.5) continue;
    model.keypoints.push_back(keypoints[static_cast<size_t>(i)]);
    kept.push_back(descriptors.row(i));
  }
  model.descriptors = kept;
  size_t frontal = model.keypoints.size();
  if (options.viewTiltDeg > 0) addTiltedViews(model.image, options, describe, model.keypoints, model.descriptors);
  model.patches = selectPatches(model.image, options);
  if (model.geometry.curved()) {
    // The surface of the working image (the geometry was checked against the image above).
    const LabelSurface surface(model.geometry, model.widthMetres, model.image.size());
    // A sector label's image is its bounding box: what lies outside the sector is not printed.
    std::vector<Keypoint> onLabel;
    cv::Mat onLabelDescriptors(0, model.descriptors.cols, CV_32F);
    size_t onLabelFrontal = 0;
    for (size_t i = 0; i < model.keypoints.size(); ++i) {
      if (!surface.onLabel({model.keypoints[i].x, model.keypoints[i].y})) continue;
      onLabel.push_back(model.keypoints[i]);
      onLabelDescriptors.push_back(model.descriptors.row(static_cast<int>(i)));
      onLabelFrontal += i < frontal ? 1 : 0;
    }
    model.keypoints = std::move(onLabel);
    model.descriptors = onLabelDescriptors;
    frontal = onLabelFrontal;
    model.patches.erase(std::remove_if(model.patches.begin(), model.patches.end(),
                                       [&](const TrackingPatch& p) { return !surface.onLabel(p.position); }),
                        model.patches.end());
    if (options.viewTurnDeg > 0)
      addTurnedViews(model.image, surface, options, describe, model.keypoints, model.descriptors);
  }
  model.tiltedKeypoints = static_cast<int>(model.keypoints.size() - frontal);
  model.quality = rateTarget(model.image, model.keypoints, model.descriptors);
  return model;
}

}  // namespace nft::detection
