#include "tracker/tracker.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "gpu/capabilities.h"

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string sizeText(cv::Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

void add(TrackingTimings& sum, const TrackingTimings& t) {
  sum.pyramid += t.pyramid;
  sum.coarse += t.coarse;
  sum.fine += t.fine;
  sum.pose += t.pose;
}

}  // namespace

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
    if (o.redetectEvery < 0)
      throw std::invalid_argument("TrackerOptions::redetectEvery must be >= 0, got " + std::to_string(o.redetectEvery));
    if (!o.detectionEnabled && !o.trackingEnabled)
      throw std::invalid_argument("TrackerOptions: detectionEnabled and trackingEnabled are both false");
    if (o.detectionEnabled) detectionLane.emplace(caps, model, calibration, o.detection);
    if (o.trackingEnabled) trackingLane.emplace(model, calibration, o.tracking);
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
  MotionModel motion;
  int framesSinceDetection = 0;
  /// The last homography found and how many frames ago the target was lost (for re-tracking).
  std::optional<cv::Matx33d> lastFound;
  int framesLost = 0;
  cv::Mat gray;

  /// Detection (optionally refined by the tracking lane) into `r`; true when found.
  bool detect(TrackResult& r) {
    std::optional<Detection> d = detectionLane->detect(gray);
    r.timings.detection = detectionLane->lastTimings();
    if (!d) {
      r.rejection = detectionLane->lastRejection();
      return false;
    }
    framesSinceDetection = 0;
    if (trackingLane && options.refineDetections) {
      std::optional<TrackedTarget> refined = trackingLane->track(gray, d->homography);
      add(r.timings.tracking, trackingLane->lastTimings());
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

void Tracker::initialise(const cv::Matx33d& homography) {
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(homography.val[i]))
      throw std::invalid_argument("Tracker::initialise: the homography is not finite");
  impl_->motion.reset();
  impl_->motion.update(homography);
  impl_->lastFound = homography;
  impl_->framesLost = 0;
  impl_->framesSinceDetection = 0;
}

void Tracker::reset() {
  impl_->motion.reset();
  impl_->lastFound.reset();
}

TrackResult Tracker::track(const cv::Mat& frame) {
  Impl& s = *impl_;
  if (frame.empty()) throw std::invalid_argument("Tracker::track: empty frame");
  if (frame.type() != CV_8UC1 && frame.type() != CV_8UC3)
    throw std::invalid_argument("Tracker::track: frame type " + cv::typeToString(frame.type()) +
                                " is not CV_8UC1 or CV_8UC3");
  if (frame.size() != s.frameSize)
    throw std::invalid_argument("Tracker::track: frame size " + sizeText(frame.size()) +
                                " differs from the tracker's frame size " + sizeText(s.frameSize) +
                                " (resize frames to it, or make a Tracker for the new size)");
  const auto start = Clock::now();
  TrackResult r;
  auto t = Clock::now();
  if (frame.channels() == 3)
    cv::cvtColor(frame, s.gray, cv::COLOR_BGR2GRAY);
  else
    s.gray = frame;
  r.timings.convert = msSince(t);

  bool found = false;
  const std::optional<cv::Matx33d> predicted = s.trackingLane ? s.motion.predict() : std::nullopt;
  if (predicted) {
    std::optional<TrackedTarget> tracked = s.trackingLane->track(s.gray, *predicted);
    add(r.timings.tracking, s.trackingLane->lastTimings());
    if (!tracked && s.options.motion == MotionModelKind::ConstantVelocity && s.motion.last() &&
        !(*s.motion.last() == *predicted)) {
      // The extrapolation can overshoot (a jerk of the hand); the last pose is the safer guess.
      tracked = s.trackingLane->track(s.gray, *s.motion.last());
      add(r.timings.tracking, s.trackingLane->lastTimings());
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
        found = s.detect(r);
        r.rejection = found ? lost : lost + "; detection: " + r.rejection;
        if (found) r.state = TrackerState::Detecting;
      }
    }
  } else if (s.trackingLane && s.lastFound && s.framesLost <= s.options.retrackLostFrames &&
             [&] {
               std::optional<TrackedTarget> tracked = s.trackingLane->track(s.gray, *s.lastFound);
               add(r.timings.tracking, s.trackingLane->lastTimings());
               if (tracked) Impl::fill(r, *tracked);
               return tracked.has_value();
             }()) {
    r.state = TrackerState::Tracking;  // found again where it was lost
    found = true;
  } else if (s.detectionLane) {
    r.state = TrackerState::Detecting;
    found = s.detect(r);
  } else {
    r.state = TrackerState::Lost;
    r.rejection = s.gpuReleased ? "GPU released: no detection until restoreGpu()"
                                : "no target: detection is disabled and the tracker was not initialised";
  }

  if (found) {
    s.motion.update(r.homography);
    s.lastFound = r.homography;
    s.framesLost = 0;
  } else {
    s.motion.reset();
    ++s.framesLost;
  }
  r.timings.total = msSince(start);
  return r;
}

}  // namespace nft::tracker
