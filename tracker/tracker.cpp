#include "tracker/tracker.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "gpu/capabilities.h"
#include "tracker/curved_detection.h"
#include "tracker/curved_tracking_lane.h"
#include "tracker/label_outline.h"

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;

/// Weight of each frame's measured exposure in the running estimate: about the last 3 frames
/// with fast motion decide it.
constexpr double kExposureLearningRate = 0.3;
/// The exposure is measured on every kExposureEvery-th frame (a camera's exposure changes
/// slowly), and on every frame where the target's corners moved at least kFastSpeedPx in the
/// last frame. Measuring on every frame costs cmu_book's slow pan 3 % of the tracking lane's time;
/// measuring every 3rd frame only drops the unconstrained preset from 88 % to 76 % within 5 px.
constexpr long long kExposureEvery = 4;
constexpr double kFastSpeedPx = 16.0;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

/// Tracker::track's size check, for a frame or the level 0 of a caller's pyramid.
void checkFrameSize(cv::Size given, cv::Size expected) {
  if (given != expected)
    throw std::invalid_argument("Tracker::track: frame size " + sizeText(given) +
                                " differs from the tracker's frame size " + sizeText(expected) +
                                " (resize frames to it, or make a Tracker for the new size)");
}

void addDetection(DetectionTimings& sum, const DetectionTimings& t) {
  sum.detect += t.detect;
  sum.describe += t.describe;
  sum.match += t.match;
  sum.ransac += t.ransac;
  sum.pose += t.pose;
}

void add(TrackingTimings& sum, const TrackingTimings& t) {
  sum.pyramid += t.pyramid;
  sum.coarse += t.coarse;
  sum.fine += t.fine;
  sum.pose += t.pose;
}

}  // namespace

std::optional<cv::Rect> detectionRegion(const cv::Matx33d& H, cv::Size targetSize, cv::Size frameSize,
                                        double margin) {
  cv::Point2d c[4];
  projectTargetCorners(H, targetSize, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (const cv::Point2d& p : c) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return std::nullopt;
    x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
  }
  const double mx = std::max(32.0, margin * (x1 - x0));
  const double my = std::max(32.0, margin * (y1 - y0));
  const cv::Rect frame(0, 0, frameSize.width, frameSize.height);
  const double fx0 = std::clamp(x0 - mx, 0.0, static_cast<double>(frameSize.width));
  const double fx1 = std::clamp(x1 + mx, 0.0, static_cast<double>(frameSize.width));
  const double fy0 = std::clamp(y0 - my, 0.0, static_cast<double>(frameSize.height));
  const double fy1 = std::clamp(y1 + my, 0.0, static_cast<double>(frameSize.height));
  const cv::Rect region(cv::Point(static_cast<int>(fx0), static_cast<int>(fy0)),
                        cv::Point(static_cast<int>(std::ceil(fx1)), static_cast<int>(std::ceil(fy1))));
  const cv::Rect clipped = region & frame;
  if (clipped.width < 32 || clipped.height < 32 || clipped.area() > 0.6 * frame.area()) return std::nullopt;
  return clipped;
}

std::string toString(TrackerState state) {
  switch (state) {
    case TrackerState::Detecting: return "detecting";
    case TrackerState::Tracking: return "tracking";
    case TrackerState::Lost: return "lost";
  }
  return "?";
}

struct Tracker::Impl {
  Impl(const gpu::Capabilities& caps, const detection::TargetModel& model, const CameraCalibration& calibration,
       const TrackerOptions& o)
      : options(o),
        keptModel(model),
        keptCalibration(calibration),
        frameSize(calibration.imageSize),
        targetSize(model.image.size()),
        motion(o.motion) {
    if (o.retrackLostFrames < 0)
      throw std::invalid_argument("TrackerOptions::retrackLostFrames must be >= 0, got " +
                                  std::to_string(o.retrackLostFrames));
    if (!(o.regionMargin >= 0) || !std::isfinite(o.regionMargin))
      throw std::invalid_argument("TrackerOptions::regionMargin must be finite and >= 0, got " +
                                  std::to_string(o.regionMargin));
    if (o.regionSearchFrames < 0)
      throw std::invalid_argument("TrackerOptions::regionSearchFrames must be >= 0, got " +
                                  std::to_string(o.regionSearchFrames));
    if (o.redetectEvery < 0)
      throw std::invalid_argument("TrackerOptions::redetectEvery must be >= 0, got " + std::to_string(o.redetectEvery));
    if (!o.detectionEnabled && !o.trackingEnabled)
      throw std::invalid_argument("TrackerOptions: detectionEnabled and trackingEnabled are both false");
    curved = model.geometry.curved();
    if (curved) {
      surface.emplace(model.geometry, model.widthMetres, model.image.size());
      // A curved label is followed on its surface (tracker/curved_tracking_lane.h) and found by
      // PnP on it (tracker/curved_detection.h). Without a detection lane of its own (one lane
      // of several targets', session/target_tracking.h) it starts from initialise(pose).
      // The whole frame each time, in one pass: a region's or a first pass's fewer, bunched points
      // let PnP trade a tilt for a shift (a can turned 40° or 45°: 13° and 18° off from about 50
      // inliers; 0.6° and 0.5° from all the frame's keypoints' matches).
      options.regionDetection = false;
      options.detection.firstPassFraction = 1.0;
    }
    if (options.detectionEnabled) detectionLane.emplace(caps, model, calibration, options.detection);
    // Without tracking the lane still refines each detection in its own frame (no earlier frame
    // is used): the NCC patches fit the target more closely than the keypoint matches.
    if (options.trackingEnabled || (options.detectionEnabled && options.refineDetections)) {
      if (curved)
        curvedLane.emplace(model, calibration, options.tracking);
      else
        trackingLane.emplace(model, calibration, options.tracking);
    }
  }

  TrackerOptions options;
  /// Kept to rebuild the detection lane after a GL context loss (restoreGpu); cv::Mat members
  /// share the caller's pixels.
  detection::TargetModel keptModel;
  CameraCalibration keptCalibration;
  bool gpuReleased = false;
  cv::Size frameSize, targetSize;
  std::optional<DetectionLane> detectionLane;
  std::optional<TrackingLane> trackingLane;
  /// A curved target's (model.geometry curved): its own lane, and its last two poses found in
  /// consecutive frames (the constant-velocity prediction), the last one found at all.
  bool curved = false;
  std::optional<detection::LabelSurface> surface;  // a curved target's (its outline)
  std::optional<CurvedTrackingLane> curvedLane;
  std::optional<Pose> lastPose, previousPose, lastFoundPose;
  MotionModel motion;
  int framesSinceDetection = 0;
  /// The last homography found and how many frames ago the target was lost (for re-tracking).
  std::optional<cv::Matx33d> lastFound;
  int framesLost = 0;
  cv::Mat gray;
  /// track(frame, detectionFrame)'s detection frame, for the duration of that call (empty: gray).
  cv::Mat detectionFrame;
  /// The frame's levels, shared by the tracking lane's tries in one frame: ownPyramid, built by
  /// track(frame), or the caller's (track(pyramid)); set for the duration of a track() call only.
  FramePyramid ownPyramid;
  FramePyramid* pyramid = nullptr;
  bool pyramidBuilt = false;  // ownPyramid holds this frame's levels
  /// The running estimate of the camera's exposure (fraction of the frame interval) the tracking
  /// lane blurs its templates with; starts at TrackingLaneOptions::blurExposure.
  double exposure = options.tracking.blurExposure;
  long long frameCount = 0;  // track() calls so far
  /// initialise(H, searchRangePx): the range of the next prediction's search (0: the usual one).
  double nextSearchPx = 0;
  /// initialise(H, searchRangePx, framesBefore): H was found that many frames before the next
  /// tracked one (0: not a carried homography, or unknown); for that frame only.
  int carriedFrames = 0;

  /// The frame's pyramid for the tracking lane (its time added to r's); nothing to do when the
  /// caller built it (track(pyramid)).
  void buildPyramid(TrackResult& r) {
    if (pyramid != &ownPyramid || pyramidBuilt) return;
    const auto t = Clock::now();
    ownPyramid.build(gray, 2);  // the lane adds the coarser levels when it needs them
    pyramidBuilt = true;
    r.timings.tracking.pyramid += msSince(t);
  }

  /// One try of the tracking lane on this frame, its timings added to r's.
  std::optional<TrackedTarget> follow(TrackingPrior prior, TrackResult& r) {
    if (options.tracking.blurExposure > 0) {
      // From a homography carried over several frames the motion found spans them all; the blur
      // is one frame's part of it, and such a frame does not measure the exposure.
      const int span = std::max(1, carriedFrames);
      prior.blurExposure = exposure / span;
      // Every frame while the target moves fast (the blur matters most), else every few frames.
      prior.measureExposure = span == 1 && (frameCount % kExposureEvery == 0 || lastSpeedPx() >= kFastSpeedPx);
    }
    std::optional<TrackedTarget> tracked = trackingLane->track(*pyramid, prior);
    add(r.timings.tracking, trackingLane->lastTimings());
    // The camera's exposure, learnt from the frames that show it (Klein and Murray, ECCV 2008,
    // predict the blur from the motion and a known exposure; here it is measured).
    if (tracked && tracked->measuredExposure >= 0)
      exposure = (1.0 - kExposureLearningRate) * exposure + kExposureLearningRate * tracked->measuredExposure;
    return tracked;
  }

  /// The largest corner displacement of the last frame-to-frame motion, frame pixels (0 without).
  double lastSpeedPx() const {
    if (!motion.last() || !motion.previous()) return 0;
    cv::Point2d a[4], b[4];
    projectTargetCorners(*motion.last(), targetSize, a);
    projectTargetCorners(*motion.previous(), targetSize, b);
    double speed = 0;
    for (int i = 0; i < 4; ++i) speed = std::max(speed, cv::norm(a[i] - b[i]));
    return speed;
  }

  /// The motion model's prior: the prediction with the frame before it as the motion reference
  /// (constant velocity: the last homography, and the one before it as referenceBefore; none:
  /// the one before it, so that the last motion still sets the blur and the search range).
  /// std::nullopt without a target.
  std::optional<TrackingPrior> predictedPrior() const {
    const std::optional<cv::Matx33d> predicted = motion.predict();
    if (!predicted) return std::nullopt;
    TrackingPrior prior;
    prior.predicted = *predicted;
    if (motion.previous() && options.motion == MotionModelKind::None) {
      prior.reference = motion.previous();
    } else if (motion.previous()) {
      prior.reference = motion.last();
      prior.referenceBefore = motion.previous();  // the blur of the motion at this frame's time
    } else if (carriedFrames > 0)
      // A homography of an earlier frame carried to this one (initialise(H, range, frames)): the
      // motion the search finds from it sets the blur (as lastPosePrior's; follow() divides it
      // among the frames it spans).
      prior.reference = motion.last();
    // The next miss may be larger than the last one (a hand changes its motion within a few
    // frames): 1.5 times it, plus a few pixels of tracking noise.
    const double miss = motion.lastMissPx(targetSize);
    if (miss > 0) prior.searchRangePx = 1.5 * miss + 4.0;
    if (nextSearchPx > 0) prior.searchRangePx = std::max(prior.searchRangePx, nextSearchPx);
    return prior;
  }

  /// The second hypothesis after the prediction failed (Wagner et al. keep one; PTAM re-searches
  /// from the last pose): the last homography, searched over the lane's widest range.
  std::optional<TrackingPrior> lastPosePrior(const TrackingPrior& failed) const {
    if (!motion.last()) return std::nullopt;
    TrackingPrior prior;
    prior.predicted = *motion.last();
    // The motion this frame is what the search finds: its blur. Not its change since the frame
    // before (TrackingPrior::referenceBefore): the prediction failed, the hand jerked, and the
    // motion may have changed at once rather than steadily.
    prior.reference = motion.last();
    prior.searchRangePx = options.tracking.maxSearchPx;
    if (prior.predicted == failed.predicted && failed.searchRangePx >= prior.searchRangePx) return std::nullopt;
    return prior;
  }

  /// Detection (optionally refined by the tracking lane) into `r`; true when found. With `near`
  /// (where the target was last seen or predicted) and regionDetection on, the detection first
  /// looks in the region around it (cheaper), then in the whole frame; a curved target's first
  /// at the scales `near` shows it, over the whole frame, then with no scale known.
  bool detect(TrackResult& r, const std::optional<cv::Matx33d>& near = std::nullopt) {
    std::optional<Detection> d;
    r.timings.detection = {};
    r.detectedInRegion = false;
    // A curved target's region is the whole frame (the constructor's reason): the search keeps
    // the scales `near` shows the label at, whose scale-consistent matches need only
    // nearMinInliers, and a detection under minInliers is taken only when the tracking lane
    // confirms it from its pose. Right after a fast shake the blurred label gives 14-19 inliers
    // there; the whole-frame detection finds it frames later (issue 47, the can's unconstrained
    // preset at 1280 × 720).
    std::optional<TrackedTarget> refined;
    if (near && (options.regionDetection || curved))
      if (const std::optional<cv::Rect> region =
              curved ? std::optional<cv::Rect>(cv::Rect(cv::Point(), frameSize))
                     : detectionRegion(*near, targetSize, frameSize, options.regionMargin)) {
        d = detectionLane->detect(detectionFrame.empty() ? gray : detectionFrame, *region, *near);
        addDetection(r.timings.detection, detectionLane->lastTimings());
        if (curved && d && d->inliers < options.detection.minInliers) {
          if (curvedLane) refined = refineCurved(r, *d);
          if (!refined) d.reset();
        }
        r.detectedInRegion = d.has_value();
      }
    if (!d) {
      d = detectionLane->detect(detectionFrame.empty() ? gray : detectionFrame);
      addDetection(r.timings.detection, detectionLane->lastTimings());
    }
    if (!d) {
      r.rejection = detectionLane->lastRejection();
      return false;
    }
    framesSinceDetection = 0;
    if (curvedLane && (refined || options.refineDetections)) {
      if (!refined) refined = refineCurved(r, *d);
      if (refined) {
        fill(r, *refined);
        return true;
      }
    } else if (trackingLane && options.refineDetections) {
      if (!options.trackingEnabled) buildPyramid(r);
      TrackingPrior prior;
      prior.predicted = d->homography;
      refined = follow(prior, r);
      if (refined) {
        fill(r, *refined);
        return true;
      }
    }
    r.found = true;
    r.homography = d->homography;
    r.pose = d->pose;
    r.corners = d->corners;
    r.inliers = d->inliers;
    r.searched = 0;
    r.reprojectionErrorPx = d->reprojectionErrorPx;
    r.inlierTargetPoints.clear();
    r.inlierFramePoints.clear();
    return true;
  }

  /// The curved tracking lane started from detection `d`'s pose (no motion known: no blur).
  std::optional<TrackedTarget> refineCurved(TrackResult& r, const Detection& d) {
    buildPyramid(r);
    CurvedTrackingPrior prior;
    prior.predicted = d.pose;
    prior.blurExposure = 0;
    std::optional<TrackedTarget> refined = curvedLane->track(*pyramid, prior);
    add(r.timings.tracking, curvedLane->lastTimings());
    return refined;
  }

  /// A curved target's frame: the lane from the constant-velocity prediction of its last poses,
  /// then from the last pose over maxSearchPx; after a loss, for retrackLostFrames frames, from
  /// where it was lost over recoverySearchPx; else (and when those fail) the detection lane.
  bool trackCurved(TrackResult& r) {
    const bool tracks = options.trackingEnabled && curvedLane;
    const auto follow = [&](const CurvedTrackingPrior& prior) {
      std::optional<TrackedTarget> t = curvedLane->track(*pyramid, prior);
      add(r.timings.tracking, curvedLane->lastTimings());
      return t;
    };
    std::optional<TrackedTarget> tracked;
    std::string lost;
    if (tracks && (lastPose || (lastFoundPose && framesLost <= options.retrackLostFrames))) {
      buildPyramid(r);
      CurvedTrackingPrior prior;
      prior.blurExposure = options.tracking.blurExposure;
      if (lastPose) {
        prior.predicted = *lastPose;
        prior.searchRangePx = nextSearchPx;  // initialise(pose, range): a pose found frames ago
        if (previousPose && options.motion != MotionModelKind::None) {
          prior.predicted = extrapolate(*previousPose, *lastPose);
          prior.reference = lastPose;
        }
        tracked = follow(prior);
        if (!tracked) {  // the last pose, searched wide (as the planar state machine's second hypothesis)
          lost = curvedLane->lastRejection();
          CurvedTrackingPrior last;
          last.predicted = *lastPose;
          last.reference = lastPose;
          last.blurExposure = prior.blurExposure;
          last.searchRangePx = options.tracking.maxSearchPx;
          tracked = follow(last);
        }
      } else {
        prior.predicted = *lastFoundPose;
        prior.blurExposure = 0;
        prior.searchRangePx = options.tracking.recoverySearchPx;
        tracked = follow(prior);
      }
      if (!tracked && lost.empty()) lost = curvedLane->lastRejection();
    }
    if (tracked) {
      r.state = TrackerState::Tracking;
      fill(r, *tracked);
      return true;
    }
    const bool wasTracked = lastPose.has_value();
    r.state = wasTracked ? TrackerState::Lost : TrackerState::Detecting;
    if (!detectionLane) {
      r.rejection = gpuReleased    ? "GPU released: no detection until restoreGpu()"
                    : lost.empty() ? "no target: detection is disabled and the tracker was not initialised"
                                   : "tracking lost: " + lost;
      return false;
    }
    // In the frame of a loss and the retrackLostFrames after it, first near the last pose.
    const bool recent = lastFound && framesLost <= options.retrackLostFrames;
    const bool found = detect(r, recent ? lastFound : std::nullopt);
    if (found) r.state = TrackerState::Detecting;
    if (wasTracked) r.rejection = found ? "tracking lost: " + lost : "tracking lost: " + lost + "; detection: " + r.rejection;
    return found;
  }

  /// Constant velocity in pose: the motion from `before` to `last` applied once more to `last`.
  static Pose extrapolate(const Pose& before, const Pose& last) {
    cv::Matx33d Rb, Rl;
    cv::Rodrigues(before.rvec, Rb);
    cv::Rodrigues(last.rvec, Rl);
    const cv::Matx33d dR = Rl * Rb.t();
    const cv::Vec3d dt = last.tvec - dR * before.tvec;
    Pose p = last;
    cv::Vec3d rvec;
    cv::Rodrigues(dR * Rl, rvec);
    p.rvec = rvec;
    p.tvec = dR * last.tvec + dt;
    return p;
  }

  static void fill(TrackResult& r, TrackedTarget& t) {
    r.found = true;
    r.homography = t.homography;
    r.pose = t.pose;
    r.corners = std::move(t.corners);
    r.inliers = t.inliers;
    r.searched = t.searched;
    r.reprojectionErrorPx = t.reprojectionErrorPx;
    r.inlierTargetPoints = std::move(t.inlierTargetPoints);
    r.inlierFramePoints = std::move(t.inlierFramePoints);
  }
};

Tracker::Tracker(const gpu::Capabilities& caps, const detection::TargetModel& model,
                 const CameraCalibration& calibration, const TrackerOptions& options)
    : impl_(std::make_unique<Impl>(caps, model, calibration, options)) {}

Tracker::~Tracker() = default;
Tracker::Tracker(Tracker&&) noexcept = default;
Tracker& Tracker::operator=(Tracker&&) noexcept = default;

cv::Size Tracker::frameSize() const { return impl_->frameSize; }
cv::Size Tracker::targetSize() const { return impl_->targetSize; }
const TrackerOptions& Tracker::options() const { return impl_->options; }
void Tracker::releaseGpu() {
  if (impl_->detectionLane) {
    impl_->detectionLane.reset();
    impl_->gpuReleased = true;
  }
}

void Tracker::restoreGpu(const gpu::Capabilities& caps) {
  if (!impl_->gpuReleased) return;
  impl_->detectionLane.emplace(caps, impl_->keptModel, impl_->keptCalibration, impl_->options.detection);
  impl_->gpuReleased = false;
}

bool Tracker::hasGpu() const { return !impl_->gpuReleased; }

bool Tracker::hasTarget() const { return impl_->motion.last().has_value(); }
std::optional<cv::Matx33d> Tracker::lastHomography() const { return impl_->motion.last(); }
double Tracker::exposure() const { return impl_->exposure; }

void Tracker::initialise(const cv::Matx33d& homography) {
  if (impl_->curved)
    throw std::invalid_argument("Tracker::initialise: a curved target's tracking starts from a detection (its pose), "
                                "not from a homography");
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(homography.val[i]))
      throw std::invalid_argument("Tracker::initialise: the homography is not finite");
  impl_->motion.reset();
  impl_->motion.update(homography);
  impl_->lastFound = homography;
  impl_->framesLost = 0;
  impl_->framesSinceDetection = 0;
  impl_->nextSearchPx = 0;
  impl_->carriedFrames = 0;
}

void Tracker::initialise(const cv::Matx33d& homography, double searchRangePx, int framesBefore) {
  if (!(searchRangePx >= 0) || !std::isfinite(searchRangePx))
    throw std::invalid_argument("Tracker::initialise: search range " + std::to_string(searchRangePx) +
                                " px: expected a finite number >= 0");
  if (framesBefore < 0)
    throw std::invalid_argument("Tracker::initialise: framesBefore " + std::to_string(framesBefore) + ": expected >= 0");
  initialise(homography);
  impl_->nextSearchPx = searchRangePx;
  impl_->carriedFrames = framesBefore;
}

void Tracker::initialise(const Pose& pose, double searchRangePx) {
  Impl& s = *impl_;
  if (!s.curved)
    throw std::invalid_argument("Tracker::initialise: a pose starts a curved target's tracking; a flat target's "
                                "starts from its homography");
  for (int i = 0; i < 3; ++i)
    if (!std::isfinite(pose.rvec[i]) || !std::isfinite(pose.tvec[i]))
      throw std::invalid_argument("Tracker::initialise: the pose is not finite");
  if (!(searchRangePx >= 0) || !std::isfinite(searchRangePx))
    throw std::invalid_argument("Tracker::initialise: search range " + std::to_string(searchRangePx) +
                                " px: expected a finite number >= 0");
  s.lastPose = s.lastFoundPose = pose;
  s.previousPose.reset();  // no motion known: the next frame is searched from the pose itself
  const cv::Matx33d H =
      tangentPlaneHomography(s.keptCalibration, pose, s.keptModel.metresPerPixel());
  s.motion.reset();
  s.motion.update(H);
  s.lastFound = H;
  s.framesLost = 0;
  s.nextSearchPx = searchRangePx;
  s.carriedFrames = 0;
}

void Tracker::reset() {
  impl_->motion.reset();
  impl_->lastFound.reset();
  impl_->lastPose.reset();
  impl_->previousPose.reset();
  impl_->lastFoundPose.reset();
}

TrackResult Tracker::track(const cv::Mat& frame) { return track(frame, cv::Mat()); }

TrackResult Tracker::track(const cv::Mat& frame, const cv::Mat& detectionFrame) {
  Impl& s = *impl_;
  if (frame.empty()) throw std::invalid_argument("Tracker::track: empty frame");
  if (frame.type() != CV_8UC1 && frame.type() != CV_8UC3)
    throw std::invalid_argument("Tracker::track: frame type " + cv::typeToString(frame.type()) +
                                " is not CV_8UC1 or CV_8UC3");
  checkFrameSize(frame.size(), s.frameSize);
  const auto start = Clock::now();
  TrackResult r;
  if (frame.channels() == 3)
    cv::cvtColor(frame, s.gray, cv::COLOR_BGR2GRAY);
  else
    s.gray = frame;
  r.timings.convert = msSince(start);
  s.pyramid = &s.ownPyramid;
  s.detectionFrame = detectionFrame;
  trackGray(r, start);
  return r;
}

TrackResult Tracker::track(FramePyramid& pyramid) {
  Impl& s = *impl_;
  if (pyramid.levelCount() == 0) throw std::invalid_argument("Tracker::track: the frame pyramid is empty");
  checkFrameSize(pyramid.frameSize(), s.frameSize);
  const auto start = Clock::now();
  TrackResult r;
  s.gray = pyramid.level(0);
  s.pyramid = &pyramid;
  trackGray(r, start);
  return r;
}

void Tracker::trackGray(TrackResult& r, std::chrono::steady_clock::time_point start) {
  Impl& s = *impl_;
  // The caller's pyramid and detection frame are not kept past this call.
  struct Release {
    Impl& s;
    ~Release() {
      s.pyramid = nullptr;
      s.detectionFrame = cv::Mat();
    }
  } release{s};
  ++s.frameCount;
  s.pyramidBuilt = false;
  bool found = false;
  // initialise(H, range)'s range holds for this frame's prediction only.
  struct ConsumeRange {
    Impl& s;
    ~ConsumeRange() {
      s.nextSearchPx = 0;
      s.carriedFrames = 0;
    }
  } consumeRange{s};
  if (s.curved) {
    if (s.trackCurved(r)) {
      r.outline = projectedOutline(*s.surface, s.targetSize, r.pose, s.keptCalibration);
      s.previousPose = s.lastPose;
      s.lastPose = s.lastFoundPose = r.pose;
      s.motion.update(r.homography);  // lastHomography(), hasTarget()
      s.lastFound = r.homography;
      s.framesLost = 0;
    } else {
      s.lastPose.reset();
      s.previousPose.reset();
      s.motion.reset();
      ++s.framesLost;
    }
    r.timings.total = msSince(start);
    return;
  }
  const bool tracks = s.options.trackingEnabled && s.trackingLane;
  if (tracks) s.buildPyramid(r);  // without tracking, only when a detection is to be refined
  const std::optional<TrackingPrior> predicted = tracks ? s.predictedPrior() : std::nullopt;
  if (predicted) {
    std::optional<TrackedTarget> tracked = s.follow(*predicted, r);
    if (!tracked) {
      // The extrapolation can overshoot (a jerk of the hand) or fall short (a sudden start):
      // the last pose, searched wide, is the safer guess.
      if (const std::optional<TrackingPrior> last = s.lastPosePrior(*predicted)) tracked = s.follow(*last, r);
    }
    if (tracked) {
      r.state = TrackerState::Tracking;
      Impl::fill(r, *tracked);
      found = true;
      ++s.framesSinceDetection;
      if (s.detectionLane && s.options.redetectEvery > 0 && s.framesSinceDetection >= s.options.redetectEvery) {
        TrackResult again;
        if (s.detect(again)) {  // a fresh detection wins over the tracked estimate
          again.timings = r.timings;
          again.timings.detection = s.detectionLane->lastTimings();
          r = std::move(again);
          r.state = TrackerState::Detecting;
          s.motion.reset();
        }
        r.timings.detection = s.detectionLane->lastTimings();
      }
    } else {
      r.state = TrackerState::Lost;
      r.rejection = "tracking lost: " + s.trackingLane->lastRejection();
      s.motion.reset();
      if (s.detectionLane) {
        const std::string lost = r.rejection;
        found = s.detect(r, predicted->predicted);  // first near where it should have been
        r.rejection = found ? lost : lost + "; detection: " + r.rejection;
        if (found) r.state = TrackerState::Detecting;
      }
    }
  } else if (tracks && s.lastFound && s.framesLost <= s.options.retrackLostFrames &&
             [&] {
               // Where it was lost, searched over the lane's widest range.
               TrackingPrior prior;
               prior.predicted = *s.lastFound;
               prior.searchRangePx = s.options.tracking.recoverySearchPx;
               std::optional<TrackedTarget> tracked = s.follow(prior, r);
               if (tracked) Impl::fill(r, *tracked);
               return tracked.has_value();
             }()) {
    r.state = TrackerState::Tracking;  // found again where it was lost
    found = true;
  } else if (s.detectionLane) {
    r.state = TrackerState::Detecting;
    // After a loss, first near the last pose (issue 21's Deliver 2; for regionSearchFrames frames:
    // issue 45's Deliver 1), then the whole frame.
    const bool recent = s.lastFound && s.framesLost <= s.options.regionSearchFrames;
    found = s.detect(r, recent ? s.lastFound : std::nullopt);
  } else {
    r.state = TrackerState::Lost;
    r.rejection = s.gpuReleased ? "GPU released: no detection until restoreGpu()"
                                : "no target: detection is disabled and the tracker was not initialised";
  }

  if (found) {
    r.outline = {r.corners};
    if (r.corners.size() == 4) r.outline.front().push_back(r.corners.front());
    s.motion.update(r.homography);
    s.lastFound = r.homography;
    s.framesLost = 0;
  } else {
    s.motion.reset();
    ++s.framesLost;
  }
  r.timings.total = msSince(start);
}

}  // namespace nft::tracker
