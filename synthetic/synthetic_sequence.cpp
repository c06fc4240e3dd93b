#include "synthetic/synthetic_sequence.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <stdexcept>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "synthetic/synthetic_render.h"
#include "tracker/camera_calibration.h"

namespace nft::replay {
namespace {

constexpr int kSurfaceScale = 3;        // the surface is 3× the target's size
constexpr int kPaperMarginPx = 24;      // white paper around the printed target, target pixels
constexpr int kPyramidLevels = 4;
constexpr double kExposureFrames = 0.5;  // shutter open for half a frame: the motion blur
constexpr int kMaxSubframes = 12;
constexpr int kMaxPresetSubframes = 40;
/// The bent page's ground truth: a kGtGrid × kGtGrid grid of target points over the whole target,
/// and at least kMinVisible of them inside the frame for the fit to use only those.
constexpr int kGtGrid = 21;
constexpr size_t kMinVisible = 8;
/// The bent page's map is exact every kMapStep frame pixels, bilinear in between: the map is smooth,
/// and the frames stay within 7 grey levels of those of an exact map at every pixel (measured on
/// four frames; the differences are remap's 1/32-pixel steps rounded the other way, at edges).
constexpr int kMapStep = 4;

}  // namespace

using synth::apply;
using synth::compositeLayer;
using synth::kPi;
using synth::loadImage;
using synth::smoothstep;
using synth::uniform;

/// One smooth random signal in [-1, 1] per degree of freedom: a sum of three sinusoids.
struct SyntheticSequence::Path {
  struct Signal {
    std::array<double, 3> amplitude{}, frequencyHz{}, phase{};
    double at(double seconds) const {
      double v = 0;
      for (size_t k = 0; k < 3; ++k) v += amplitude[k] * std::sin(2 * kPi * frequencyHz[k] * seconds + phase[k]);
      return v;
    }
  };
  enum { Distance, TiltX, TiltY, Roll, OffsetX, OffsetY, Gain, Offset, GradientStrength, GradientAngle, kSignals };
  std::array<Signal, kSignals> slow;
  std::array<Signal, 6> tremor;  // the first six degrees of freedom
  /// Time warp: the path's time at each integer frame (fast-motion bursts run it faster).
  std::vector<double> warpedTime;
  int frames = 0;

  Path(std::mt19937& gen, int frameCount) : frames(frameCount) {
    auto make = [&](double fLo, double fHi) {
      Signal s;
      double sum = 0;
      for (size_t k = 0; k < 3; ++k) {
        s.amplitude[k] = uniform(gen, 0.3, 1.0);
        s.frequencyHz[k] = uniform(gen, fLo, fHi);
        s.phase[k] = uniform(gen, 0, 2 * kPi);
        sum += s.amplitude[k];
      }
      for (double& a : s.amplitude) a /= sum;
      return s;
    };
    for (Signal& s : slow) s = make(0.03, 0.22);
    for (Signal& s : tremor) s = make(2.0, 5.0);
    // Speed 1, with two bursts of 6× speed (fast hand motion) at 45–50 % and 78–82 % of the video.
    warpedTime.resize(static_cast<size_t>(frameCount) + 2);
    double t = 0;
    for (size_t i = 0; i < warpedTime.size(); ++i) {
      warpedTime[i] = t;
      const double f = static_cast<double>(i) / std::max(1, frameCount);
      const bool burst = (f >= 0.45 && f < 0.50) || (f >= 0.78 && f < 0.82);
      t += burst ? 6.0 : 1.0;
    }
  }

  /// The warped time (frames) at fractional frame `frame`.
  double warp(double frame) const {
    const double clamped = std::clamp(frame, 0.0, static_cast<double>(warpedTime.size() - 2));
    const size_t i = static_cast<size_t>(clamped);
    const double a = clamped - static_cast<double>(i);
    return warpedTime[i] + a * (warpedTime[i + 1] - warpedTime[i]) + (frame - clamped);
  }
};

SyntheticSequence::SyntheticSequence(const SyntheticSequenceOptions& options) : options_(options) {
  if (options.frameSize.width < 64 || options.frameSize.height < 64)
    throw std::invalid_argument("synthetic sequence: frame size must be at least 64x64");
  if (options.frames < 1) throw std::invalid_argument("synthetic sequence: frames must be >= 1");
  if (!(options.targetWidthM > 0)) throw std::invalid_argument("synthetic sequence: target width must be > 0");
  if (!(options.noiseSigma >= 0)) throw std::invalid_argument("synthetic sequence: noise sigma must be >= 0");
  if (!(options.targetFraction >= 0 && options.targetFraction <= 1))
    throw std::invalid_argument("synthetic sequence: target fraction must be in [0, 1], got " +
                                std::to_string(options.targetFraction));
  if (options.targetFraction > 0 && options.preset == SyntheticPreset::Default)
    throw std::invalid_argument(
        "synthetic sequence: a target fraction needs a POT preset (the default path's surface, mirrored past its "
        "border, would show copies of the target)");

  target_ = loadImage(options.targetPath, "target");
  cv::Mat background = loadImage(options.backgroundPath, "background");

  // The surface: the background stretched over 3× the target's size, slightly blurred (a
  // table top out of the print's sharpness), the target on white paper in its middle.
  const cv::Size surfaceSize(target_.cols * kSurfaceScale, target_.rows * kSurfaceScale);
  cv::Mat surface;
  cv::resize(background, surface, surfaceSize, 0, 0, cv::INTER_LINEAR);
  cv::GaussianBlur(surface, surface, cv::Size(), 1.5);
  targetOrigin_ = {static_cast<double>(target_.cols), static_cast<double>(target_.rows)};
  const cv::Rect paper(target_.cols - kPaperMarginPx, target_.rows - kPaperMarginPx, target_.cols + 2 * kPaperMarginPx,
                       target_.rows + 2 * kPaperMarginPx);
  if (options.preset == SyntheticPreset::Default) {
    surface(paper).setTo(cv::Scalar(235, 235, 235));
    target_.copyTo(surface(cv::Rect(target_.cols, target_.rows, target_.cols, target_.rows)));
  } else {
    // The presets look far past the surface (out of view, steep tilts, far distances): the
    // background layer is mirrored at its borders (BORDER_REFLECT_101), the printed target is a
    // layer of its own drawn over it, so that no mirror image of the target ever shows.
    cv::Mat paperImage(paper.size(), CV_8UC3, cv::Scalar(235, 235, 235));
    target_.copyTo(paperImage(cv::Rect(kPaperMarginPx, kPaperMarginPx, target_.cols, target_.rows)));
    cv::buildPyramid(paperImage, paper_, kPyramidLevels - 1);
    paperOrigin_ = {static_cast<double>(paper.x), static_cast<double>(paper.y)};
    if (options.preset == SyntheticPreset::BentPage) bendRadiusM_ = kBentPageRadiusWidths * options.targetWidthM;
  }
  cv::buildPyramid(surface, surface_, kPyramidLevels - 1);

  K_ = tracker::defaultCalibration(options.frameSize).K;
  metresPerPixel_ = options.targetWidthM / target_.cols;
  if (options.targetFraction > 0) {  // the frontal target's area from kReferenceDistanceM, as a share
    const double f = K_(0, 0);
    const double w = f * options.targetWidthM / kReferenceDistanceM;
    const double h = w * target_.rows / target_.cols;
    distanceScale_ = std::sqrt(w * h / options.frameSize.area() / options.targetFraction);
  }
  std::mt19937 gen(options.seed);
  path_ = std::make_shared<const Path>(gen, options.frames);
  if (options.preset != SyntheticPreset::Default) {
    preset_.emplace(options.preset, options.seed, options.frameSize.width);
    if (options.preset == SyntheticPreset::Occlusion || options.preset == SyntheticPreset::Unconstrained) {
      // The occluder texture at its size on the target plane (target pixels, like the surface's
      // level 0), so that its pyramid levels pair with the surface's.
      const cv::Mat texture = loadImage(options.occluderPath, "occluder");
      cv::Mat sized;
      cv::resize(texture, sized, cv::Size(target_.cols, target_.rows * 3 / 2), 0, 0, cv::INTER_AREA);
      cv::buildPyramid(sized, occluder_, kPyramidLevels - 1);
    }
  }
}

std::optional<OccluderPlacement> SyntheticSequence::occluder(int index) const {
  return preset_ ? preset_->occluder(index) : std::nullopt;
}

void SyntheticSequence::drawLayers(double t, int level, cv::Mat& warped) const {
  const cv::Matx33d H = homographyAt(t);  // surface pixels → frame pixels
  if (bendRadiusM_ > 0) {
    drawBentPaper(t, level, warped);
  } else if (!paper_.empty()) {  // level pixel x ↔ paper pixel 2^level·x (cv::pyrDown)
    const size_t l = static_cast<size_t>(std::min(level, static_cast<int>(paper_.size()) - 1));
    const double sl = std::ldexp(1.0, static_cast<int>(l));
    const cv::Matx33d paperToSurface(sl, 0, paperOrigin_.x, 0, sl, paperOrigin_.y, 0, 0, 1);
    compositeLayer(paper_[l], H * paperToSurface, warped);
  }
  if (occluder_.empty()) return;
  const std::optional<OccluderPlacement> o = preset_->occluder(t);
  if (!o) return;
  // Occluder texture pixels → target pixels → surface pixels; its pyramid pairs with the surface's.
  const size_t l = static_cast<size_t>(std::min(level, static_cast<int>(occluder_.size()) - 1));
  const cv::Mat& texture = occluder_[l];
  const double sx = o->width * target_.cols / texture.cols, sy = o->height * target_.rows / texture.rows;
  const cv::Matx33d A(sx, 0, targetOrigin_.x + o->left * target_.cols, 0, sy, targetOrigin_.y + o->top * target_.rows,
                      0, 0, 1);
  compositeLayer(texture, H * A, warped);
}

SyntheticSequence::Dofs SyntheticSequence::dofsAt(double frame) const {
  if (preset_) {
    const CameraDofs c = preset_->camera(frame);
    const double deg = kPi / 180.0;
    return {c.distanceM, c.tiltXDeg * deg, c.tiltYDeg * deg, c.rollDeg * deg, c.offsetXPx, c.offsetYPx};
  }
  const Path& p = *path_;
  const double seconds = p.warp(frame) / fps();
  const double realSeconds = frame / fps();
  // The motion grows in over the first 1.5 s: the sequence starts with a calm frontal view.
  const double ramp = smoothstep(p.warp(frame) / 45.0);
  auto dof = [&](int k) { return ramp * p.slow[static_cast<size_t>(k)].at(seconds); };
  auto tremor = [&](int k) { return p.tremor[static_cast<size_t>(k)].at(realSeconds); };
  const double deg = kPi / 180.0;
  const double distance = 0.48 + 0.20 * dof(Path::Distance) + 0.002 * tremor(0);
  const double tiltX = (35.0 * dof(Path::TiltX) + 0.4 * tremor(1)) * deg;
  const double tiltY = (35.0 * dof(Path::TiltY) + 0.4 * tremor(2)) * deg;
  const double roll = (100.0 * dof(Path::Roll) + 0.4 * tremor(3)) * deg;
  const double offsetX = 110.0 * dof(Path::OffsetX) + 1.5 * tremor(4);
  const double offsetY = 70.0 * dof(Path::OffsetY) + 1.5 * tremor(5);
  return {distance, tiltX, tiltY, roll, offsetX, offsetY};
}

cv::Matx33d SyntheticSequence::homographyAt(double frame) const { return cameraHomography(dofsAt(frame)); }

SyntheticSequence::TargetPose SyntheticSequence::cameraPose(const Dofs& d) const {
  const double f = K_(0, 0);
  const double distance = d.distance * distanceScale_;
  // X_cam = R·X_target + t with the target's centre at (offsetX, offsetY)·distance/f, distance.
  const cv::Matx33d R = synth::rotationZXY(d.roll, d.tiltX, d.tiltY);
  const cv::Vec3d centre(0.5 * options_.targetWidthM, 0.5 * metresPerPixel_ * target_.rows, 0.0);
  const cv::Vec3d t = cv::Vec3d(d.offsetX * distance / f, d.offsetY * distance / f, distance) - R * centre;
  return {R, t};
}

SyntheticSequence::TargetPose SyntheticSequence::targetPose(int index) const { return cameraPose(dofsAt(index)); }

cv::Matx33d SyntheticSequence::cameraHomography(const Dofs& d) const {
  const auto [R, t] = cameraPose(d);
  const cv::Matx33d Rt(R(0, 0), R(0, 1), t[0], R(1, 0), R(1, 1), t[1], R(2, 0), R(2, 1), t[2]);
  // Surface pixels → target metres (origin at the target's top-left corner).
  const double m = metresPerPixel_;
  const cv::Matx33d S(m, 0, -targetOrigin_.x * m, 0, m, -targetOrigin_.y * m, 0, 0, 1);
  cv::Matx33d H = K_ * Rt * S;
  return H * (1.0 / H(2, 2));
}

cv::Vec3d SyntheticSequence::bentPoint(double u, double v) const {
  const double r = bendRadiusM_, centre = 0.5 * options_.targetWidthM;
  const double angle = (u * metresPerPixel_ - centre) / r;  // arc length / radius
  return {centre + r * std::sin(angle), v * metresPerPixel_, r * (1.0 - std::cos(angle))};
}

void SyntheticSequence::drawBentPaper(double t, int level, cv::Mat& warped) const {
  // Level pixel x ↔ paper pixel 2^level·x (cv::pyrDown) ↔ target pixel 2^level·x − margin.
  const size_t l = static_cast<size_t>(std::min(level, static_cast<int>(paper_.size()) - 1));
  const double sl = std::ldexp(1.0, static_cast<int>(l));
  const TargetPose pose = cameraPose(dofsAt(t));
  const double r = bendRadiusM_, centre = 0.5 * options_.targetWidthM, m = metresPerPixel_;

  // The paper's outline in the frame (its top and bottom edges are curves): the pixels to map.
  const double u0 = -kPaperMarginPx, u1 = target_.cols + kPaperMarginPx;
  const double v0 = -kPaperMarginPx, v1 = target_.rows + kPaperMarginPx;
  double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
  constexpr int kEdgeSamples = 32;
  for (int k = 0; k <= kEdgeSamples; ++k) {
    const double a = static_cast<double>(k) / kEdgeSamples;
    for (const cv::Point2d p : {cv::Point2d(u0 + a * (u1 - u0), v0), cv::Point2d(u0 + a * (u1 - u0), v1),
                                cv::Point2d(u0, v0 + a * (v1 - v0)), cv::Point2d(u1, v0 + a * (v1 - v0))}) {
      const cv::Vec3d q = K_ * (pose.R * bentPoint(p.x, p.y) + pose.t);
      if (!(q[2] > 0)) return;  // behind the camera (the preset never looks that way)
      x0 = std::min(x0, q[0] / q[2]), y0 = std::min(y0, q[1] / q[2]);
      x1 = std::max(x1, q[0] / q[2]), y1 = std::max(y1, q[1] / q[2]);
    }
  }
  const cv::Rect frameRect(0, 0, warped.cols, warped.rows);
  if (!(x1 >= -2 && y1 >= -2 && x0 <= warped.cols + 2 && y0 <= warped.rows + 2)) return;
  const cv::Rect roi = cv::Rect(cv::Point(static_cast<int>(std::floor(std::max(x0, -2.0))) - 1,
                                          static_cast<int>(std::floor(std::max(y0, -2.0))) - 1),
                                cv::Point(static_cast<int>(std::ceil(std::min(x1, warped.cols + 2.0))) + 2,
                                          static_cast<int>(std::ceil(std::min(y1, warped.rows + 2.0))) + 2)) &
                       frameRect;
  if (roi.empty()) return;

  // A frame pixel's ray, in the target's frame, meets the cylinder (x − w/2)² + (z − r)² = r²;
  // the page is its near half (z < r), the first such intersection in front of the camera.
  const cv::Matx33d Rt = pose.R.t();
  const cv::Vec3d origin = -(Rt * pose.t);
  const cv::Matx33d rayOf = Rt * K_.inv();  // frame pixel (x, y, 1) → ray direction
  const double a = origin[0] - centre, b = origin[2] - r, c = a * a + b * b - r * r;
  const auto paperAt = [&](double x, double y, float& px, float& py) {
    const cv::Vec3d d = rayOf * cv::Vec3d(x, y, 1.0);
    const double A = d[0] * d[0] + d[2] * d[2], B = 2 * (a * d[0] + b * d[2]);
    const double disc = B * B - 4 * A * c;
    if (!(A > 0) || disc < 0) return false;
    const double q = std::sqrt(disc);
    for (const double lambda : {(-B - q) / (2 * A), (-B + q) / (2 * A)}) {
      const double X = origin[0] + lambda * d[0], Z = origin[2] + lambda * d[2];
      if (!(lambda > 0) || !(Z < r)) continue;
      const double u = (centre + r * std::atan2(X - centre, r - Z)) / m, v = (origin[1] + lambda * d[1]) / m;
      px = static_cast<float>((u + kPaperMarginPx) / sl);
      py = static_cast<float>((v + kPaperMarginPx) / sl);
      return true;
    }
    return false;
  };
  constexpr float kNowhere = -1e5f;  // a pixel whose ray misses the page: outside the layer
  const int nx = (roi.width - 1) / kMapStep + 2, ny = (roi.height - 1) / kMapStep + 2;
  cv::Mat nodeX(ny, nx, CV_32F), nodeY(ny, nx, CV_32F), nodeHit(ny, nx, CV_8U);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      nodeHit.at<uchar>(j, i) = paperAt(roi.x + i * kMapStep, roi.y + j * kMapStep, nodeX.at<float>(j, i),
                                        nodeY.at<float>(j, i))
                                    ? 1
                                    : 0;
  cv::Mat mapX(roi.size(), CV_32F), mapY(roi.size(), CV_32F);
  for (int y = 0; y < roi.height; ++y) {
    const int j = y / kMapStep;
    const float fy = static_cast<float>(y % kMapStep) / kMapStep;
    const float *topX = nodeX.ptr<float>(j), *bottomX = nodeX.ptr<float>(j + 1);
    const float *topY = nodeY.ptr<float>(j), *bottomY = nodeY.ptr<float>(j + 1);
    const uchar *topHit = nodeHit.ptr<uchar>(j), *bottomHit = nodeHit.ptr<uchar>(j + 1);
    float* outX = mapX.ptr<float>(y);
    float* outY = mapY.ptr<float>(y);
    for (int x = 0; x < roi.width; ++x) {
      const int i = x / kMapStep;
      const float fx = static_cast<float>(x % kMapStep) / kMapStep;
      if (topHit[i] && topHit[i + 1] && bottomHit[i] && bottomHit[i + 1]) {
        outX[x] = (1 - fy) * ((1 - fx) * topX[i] + fx * topX[i + 1]) + fy * ((1 - fx) * bottomX[i] + fx * bottomX[i + 1]);
        outY[x] = (1 - fy) * ((1 - fx) * topY[i] + fx * topY[i + 1]) + fy * ((1 - fx) * bottomY[i] + fx * bottomY[i + 1]);
      } else if (!paperAt(roi.x + x, roi.y + y, outX[x], outY[x])) {  // a cell at the page's silhouette
        outX[x] = outY[x] = kNowhere;
      }
    }
  }
  synth::compositeRemapped(paper_[l], mapX, mapY, roi.tl(), warped);
}

cv::Matx33d SyntheticSequence::visibleHomography(int index) const {
  std::vector<cv::Point2f> grid;
  for (int j = 0; j < kGtGrid; ++j)
    for (int i = 0; i < kGtGrid; ++i)
      grid.emplace_back(static_cast<float>(target_.cols * i / (kGtGrid - 1.0)),
                        static_cast<float>(target_.rows * j / (kGtGrid - 1.0)));
  const std::vector<cv::Point2f> at = project(index, grid);
  std::vector<cv::Point2f> from, to;
  std::vector<bool> column(kGtGrid, false), row(kGtGrid, false);
  const float width = static_cast<float>(options_.frameSize.width), height = static_cast<float>(options_.frameSize.height);
  for (size_t k = 0; k < grid.size(); ++k)
    if (at[k].x >= 0 && at[k].y >= 0 && at[k].x < width && at[k].y < height) {
      from.push_back(grid[k]);
      to.push_back(at[k]);
      column[k % kGtGrid] = row[k / kGtGrid] = true;
    }
  // Two rows and two columns at least: points on one line do not fix a homography.
  if (from.size() < kMinVisible || std::count(column.begin(), column.end(), true) < 2 ||
      std::count(row.begin(), row.end(), true) < 2) {
    from = grid;
    to = at;
  }
  const cv::Mat H = cv::findHomography(from, to, 0);  // least squares, refined (Levenberg–Marquardt)
  if (H.empty())
    throw std::logic_error("synthetic sequence: no homography fits the bent page's points in frame " +
                           std::to_string(index));
  const cv::Matx33d Hm(H);
  return Hm * (1.0 / Hm(2, 2));
}

std::vector<cv::Point2f> SyntheticSequence::project(int index, const std::vector<cv::Point2f>& targetPoints) const {
  std::vector<cv::Point2f> out;
  out.reserve(targetPoints.size());
  if (bendRadiusM_ > 0) {
    const TargetPose pose = targetPose(index);
    for (const cv::Point2f& p : targetPoints) {
      const cv::Vec3d q = K_ * (pose.R * bentPoint(p.x, p.y) + pose.t);
      out.emplace_back(static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2]));
    }
  } else {
    const cv::Matx33d H = homography(index);
    for (const cv::Point2f& p : targetPoints) out.push_back(apply(H, p.x, p.y));
  }
  return out;
}

cv::Matx33d SyntheticSequence::homography(int index) const {
  if (bendRadiusM_ > 0) return visibleHomography(index);
  const cv::Matx33d T(1, 0, targetOrigin_.x, 0, 1, targetOrigin_.y, 0, 0, 1);  // target → surface pixels
  cv::Matx33d H = homographyAt(index) * T;
  return H * (1.0 / H(2, 2));
}

QuadCorners SyntheticSequence::corners(int index) const {
  const cv::Matx33d H = homography(index);
  const double w = target_.cols, h = target_.rows;
  return {apply(H, 0, 0), apply(H, w, 0), apply(H, w, h), apply(H, 0, h)};
}

std::vector<QuadCorners> SyntheticSequence::groundTruth() const {
  std::vector<QuadCorners> gt;
  gt.reserve(static_cast<size_t>(frameCount()));
  for (int i = 0; i < frameCount(); ++i) gt.push_back(corners(i));
  return gt;
}

cv::Mat SyntheticSequence::render(int index) const {
  if (index < 0 || index >= frameCount())
    throw std::out_of_range("synthetic sequence: frame " + std::to_string(index) + " outside [0, " +
                            std::to_string(frameCount()) + ")");
  const cv::Size size = options_.frameSize;
  const double t0 = index - kExposureFrames / 2, t1 = index + kExposureFrames / 2;

  // Sub-frames: enough that the target moves at most about 1 px between two of them.
  const cv::Matx33d T(1, 0, targetOrigin_.x, 0, 1, targetOrigin_.y, 0, 0, 1);
  double motion = 0;
  const cv::Matx33d H0 = homographyAt(t0) * T, H1 = homographyAt(t1) * T;
  for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(target_.cols, 0), cv::Point2d(target_.cols, target_.rows),
                              cv::Point2d(0, target_.rows)})
    motion = std::max(motion, cv::norm(apply(H0, c.x, c.y) - apply(H1, c.x, c.y)));
  if (preset_) {  // the occluder slides over the target: its own streak counts too
    const std::optional<OccluderPlacement> o0 = preset_->occluder(t0), o1 = preset_->occluder(t1);
    if (o0 && o1)
      for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(1, 0), cv::Point2d(1, 1), cv::Point2d(0, 1)}) {
        const cv::Point2d a((o0->left + c.x * o0->width) * target_.cols, (o0->top + c.y * o0->height) * target_.rows);
        const cv::Point2d b((o1->left + c.x * o1->width) * target_.cols, (o1->top + c.y * o1->height) * target_.rows);
        motion = std::max(motion, cv::norm(apply(H0, a.x, a.y) - apply(H1, b.x, b.y)));
      }
  }
  // The presets move up to 80 px per frame (a 40 px streak): up to 1.5 px per sub-frame there.
  const int subframes = preset_ ? std::clamp(static_cast<int>(std::ceil(motion / 1.5)), 1, kMaxPresetSubframes)
                                : std::clamp(static_cast<int>(std::ceil(motion)), 1, kMaxSubframes);

  cv::Mat sum = cv::Mat::zeros(size, CV_32FC3), warped;
  for (int k = 0; k < subframes; ++k) {
    const double t = subframes == 1 ? index : t0 + (t1 - t0) * (k + 0.5) / subframes;
    const cv::Matx33d H = homographyAt(t);
    // Pyramid level from the local scale at the target's centre: about one surface texel per
    // frame pixel, so warpPerspective's bilinear taps do not alias.
    const cv::Point2d c(targetOrigin_.x + target_.cols / 2.0, targetOrigin_.y + target_.rows / 2.0);
    const int level = synth::pyramidLevel(H, c, static_cast<int>(surface_.size()));
    const double s = std::ldexp(1.0, level);  // level pixel x ↔ surface pixel s·x (cv::pyrDown)
    const cv::Matx33d Hl = H * cv::Matx33d(s, 0, 0, 0, s, 0, 0, 0, 1);
    cv::warpPerspective(surface_[static_cast<size_t>(level)], warped, Hl, size, cv::INTER_LINEAR,
                        cv::BORDER_REFLECT_101);
    if (preset_) drawLayers(t, level, warped);
    cv::accumulate(warped, sum);
  }
  sum *= 1.0 / subframes;

  // Lighting: gain, offset and a linear gradient across the frame, all slowly changing.
  const Path& path = *path_;
  const double seconds = index / fps();
  const double gain = 1.0 + 0.22 * path.slow[Path::Gain].at(seconds);
  const double offset = 18.0 * path.slow[Path::Offset].at(seconds);
  const double strength = 0.30 * path.slow[Path::GradientStrength].at(seconds);
  const double angle = kPi * path.slow[Path::GradientAngle].at(seconds);
  synth::applyLighting(sum, gain, offset, strength, angle);
  synth::addSensorNoise(sum, options_.noiseSigma, options_.seed, index);
  cv::Mat frame;
  sum.convertTo(frame, CV_8UC3);  // saturating
  return frame;
}

}  // namespace nft::replay
