#include "synthetic/curved_sequence.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "synthetic/synthetic_render.h"
#include "tracker/camera_calibration.h"

namespace nft::replay {
namespace {

using synth::kPi;
constexpr double kDeg = kPi / 180.0;
constexpr int kPyramidLevels = 4;
constexpr double kExposureFrames = 0.5;  // as the planar presets: the shutter open half a frame
constexpr int kMaxSubframes = 16;
constexpr double kSubframeStepPx = 1.5;  // a sub-frame per 1.5 px of the fastest label point's motion
/// The presets' printed target is 0.2 m wide: a curved object as large looks as large.
constexpr double kPresetTargetM = 0.2;
constexpr double kWallDistanceSizes = 2.5;  // the wall behind the object, in object sizes
constexpr double kWallSpanSizes = 8.0;      // the wall texture's width, in object sizes (mirrored past it)
constexpr double kCupTopRadiusM = 0.045, kCupBottomRadiusM = 0.03;
// The body's colours (BGR) where no label is: bare metal outside, the darker inside.
const cv::Vec3f kBare(188, 190, 196), kInside(64, 66, 70);

struct NamedShape {
  CurvedShape shape;
  const char* name;
};
constexpr NamedShape kShapes[] = {{CurvedShape::Can, "can"}, {CurvedShape::Bottle, "bottle"}, {CurvedShape::Cup, "cup"}};

/// The options checked before anything is loaded.
const CurvedSequenceOptions& checked(const CurvedSequenceOptions& o) {
  const auto bad = [](const std::string& what) { throw std::invalid_argument("curved sequence: " + what); };
  if (o.frameSize.width < 64 || o.frameSize.height < 64) bad("frame size must be at least 64x64");
  if (o.frames < 1) bad("frames must be >= 1");
  if (!(o.coverageDeg >= 90 && o.coverageDeg <= 360))
    bad("coverage " + std::to_string(o.coverageDeg) + " degrees (expected 90 to 360)");
  if (!(o.noiseSigma >= 0)) bad("noise sigma must be >= 0");
  if (!(o.radiusM >= 0 && std::isfinite(o.radiusM))) bad("radius " + std::to_string(o.radiusM) + " m (expected > 0)");
  if (o.shape == CurvedShape::Cup && o.radiusM > 0)
    bad("a cup is a cone of its own radii (4.5 and 3 cm): give no radius");
  const std::optional<SyntheticPreset> preset = parseSyntheticPreset(o.motion);
  const bool pot = preset && std::find(potPresets().begin(), potPresets().end(), *preset) != potPresets().end();
  if (o.motion != "turn" && !pot) bad("unknown motion '" + o.motion + "' (expected one of " + curvedMotionNames() + ")");
  return o;
}

double radiusOf(const CurvedSequenceOptions& o) {
  if (o.radiusM > 0) return o.radiusM;
  return o.shape == CurvedShape::Bottle ? 0.06 : o.shape == CurvedShape::Cup ? kCupBottomRadiusM : 0.033;
}

/// The label's width: its arc about the axis (the cup's at its bottom edge).
double labelWidth(const CurvedSequenceOptions& o) { return o.coverageDeg * kDeg * radiusOf(o); }

detection::TargetGeometry geometryOf(const CurvedSequenceOptions& o, cv::Size labelSize) {
  detection::TargetGeometry g;
  if (o.shape == CurvedShape::Cup) {
    g.kind = detection::GeometryKind::Cone;
    g.coneLabel = detection::ConeLabel::Rectangle;
    g.topRadiusM = kCupTopRadiusM;
    g.bottomRadiusM = kCupBottomRadiusM;
    g.sideLengthM = detection::labelHeightMetres(labelWidth(o), labelSize);
  } else {
    g.kind = detection::GeometryKind::Cylinder;
    g.radiusM = radiusOf(o);
  }
  return g;
}

cv::Vec3d vec(const cv::Point3d& p) { return {p.x, p.y, p.z}; }

}  // namespace

std::string toString(CurvedShape shape) {
  for (const NamedShape& n : kShapes)
    if (n.shape == shape) return n.name;
  return "?";
}

std::optional<CurvedShape> parseCurvedShape(const std::string& name) {
  for (const NamedShape& n : kShapes)
    if (name == n.name) return n.shape;
  return std::nullopt;
}

std::string curvedMotionNames() {
  std::string names;
  for (const SyntheticPreset p : potPresets()) names += toString(p) + ", ";
  return names + "turn";
}

CurvedSequence::CurvedSequence(const CurvedSequenceOptions& options)
    : options_(checked(options)),
      label_(synth::loadImage(options.labelPath, "label")),
      labelWidthM_(labelWidth(options)),
      surface_(geometryOf(options, label_.size()), labelWidthM_, label_.size()) {
  K_ = tracker::defaultCalibration(options.frameSize).K;
  const detection::TargetGeometry& g = surface_.geometry();
  const double maxRadius = g.kind == detection::GeometryKind::Cone ? std::max(g.topRadiusM, g.bottomRadiusM) : g.radiusM;
  objectSizeM_ = std::max(detection::labelHeightMetres(labelWidthM_, label_.size()), 2 * maxRadius);
  distanceScale_ = objectSizeM_ / kPresetTargetM;
  if (options.motion == "turn") {
    turnAmplitudeRad_ = std::min(kPi, (options.coverageDeg / 2 + 110) * kDeg);
  } else {
    path_.emplace(*parseSyntheticPreset(options.motion), options.seed, options.frameSize.width);
    turnAmplitudeRad_ = 30 * kDeg;
  }
  std::mt19937 gen(options.seed + 1);  // raw output: fixed by the standard
  for (double& p : phase_) p = 2 * kPi * synth::uniform(gen);

  cv::Mat wall = synth::loadImage(options.backgroundPath, "background");
  cv::GaussianBlur(wall, wall, cv::Size(), 1.5);
  cv::buildPyramid(wall, wall_, kPyramidLevels - 1);
  wallMetresPerPixel_ = kWallSpanSizes * objectSizeM_ / wall.cols;
  wallZ_ = surface_.axisPoint().z + kWallDistanceSizes * objectSizeM_;
  if (path_ && (path_->preset() == SyntheticPreset::Occlusion || path_->preset() == SyntheticPreset::Unconstrained)) {
    const cv::Mat texture = synth::loadImage(options.occluderPath, "occluder");
    cv::resize(texture, occluderTexture_, cv::Size(160, 240), 0, 0, cv::INTER_AREA);
  }
}

double CurvedSequence::turnAt(double t) const {
  if (!path_)  // from facing, out to one side until the label is gone, back, out to the other side
    return turnAmplitudeRad_ * synth::smoothstep(t / 10.0) * std::sin(2 * kPi * t / 240.0);
  return turnAmplitudeRad_ * synth::smoothstep(t / 20.0) * std::sin(2 * kPi * t / 170.0 + phase_[0]);
}

double CurvedSequence::turnDeg(int index) const { return turnAt(index) / kDeg; }

SyntheticSequence::TargetPose CurvedSequence::scenePoseAt(double t) const {
  CameraDofs c;
  if (path_) {
    c = path_->camera(t);
  } else {  // the turn's own: a calm hand-held camera
    const double r = synth::smoothstep(t / 20.0), px = options_.frameSize.width / 640.0;
    const auto wave = [&](double a, double period, int k) { return r * a * std::sin(2 * kPi * t / period + phase_[k]); };
    c.distanceM = 0.45 + wave(0.04, 150, 1);
    c.tiltXDeg = wave(10, 130, 2);
    c.tiltYDeg = wave(8, 110, 3);
    c.rollDeg = wave(10, 140, 1);
    c.offsetXPx = px * wave(30, 120, 2);
    c.offsetYPx = px * wave(20, 100, 3);
  }
  // The preset's camera about the label's middle point (which stays the object's front whatever its turn).
  const double f = K_(0, 0), distance = c.distanceM * distanceScale_;
  const cv::Matx33d R = synth::rotationZXY(c.rollDeg * kDeg, c.tiltXDeg * kDeg, c.tiltYDeg * kDeg);
  const cv::Vec3d centre = vec(surface_.point({label_.cols / 2.0, label_.rows / 2.0}));
  const cv::Vec3d v(c.offsetXPx * distance / f, c.offsetYPx * distance / f, distance);
  return {R, v - R * centre};
}

SyntheticSequence::TargetPose CurvedSequence::poseAt(double t) const {
  // The object turned about its axis (a cylinder or cone onto itself) in the scene.
  const SyntheticSequence::TargetPose scene = scenePoseAt(t);
  const cv::Vec3d a = vec(surface_.axisPoint());
  cv::Matx33d turn;
  cv::Rodrigues(surface_.axisDirection() * turnAt(t), turn);  // the label's point at φ = turn comes to the front
  return {scene.R * turn, scene.R * (a - turn * a) + scene.t};
}

SyntheticSequence::TargetPose CurvedSequence::targetPose(int index) const { return poseAt(index); }

std::optional<OccluderPlacement> CurvedSequence::occluder(int index) const {
  if (!path_ || occluderTexture_.empty()) return std::nullopt;
  return path_->occluder(index);
}

std::vector<cv::Point2f> CurvedSequence::project(int index, const std::vector<cv::Point2f>& labelPixels) const {
  const SyntheticSequence::TargetPose pose = poseAt(index);
  std::vector<cv::Point2f> out;
  out.reserve(labelPixels.size());
  for (const cv::Point2f& p : labelPixels) {
    const cv::Vec3d q = K_ * (pose.R * vec(surface_.point(p)) + pose.t);
    out.emplace_back(static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2]));
  }
  return out;
}

bool CurvedSequence::visible(int index, cv::Point2f p, double maxAngleDeg) const {
  if (!surface_.onLabel(p)) return false;
  const SyntheticSequence::TargetPose pose = poseAt(index);
  const cv::Vec3d x = vec(surface_.point(p)), centre = -(pose.R.t() * pose.t);
  // Its back to the camera, or seen more obliquely than asked.
  if (!(cv::normalize(centre - x).dot(surface_.normal(p)) > std::cos(std::min(maxAngleDeg, 90.0) * kDeg))) return false;
  const cv::Vec3d q = K_ * (pose.R * x + pose.t);
  if (!(q[2] > 0)) return false;
  const double u = q[0] / q[2], v = q[1] / q[2];
  return u >= 0 && v >= 0 && u < options_.frameSize.width && v < options_.frameSize.height;
}

void CurvedSequence::drawWall(const SyntheticSequence::TargetPose& pose, cv::Mat& frame) const {
  // Wall texture pixel (u, v) ↔ (x0 + u·m, y0 + v·m, wallZ_), its centre behind the label's middle.
  const double m = wallMetresPerPixel_;
  const cv::Vec3d origin(labelWidthM_ / 2 - m * wall_[0].cols / 2, label_.rows * surface_.metresPerPixel() / 2 -
                                                                        m * wall_[0].rows / 2,
                         wallZ_);
  const auto homography = [&](double scale) {
    const cv::Vec3d o = pose.R * origin + pose.t;
    const cv::Matx33d Rt(pose.R(0, 0) * scale, pose.R(0, 1) * scale, o[0], pose.R(1, 0) * scale, pose.R(1, 1) * scale,
                         o[1], pose.R(2, 0) * scale, pose.R(2, 1) * scale, o[2]);
    return K_ * Rt;
  };
  const cv::Point2d middle(wall_[0].cols / 2.0, wall_[0].rows / 2.0);
  const int level = synth::pyramidLevel(homography(m), middle, static_cast<int>(wall_.size()));
  cv::warpPerspective(wall_[static_cast<size_t>(level)], frame, homography(m * std::ldexp(1.0, level)),
                      options_.frameSize, cv::INTER_LINEAR, cv::BORDER_REFLECT_101);
}

void CurvedSequence::drawObject(const SyntheticSequence::TargetPose& pose, cv::Mat& frame) const {
  // The pixels to cast: the box of the band's outline (its edges all round and its sides).
  const cv::Vec2d top = surface_.slantAngle({label_.cols / 2.0, 0}), bottom = surface_.slantAngle({label_.cols / 2.0,
                                                                                                     double(label_.rows)});
  double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
  constexpr int kSamples = 48;
  for (int k = 0; k <= kSamples; ++k) {
    const double phi = -kPi + 2 * kPi * k / kSamples;
    for (const double t : {top[0], bottom[0]}) {
      const cv::Vec3d q = K_ * (pose.R * vec(surface_.point(surface_.pixelAt(t, phi))) + pose.t);
      if (!(q[2] > 0)) return;  // the camera inside the body's reach (the presets never go there)
      x0 = std::min(x0, q[0] / q[2]), y0 = std::min(y0, q[1] / q[2]);
      x1 = std::max(x1, q[0] / q[2]), y1 = std::max(y1, q[1] / q[2]);
    }
  }
  const cv::Rect roi = cv::Rect(cv::Point(static_cast<int>(std::floor(std::max(x0, -4.0))) - 2,
                                          static_cast<int>(std::floor(std::max(y0, -4.0))) - 2),
                                cv::Point(static_cast<int>(std::ceil(std::min(x1, frame.cols + 4.0))) + 3,
                                          static_cast<int>(std::ceil(std::min(y1, frame.rows + 4.0))) + 3)) &
                       cv::Rect(0, 0, frame.cols, frame.rows);
  if (roi.empty()) return;
  const cv::Matx33d rayOf = pose.R.t() * K_.inv();  // frame pixel (x, y, 1) → ray direction
  const cv::Vec3d centre = -(pose.R.t() * pose.t);
  const cv::Vec3d light = cv::normalize(cv::Vec3d(-0.4, -0.5, -1.0));  // towards the light, fixed to the object
  cv::Mat mapX(roi.size(), CV_32F, cv::Scalar(-1e4)), mapY(roi.size(), CV_32F, cv::Scalar(-1e4));
  cv::Mat shade(roi.size(), CV_32F, cv::Scalar(0));
  cv::Mat kind(roi.size(), CV_8U, cv::Scalar(0));  // 0 nothing, 1 label, 2 bare outside, 3 inside
  cv::parallel_for_(cv::Range(0, roi.height), [&](const cv::Range& rows) {
    for (int y = rows.start; y < rows.end; ++y)
      for (int x = 0; x < roi.width; ++x) {
        const cv::Vec3d d = rayOf * cv::Vec3d(roi.x + x, roi.y + y, 1.0);
        const std::optional<detection::LabelSurface::Hit> hit = surface_.castRay(centre, d);
        if (!hit) continue;
        const double lit = surface_.normal(hit->pixel).dot(light);
        shade.at<float>(y, x) = static_cast<float>(hit->outside ? 0.6 + 0.4 * std::max(0.0, lit) : 0.5 + 0.3 * std::abs(lit));
        kind.at<uchar>(y, x) = !hit->outside ? 3 : hit->onLabel ? 1 : 2;
        if (hit->outside && hit->onLabel) {
          mapX.at<float>(y, x) = static_cast<float>(hit->pixel.x);
          mapY.at<float>(y, x) = static_cast<float>(hit->pixel.y);
        }
      }
  });
  cv::Mat colour;
  cv::remap(label_, colour, mapX, mapY, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
  for (int y = 0; y < roi.height; ++y) {
    cv::Vec3b* out = frame.ptr<cv::Vec3b>(roi.y + y) + roi.x;
    const cv::Vec3b* in = colour.ptr<cv::Vec3b>(y);
    for (int x = 0; x < roi.width; ++x) {
      const uchar k = kind.at<uchar>(y, x);
      if (k == 0) continue;
      const cv::Vec3f base = k == 1 ? cv::Vec3f(in[x]) : k == 2 ? kBare : kInside;
      const float s = shade.at<float>(y, x);
      out[x] = cv::Vec3b(cv::saturate_cast<uchar>(base[0] * s), cv::saturate_cast<uchar>(base[1] * s),
                         cv::saturate_cast<uchar>(base[2] * s));
    }
  }
}

void CurvedSequence::drawOccluder(double t, const SyntheticSequence::TargetPose& pose, cv::Mat& out) const {
  if (!path_ || occluderTexture_.empty()) return;
  const std::optional<OccluderPlacement> o = path_->occluder(t);
  if (!o) return;
  // The object's silhouette at its middle, on a plane just in front of it: x across 2 radii about
  // the middle column, y from the band's top to its bottom edge there.
  const double middle = label_.cols / 2.0;
  const cv::Point3d topPoint = surface_.point({middle, 0}), bottomPoint = surface_.point({middle, double(label_.rows)});
  const detection::TargetGeometry& g = surface_.geometry();
  const double radius = g.kind == detection::GeometryKind::Cone ? std::max(g.topRadiusM, g.bottomRadiusM) : g.radiusM;
  const double spanX = 2 * radius, spanY = bottomPoint.y - topPoint.y, z = -0.1 * objectSizeM_;
  const cv::Vec3d origin(labelWidthM_ / 2 - radius + o->left * spanX, topPoint.y + o->top * spanY, z);
  const double sx = o->width * spanX / occluderTexture_.cols, sy = o->height * spanY / occluderTexture_.rows;
  const cv::Vec3d q = pose.R * origin + pose.t;
  const cv::Matx33d Rt(pose.R(0, 0) * sx, pose.R(0, 1) * sy, q[0], pose.R(1, 0) * sx, pose.R(1, 1) * sy, q[1],
                       pose.R(2, 0) * sx, pose.R(2, 1) * sy, q[2]);
  synth::compositeLayer(occluderTexture_, K_ * Rt, out);
}

cv::Mat CurvedSequence::render(int index) const {
  if (index < 0 || index >= options_.frames)
    throw std::out_of_range("curved sequence: frame " + std::to_string(index) + " out of [0, " +
                            std::to_string(options_.frames) + ")");
  // Sub-frames enough that the fastest of a 5 × 5 grid of label points moves <= 1.5 px between them.
  const double t0 = index - kExposureFrames / 2, t1 = index + kExposureFrames / 2;
  std::vector<cv::Point2f> grid;
  for (int i = 0; i <= 4; ++i)
    for (int j = 0; j <= 4; ++j) grid.emplace_back(static_cast<float>(label_.cols * i) / 4, static_cast<float>(label_.rows * j) / 4);
  const auto projectAt = [&](double t) {
    const SyntheticSequence::TargetPose pose = poseAt(t);
    std::vector<cv::Point2f> out;
    for (const cv::Point2f& p : grid) {
      const cv::Vec3d q = K_ * (pose.R * vec(surface_.point(p)) + pose.t);
      out.emplace_back(static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2]));
    }
    return out;
  };
  const std::vector<cv::Point2f> a = projectAt(t0), b = projectAt(t1);
  double motion = 0;
  for (size_t i = 0; i < a.size(); ++i) motion = std::max(motion, cv::norm(a[i] - b[i]));
  const int subframes = std::clamp(static_cast<int>(std::ceil(motion / kSubframeStepPx)), 1, kMaxSubframes);

  cv::Mat sum(options_.frameSize, CV_32FC3, cv::Scalar::all(0)), layer;
  for (int k = 0; k < subframes; ++k) {
    const double t = subframes == 1 ? index : t0 + (t1 - t0) * (k + 0.5) / subframes;
    const SyntheticSequence::TargetPose scene = scenePoseAt(t);
    drawWall(scene, layer);
    drawObject(poseAt(t), layer);
    drawOccluder(t, scene, layer);
    cv::accumulate(layer, sum);
  }
  sum *= 1.0 / subframes;
  const double seconds = index / fps();
  const auto slow = [&](int k, double periodS) { return std::sin(2 * kPi * seconds / periodS + phase_[k]); };
  synth::applyLighting(sum, 1.0 + 0.15 * slow(1, 9.0), 12.0 * slow(2, 7.0), 0.2 * slow(3, 11.0), kPi * slow(0, 13.0));
  synth::addSensorNoise(sum, options_.noiseSigma, options_.seed, index);
  cv::Mat frame;
  sum.convertTo(frame, CV_8UC3);
  return frame;
}

}  // namespace nft::replay
