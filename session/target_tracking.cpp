#include "session/target_tracking.h"

#include <algorithm>
#include <climits>
#include <chrono>
#include <stdexcept>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "nft/error.h"
#include "session/parallel_each.h"
#include "session/target_loader.h"
#include "session/target_words.h"
#include "tracker/curved_detection.h"
#include "tracker/label_outline.h"
#include "tracker/pose.h"

namespace nft::session {
namespace {

// Detection rounds per frame at most: a round that found a target is repeated once on the same
// frame with the found targets masked. Measured on the 8-print grid (`nft_eval multi --layout
// grid`, every target verified): the first round of frame 1 finds 5 prints (graf1, chicky_512,
// messi5, butterfly, box; baboon 10, aero3 8, starry_night 9 inliers of the 20 needed), the
// second, with their quads masked, the other 3 (starry_night, baboon and aero3 100 % within 5 px
// instead of 99.7 % with one round, when the next frame's search found them). More rounds would
// add a search to a frame only when every round finds a new target; 2 bounds a frame's cost to
// two searches (frame 1 of the grid: 98 + 33 ms on llvmpipe) and leaves the rest to the search on
// the next frame. Only while the recogniser verifies every target (a small database): in a large
// one the repeat verifies a whole shortlist of distractors, which with detection on every frame
// (cmu_book among 1,000 distractors, tracking.enabled false) was most of each frame's time.
constexpr int kSearchRoundsPerFrame = 2;

TrackingState publicState(tracker::TrackerState s) {
  switch (s) {
    case tracker::TrackerState::Detecting: return TrackingState::Detecting;
    case tracker::TrackerState::Tracking: return TrackingState::Tracking;
    case tracker::TrackerState::Lost: return TrackingState::Lost;
  }
  return TrackingState::Lost;
}

/// A flat target's outline: its corners as a closed polyline (after they change).
void closeQuadOutline(TargetResult& r) {
  r.outline.clear();
  if (r.corners.size() != 4) return;
  r.outline.push_back(r.corners);
  r.outline.front().push_back(r.corners.front());
}

TargetResult resultOf(const TargetInfo& info, tracker::TrackResult&& t) {
  TargetResult out;
  out.id = info.id;
  out.name = info.name;
  out.state = publicState(t.state);
  out.found = t.found;
  out.homography = t.homography;
  out.pose.rvec = t.pose.rvec;
  out.pose.t = t.pose.tvec;
  cv::Rodrigues(t.pose.rvec, out.pose.R);
  out.corners = std::move(t.corners);
  out.outline = std::move(t.outline);
  out.inliers = t.inliers;
  out.searched = t.searched;
  out.reprojectionErrorPx = t.reprojectionErrorPx;
  out.inlierTargetPoints = std::move(t.inlierTargetPoints);
  out.inlierFramePoints = std::move(t.inlierFramePoints);
  out.rejection = std::move(t.rejection);
  return out;
}

TargetResult resultOf(const TargetInfo& info, const tracker::Detection& d) {
  TargetResult out;
  out.id = info.id;
  out.name = info.name;
  out.state = TrackingState::Detecting;
  out.found = true;
  out.homography = d.homography;
  out.pose.rvec = d.pose.rvec;
  out.pose.t = d.pose.tvec;
  cv::Rodrigues(d.pose.rvec, out.pose.R);
  out.corners = d.corners;
  closeQuadOutline(out);
  out.inliers = d.inliers;
  out.reprojectionErrorPx = d.reprojectionErrorPx;
  return out;
}

void addTracking(FrameTimings& f, const tracker::TrackingTimings& t) {
  f.pyramid += t.pyramid;
  f.coarse += t.coarse;
  f.fine += t.fine;
  f.trackingPose += t.pose;
}

void addDetection(FrameTimings& f, const tracker::DetectionTimings& t) {
  f.fast += t.detect;
  f.describe += t.describe;
  f.match += t.match;
  f.ransac += t.ransac;
  f.detectionPose += t.pose;
}

/// r.pose from a tracker pose (R from rvec).
void setPose(TargetResult& r, const tracker::Pose& pose) {
  r.pose.rvec = pose.rvec;
  r.pose.t = pose.tvec;
  cv::Rodrigues(pose.rvec, r.pose.R);
}

/// The corners of a w × h target under H (target → frame pixels): UL, UR, LR, LL.
std::vector<cv::Point2f> cornersOf(const cv::Matx33d& H, cv::Size size) {
  const double w = size.width, h = size.height;
  std::vector<cv::Point2f> corners;
  for (const cv::Point2d& c : {cv::Point2d(0, 0), cv::Point2d(w, 0), cv::Point2d(w, h), cv::Point2d(0, h)}) {
    const cv::Vec3d p = H * cv::Vec3d(c.x, c.y, 1);
    corners.emplace_back(static_cast<float>(p[0] / p[2]), static_cast<float>(p[1] / p[2]));
  }
  return corners;
}

std::string typeText(detection::DescriptorType type, detection::Orientation orientation) {
  return std::string(type == detection::DescriptorType::Surf64 ? "surf64" : "surf36") + "/" +
         (orientation == detection::Orientation::Oriented ? "oriented" : "upright");
}

// A database target not being tracked keeps its decoded model (and tracking lane, refiner) only
// while it is among this many such targets found last: one lost a moment ago is often found
// again, and the rest cost no memory (issue 33, item 6).
constexpr size_t kKeptLostModels = 4;

// After a refused final refinement, the whole (coarse-to-fine) refinement runs again after this
// many refusals in a row; the quick one in between (TargetTracking::refine).
constexpr int kFullRefinementEvery = 8;
// ... once this many were refused in a row: a blurred moment refused for a frame or two (fast
// motion) keeps the whole refinement (HD unconstrained at 1/16: 88.3 % within 5 px after a
// single refusal, 89.3 % with the whole path on every frame).
constexpr int kRefusalsBeforeQuick = 3;

}  // namespace

TargetTracking::TargetTracking(const PipelineOptions& options) : options_(options) {
  if (options_.asyncDetection || options_.asyncDelayFrames > 0) async_.emplace(options_.asyncDelayFrames);
}

TargetTracking::~TargetTracking() = default;
TargetTracking::TargetTracking(TargetTracking&&) noexcept = default;
TargetTracking& TargetTracking::operator=(TargetTracking&&) noexcept = default;

TargetTracking::Target& TargetTracking::find(TargetId id, const char* call) {
  for (Target& t : targets_)
    if (t.info.id == id) return t;
  throw InputError(std::string(call) + ": target id " + std::to_string(id) + " is unknown or was removed");
}

const TargetTracking::Target& TargetTracking::find(TargetId id, const char* call) const {
  return const_cast<TargetTracking*>(this)->find(id, call);
}

const TargetInfo& TargetTracking::info(TargetId id) const { return find(id, "target").info; }
const detection::TargetModel& TargetTracking::model(TargetId id) const {
  return modelOf(const_cast<Target&>(find(id, "target")));
}

const detection::TargetModel& TargetTracking::modelOf(Target& t) {
  if (!t.model) t.model = std::make_shared<detection::TargetModel>(t.stored->decode());
  return *t.model;
}

cv::Mat TargetTracking::descriptorsOf(const Target& t) {
  return t.model ? t.model->descriptors : t.stored->decodeDescriptors();
}

detection::DescriptorType TargetTracking::typeOf(const Target& t) {
  return t.stored ? t.stored->descriptorType() : t.model->descriptorType;
}

detection::Orientation TargetTracking::orientationOf(const Target& t) {
  return t.stored ? t.stored->orientation() : t.model->orientation;
}

std::vector<TargetInfo> TargetTracking::infos() const {
  std::vector<TargetInfo> out;
  for (const Target& t : targets_) out.push_back(t.info);
  return out;
}

void TargetTracking::checkCompatible(detection::DescriptorType type, detection::Orientation orientation,
                                     const std::string& name) const {
  for (const Target& t : targets_) {
    if (t.info.name == name)
      throw InputError("addTarget: the name '" + name + "' is taken by target " + std::to_string(t.info.id) +
                       ": give each target its own name");
    if (typeOf(t) != type || orientationOf(t) != orientation)
      throw InputError("addTarget: target '" + name + "' has " + typeText(type, orientation) + " descriptors but '" +
                       t.info.name + "' has " + typeText(typeOf(t), orientationOf(t)) +
                       ": several targets need one descriptor type (train them with one config)");
  }
}

bool TargetTracking::curvedAlone() const {
  return targets_.size() == 1 && targets_.front().info.geometry.curved();
}

TargetId TargetTracking::add(detection::TargetModel model, TargetInfo info) {
  checkCompatible(model.descriptorType, model.orientation, info.name);
  info.id = nextId_;
  Target t;
  t.info = std::move(info);
  t.model = std::make_shared<detection::TargetModel>(std::move(model));
  if (vocabulary_ && vocabularyFromDatabase_) t.words = vocabulary_->quantize(t.model->descriptors);
  targets_.push_back(std::move(t));
  try {
    if (!vocabularyFromDatabase_) vocabulary_.reset();  // retrained over every target when needed
    rebuildLanes();
  } catch (...) {
    targets_.pop_back();
    rebuildLanes();
    throw;
  }
  return nextId_++;
}

std::vector<TargetId> TargetTracking::addDatabase(detection::TargetDatabase database, const std::string& source) {
  for (const detection::DatabaseTarget& d : database.targets()) {
    checkCompatible(d.stored ? d.stored->descriptorType() : d.model.descriptorType,
                    d.stored ? d.stored->orientation() : d.model.orientation, d.name);
  }
  std::vector<detection::DatabaseTarget> entries = database.takeTargets();
  const bool adopt = !vocabularyFromDatabase_;
  if (adopt) {
    vocabulary_ = database.vocabulary();
    vocabularyFromDatabase_ = true;
    for (Target& t : targets_) t.words = vocabulary_->quantize(descriptorsOf(t));
  }
  std::vector<TargetId> ids;
  const size_t before = targets_.size();
  for (detection::DatabaseTarget& d : entries) {
    Target t;
    t.info.id = nextId_++;
    t.info.name = d.name;
    t.info.source = source;
    if (d.stored) {  // kept compact: decoded when verified (the recogniser) or found (modelOf)
      const detection::StoredTarget& s = *d.stored;
      t.info.widthMetres = s.widthMetres();
      t.info.imageSize = s.imageSize();
      t.info.originalSize = cv::Size(static_cast<int>(s.imageSize().width * s.originalScale() + 0.5),
                                     static_cast<int>(s.imageSize().height * s.originalScale() + 0.5));
      t.info.trackingPatches = s.patchCount();
      const detection::TargetQuality& q = s.quality();
      t.info.quality = {s.keypointCount(), q.coverage, q.distinctness, q.meanContrast, q.stars, q.warnings};
      t.info.geometry = publicGeometry(s.geometry());
      t.stored = std::move(d.stored);
    } else {
      t.info.widthMetres = d.model.widthMetres;
      t.info.imageSize = d.model.image.size();
      t.info.originalSize = cv::Size(static_cast<int>(d.model.image.cols * d.model.originalScale + 0.5),
                                     static_cast<int>(d.model.image.rows * d.model.originalScale + 0.5));
      t.info.trackingPatches = static_cast<int>(d.model.patches.size());
      t.info.quality = qualityOf(d.model);
      t.info.geometry = publicGeometry(d.model.geometry);
      t.model = std::make_shared<detection::TargetModel>(std::move(d.model));
    }
    t.words = adopt ? std::move(d.words) : vocabulary_->quantize(descriptorsOf(t));
    ids.push_back(t.info.id);
    targets_.push_back(std::move(t));
  }
  recognizer_.reset();
  try {
    rebuildLanes();
  } catch (...) {
    targets_.resize(before);
    rebuildLanes();
    throw;
  }
  return ids;
}

void TargetTracking::remove(TargetId id) {
  Target& t = find(id, "removeTarget");
  if (recognizer_) recognizer_->removeTarget(id);
  const bool wasSeveral = targets_.size() > 1;
  targets_.erase(targets_.begin() + (&t - targets_.data()));
  if (wasSeveral && targets_.size() == 1) recognizer_.reset();
  if (targets_.size() <= 1) single_.reset();
  rebuildLanes();
}

void TargetTracking::setCalibration(const tracker::CameraCalibration& calibration, const gpu::Capabilities& caps,
                                    cv::Size fineFrameSize) {
  options_.tracker.detection.fineFrameSize = fineFrameSize;
  calibration_ = calibration;
  caps_ = caps;
  rebuildLanes();
}

tracker::MultiTargetDetectorOptions TargetTracking::recognizerOptions() const {
  tracker::MultiTargetDetectorOptions mo;
  mo.lane = options_.tracker.detection;
  mo.lane.fineFrameSize = cv::Size();  // the recogniser searches the working frame
  mo.shortlist = options_.shortlist;
  return mo;
}

void TargetTracking::ensureWords() {
  if (!vocabulary_) {
    std::vector<cv::Mat> descriptors;
    std::vector<int> frontal;
    for (const Target& t : targets_) {
      descriptors.push_back(descriptorsOf(t));
      frontal.push_back(t.model ? t.model->frontalKeypoints() : t.stored->frontalKeypoints());
    }
    vocabulary_ = trainTargetsVocabulary(descriptors, frontal);
    for (Target& t : targets_) t.words.clear();
    recognizer_.reset();
  }
  for (Target& t : targets_)
    if (t.words.empty()) t.words = vocabulary_->quantize(descriptorsOf(t));
}

void TargetTracking::rebuildLanes() {
  if (!calibration_ || gpuReleased_) return;
  if (targets_.empty()) {
    single_.reset();
    recognizer_.reset();
    if (async_) async_->clear();
    return;
  }
  if (targets_.size() == 1) {
    recognizer_.reset();
    Target& only = targets_.front();
    // From several targets to one: the one left goes on from where its tracking lane was.
    std::optional<cv::Matx33d> carried;
    if (only.lane && only.framesSinceFound >= 0) carried = only.lane->lastHomography();
    only.lane.reset();
    only.framesSinceFound = -1;
    try {
      // A curved target alone is detected here (tracker/tracker.h: in one pass over the whole
      // frame), not on the worker.
      const bool curved = only.info.geometry.curved();
      if (!single_) {
        // Asynchronous: the tracking lane here, the detection lane in async_.
        tracker::TrackerOptions o = options_.tracker;
        o.detectionEnabled = !async_ || curved;
        single_.emplace(*caps_, modelOf(only), *calibration_, o);
        if (carried && !curved) single_->initialise(*carried);
      }
      if (async_ && curved) {
        async_->clear();
      } else if (async_) {
        modelOf(only);
        async_->setSingle(*caps_, *calibration_, SingleLaneSpec{only.info.id, only.model, options_.tracker});
      }
    } catch (const std::invalid_argument& e) {
      throw InputError("target '" + only.info.name + "' cannot be tracked: " + e.what());
    }
    return;
  }
  // From one target to several (the one tracked alone is the first): it goes on in its own
  // tracking lane instead of being searched for again.
  // (A curved one is searched for again: its lane starts from a pose, which a homography is not.)
  if (single_ && single_->hasTarget() && options_.tracker.trackingEnabled && !targets_.front().info.geometry.curved())
    startLane(targets_.front(), *single_->lastHomography());
  single_.reset();
  const detection::DescriptorType type = typeOf(targets_.front());
  const detection::Orientation orientation = orientationOf(targets_.front());
  if (async_) {  // the recogniser of every target, rebuilt in the worker (and the words, when no
                 // database brought them: 34 ms of the first frame for cmu_book's five targets)
    RecognizerSpec spec{vocabulary_ ? *vocabulary_ : detection::Vocabulary(), type, orientation, recognizerOptions(), {}};
    spec.trainVocabulary = !vocabulary_;
    // A database target goes compact even when decoded here (the recogniser decodes and drops
    // the descriptors it verifies); the others as their model.
    for (const Target& t : targets_)
      spec.targets.push_back({t.info.id, t.stored ? nullptr : t.model, t.words, t.stored});
    async_->setSeveral(*caps_, *calibration_, std::move(spec));
    return;
  }
  ensureWords();
  if (!recognizer_) {
    for (Target& t : targets_) t.recognized = false;
    recognizer_.emplace(*caps_, *calibration_, *vocabulary_, type, orientation, recognizerOptions());
  }
  for (Target& t : targets_)
    if (!t.recognized) {
      if (t.stored)
        recognizer_->addTarget(t.info.id, t.stored, t.words);
      else
        recognizer_->addTarget(t.info.id, t.model, t.words);
      t.recognized = true;
    }
}

void TargetTracking::track(const cv::Mat& image, FrameResult& result, const cv::Mat& detectionImage) {
  struct Release {
    cv::Mat& m;
    ~Release() { m = cv::Mat(); }
  } release{detectionImage_};
  detectionImage_ = detectionImage;
  if (targets_.size() == 1 && single_)
    async_ && !curvedAlone() ? trackOneAsync(image, result) : trackOne(image, result);
  else if (targets_.size() > 1 && (recognizer_ || gpuReleased_ || async_))
    trackSeveral(image, result);
  ++frames_;
}

bool TargetTracking::searchInFlight() const { return async_ && async_->busy(); }

const cv::Mat& TargetTracking::grayOf(const cv::Mat& image) {
  if (image.channels() == 1) return image;
  cv::cvtColor(image, gray_, cv::COLOR_BGR2GRAY);
  return gray_;
}

double TargetTracking::carrySearchPx(long long searchedFrame) const {
  return frames_ > searchedFrame ? options_.tracker.tracking.recoverySearchPx : 0.0;
}

int TargetTracking::carriedFrames(long long searchedFrame) const {
  return static_cast<int>(std::clamp(frames_ - searchedFrame, 0LL, static_cast<long long>(INT_MAX)));
}

void TargetTracking::trackOneAsync(const cv::Mat& image, FrameResult& result) {
  Target& only = targets_.front();
  // 1. A search finished since the last frame: the tracking lane starts from what it found (in
  //    its frame), searching around it in this one. A target re-found by the tracking lane's
  //    retries meanwhile keeps its track.
  bool carried = false;
  if (std::optional<SearchOutcome> o = async_->poll(frames_)) {
    if (!o->detections.empty() && !single_->hasTarget()) {
      single_->initialise(o->detections.front().detection.homography, carrySearchPx(o->frame), carriedFrames(o->frame));
      carried = true;
    }
    lastSearchRejection_ = o->detections.empty() ? "detection on frame " + std::to_string(o->frame) + ": " + o->rejection
                                                 : "detection on frame " + std::to_string(o->frame) +
                                                       " found the target, but the tracking lane lost it since";
  }
  // 2. The tracking lane (no detection lane of its own).
  const bool hadTarget = single_->hasTarget();
  tracker::TrackResult t = single_->track(image);
  result.timings.convert += t.timings.convert;
  addTracking(result.timings, t.timings.tracking);
  TargetResult r = resultOf(only.info, std::move(t));
  if (r.found) {
    only.framesSinceFound = 0;
    only.lastFound = r.homography;
    if (carried) r.state = TrackingState::Detecting;
  } else if (only.framesSinceFound >= 0) {
    ++only.framesSinceFound;
  }
  // 3. Not tracked: a search on a copy of this frame, unless one is in flight; first near where
  //    the target was lost, for regionSearchFrames after a loss (TrackerOptions::regionDetection).
  if (!r.found && !async_->busy() && async_->ready()) {
    SearchRequest q;
    q.frame = frames_;
    q.gray = detectionImage_.empty() ? grayOf(image).clone() : detectionImage_.clone();
    if (only.lastFound && only.framesSinceFound >= 0 && only.framesSinceFound <= options_.tracker.regionSearchFrames)
      q.near = only.lastFound;
    async_->submit(std::move(q));
  }
  if (!r.found && !hadTarget) {  // searching, as the synchronous lanes' "detecting"
    r.state = TrackingState::Detecting;
    r.rejection = async_->busy() ? "searching: the detection of frame " + std::to_string(async_->inFlightFrame()) +
                                       " is in flight" + (lastSearchRejection_.empty() ? "" : " (last: " + lastSearchRejection_ + ")")
                                 : lastSearchRejection_;
  }
  result.targets.push_back(std::move(r));
}

void TargetTracking::trackOne(const cv::Mat& image, FrameResult& result) {
  tracker::TrackResult t = single_->track(image, detectionImage_);
  const tracker::TrackerTimings timings = t.timings;
  result.targets.push_back(resultOf(targets_.front().info, std::move(t)));
  result.timings.convert += timings.convert;
  addDetection(result.timings, timings.detection);
  addTracking(result.timings, timings.tracking);
}

void TargetTracking::trackSeveral(const cv::Mat& image, FrameResult& result) {
  const cv::Mat* gray = &grayOf(image);
  // One pyramid of the frame for every lane, built when the first lane needs it (as each lane
  // built its own before: 8 lanes on the grid spent 0.5 ms a frame on 8 identical pyramids).
  bool pyramidBuilt = false;
  const auto framePyramid = [&]() -> tracker::FramePyramid& {
    if (!pyramidBuilt) {
      using Clock = std::chrono::steady_clock;
      const Clock::time_point start = Clock::now();
      pyramid_.build(*gray, 2);  // the lanes add the coarser levels they need
      result.timings.pyramid += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      pyramidBuilt = true;
    }
    return pyramid_;
  };
  std::vector<std::pair<size_t, TargetResult>> reported;  // (target index, result)
  std::vector<int> found;
  std::vector<std::vector<cv::Point2f>> masks;
  const int window = options_.tracker.retrackLostFrames;
  // 1. The tracking lanes of the targets being tracked (or lost within the re-track window), side
  //    by side (parallelEach: each lane has its own state; the pyramid, built to its last level
  //    first, is only read), then their results in target order.
  std::vector<size_t> following;
  for (size_t i = 0; i < targets_.size(); ++i)
    if (targets_[i].lane && targets_[i].framesSinceFound >= 0) following.push_back(i);
  std::vector<tracker::TrackResult> followed(following.size());
  if (!following.empty()) {
    tracker::FramePyramid& pyramid = framePyramid();
    if (following.size() > 1) pyramid.ensure(tracker::FramePyramid::kMaxLevels);
    parallelEach(following.size(), [&](size_t k) { followed[k] = targets_[following[k]].lane->track(pyramid); });
  }
  for (size_t k = 0; k < following.size(); ++k) {
    const size_t i = following[k];
    Target& t = targets_[i];
    tracker::TrackResult& r = followed[k];
    addTracking(result.timings, r.timings.tracking);
    if (r.found) {
      t.framesSinceFound = 0;
      found.push_back(t.info.id);
      masks.push_back(r.corners);
      reported.emplace_back(i, resultOf(t.info, std::move(r)));
    } else {
      if (++t.framesSinceFound == 1) reported.emplace_back(i, resultOf(t.info, std::move(r)));  // lost now
      if (t.framesSinceFound > window) t.framesSinceFound = -1;
    }
  }
  // 2. The detection lane for the others: always while none is found, else every search_every
  //    frames, and on the frame after a search that found one (where one print was found others
  //    often are in view: the 8-print grid is acquired in a few consecutive searches instead of
  //    one every search_every frames), within max_targets.
  // A target lost in step 1 and found again below is reported once, as detected; the next round
  // (or search) skips it and masks its quad.
  const auto report = [&](size_t index, TargetResult r) {
    reported.erase(std::remove_if(reported.begin(), reported.end(), [&](const auto& p) { return p.first == index; }),
                   reported.end());
    found.push_back(targets_[index].info.id);
    masks.push_back(r.corners);
    reported.emplace_back(index, std::move(r));
  };
  const auto indexOf = [&](int id) -> std::optional<size_t> {
    for (size_t i = 0; i < targets_.size(); ++i)
      if (targets_[i].info.id == id) return i;
    return std::nullopt;
  };
  if (async_) {
    // 2'. Asynchronous: a finished search's targets (found on an earlier frame) are carried to
    //     this frame by their tracking lanes and reported when those find them; then a new search
    //     on a copy of this frame when one is due (as below) and none is in flight.
    bool outcomeFound = false;
    if (std::optional<SearchOutcome> o = async_->poll(frames_)) {
      outcomeFound = !o->detections.empty();
      for (const tracker::TargetDetection& d : o->detections) {
        const std::optional<size_t> index = indexOf(d.target);
        if (!index || std::find(found.begin(), found.end(), d.target) != found.end()) continue;
        if (static_cast<int>(found.size()) >= options_.maxTargets) break;
        Target& t = targets_[*index];
        if (!t.model)  // a compact database target: decoded on the worker
          if (const auto m = o->models.find(d.target); m != o->models.end()) t.model = m->second;
        startLane(t, d.detection, carrySearchPx(o->frame), carriedFrames(o->frame));
        tracker::TrackResult carried = t.lane->track(framePyramid());
        addTracking(result.timings, carried.timings.tracking);
        if (!carried.found) {
          t.framesSinceFound = -1;
          continue;
        }
        TargetResult r = resultOf(t.info, std::move(carried));
        r.state = TrackingState::Detecting;
        report(*index, std::move(r));
      }
    }
    const int room = options_.maxTargets - static_cast<int>(found.size());
    const bool due = found.empty() || outcomeFound ||
                     (options_.searchEvery > 0 && frames_ - lastSubmitted_ >= options_.searchEvery);
    if (due && room > 0 && async_->ready() && !async_->busy()) {
      SearchRequest q;
      q.frame = frames_;
      q.gray = gray->clone();
      q.excluded = found;
      q.masks = masks;
      q.room = room;
      q.rounds = kSearchRoundsPerFrame;
      for (const Target& t : targets_)
        if (t.model && t.stored) q.decoded.push_back(t.info.id);
      async_->submit(std::move(q));
      lastSubmitted_ = frames_;
    }
  }
  const bool search = found.empty() || lastSearchFound_ ||
                      (options_.searchEvery > 0 && frames_ % options_.searchEvery == 0);
  lastSearchFound_ = false;
  // Every candidate that passes, up to the room left: in a small database every target not
  // tracked is verified, best score first (MultiTargetDetectorOptions::verifyAllUpTo); in a large
  // one the shortlist (matcher.shortlist), and after a target is found only candidates scoring
  // nearly as well (followScoreRatio). A round that found targets is repeated at once on the same
  // frame with them masked (kSearchRoundsPerFrame): the keypoint budget they held goes to the
  // rest of the frame, where prints with few strong corners (the grid's baboon, aero3 and
  // starry_night) then pass — in this frame rather than the next.
  const int rounds = recognizer_ && recognizer_->verifiesEveryTarget() ? kSearchRoundsPerFrame : 1;
  for (int round = 0; search && recognizer_ && round < rounds; ++round) {
    const int room = options_.maxTargets - static_cast<int>(found.size());
    if (room <= 0) break;
    const std::vector<tracker::TargetDetection> detections = recognizer_->detect(*gray, found, masks, room);
    addDetection(result.timings, recognizer_->lastTimings());
    lastSearchFound_ = !detections.empty();
    if (detections.empty()) break;
    for (const tracker::TargetDetection& d : detections) {
      const std::optional<size_t> slot = indexOf(d.target);
      if (!slot) continue;
      const size_t index = *slot;
      Target& t = targets_[index];
      TargetResult r = resultOf(t.info, d.detection);
      if (options_.tracker.trackingEnabled) {
        startLane(t, d.detection);
        if (options_.tracker.refineDetections) {  // the NCC patches fit closer than the matches
          tracker::TrackResult refined = t.lane->track(framePyramid());
          addTracking(result.timings, refined.timings.tracking);
          if (refined.found) {
            r = resultOf(t.info, std::move(refined));
            r.state = TrackingState::Detecting;
          } else {
            startLane(t, d.detection);
          }
        }
      }
      report(index, std::move(r));
    }
  }
  std::sort(reported.begin(), reported.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [index, r] : reported) result.targets.push_back(std::move(r));
  releaseLostModels();
}

void TargetTracking::releaseLostModels() {
  std::vector<Target*> lost;  // database targets decoded but not being tracked
  for (Target& t : targets_)
    if (t.stored && t.model && t.framesSinceFound < 0) lost.push_back(&t);
  if (lost.size() <= kKeptLostModels) return;
  std::sort(lost.begin(), lost.end(), [](const Target* a, const Target* b) { return a->lastStarted > b->lastStarted; });
  for (size_t i = kKeptLostModels; i < lost.size(); ++i) {
    Target& t = *lost[i];
    t.lane.reset();  // holds the model's image (tracker::Tracker keeps the model)
    t.refiner.reset();
    t.curvedRefiner.reset();
    t.refinerFactor = 0;
    t.model.reset();
  }
}

void TargetTracking::refine(const cv::Mat& frame, const tracker::CameraCalibration& calibration, int workingFactor,
                            FrameResult& result) {
  if (!options_.finalRefinement) return;
  if (workingFactor < 1) throw std::invalid_argument("refine: working factor " + std::to_string(workingFactor) + " < 1");
  const auto start = std::chrono::steady_clock::now();
  const long long frame0 = frames_ - 1;  // track() counted this frame already
  // Each target side by side (parallelEach): a refinement reads the frame and writes only its
  // target's state and result.
  parallelEach(result.targets.size(), [&](size_t k) {
    TargetResult& r = result.targets[k];
    Target& t = find(r.id, "refine");
    if (!r.found) {
      t.lastCentre.reset();
      t.lastMotion.reset();
      t.lastPose.reset();
      t.poseBefore.reset();
      return;
    }
    if (t.info.geometry.curved()) return refineCurved(t, frame, calibration, workingFactor, frame0, r);
    if (!t.refiner || t.refinerFactor != workingFactor) {
      tracker::RefinerOptions refinerOptions;
      refinerOptions.maxShiftPx *= workingFactor;
      t.refiner = std::make_shared<const tracker::HomographyRefiner>(modelOf(t).image, refinerOptions);
      t.refinerFactor = workingFactor;
    }
    const cv::Size size = modelOf(t).image.size();
    const auto centreOf = [&](const cv::Matx33d& H) {
      const cv::Vec3d c = H * cv::Vec3d(0.5 * size.width, 0.5 * size.height, 1);
      return cv::Point2d(c[0] / c[2], c[1] / c[2]);
    };
    // The blur streak: the exposure × the centre's velocity at this frame's time, the middle of
    // its exposure. The motion since the last frame is the velocity half a frame earlier; with
    // the motion before it, the second-order backward difference (3 c(t) − 4 c(t−1) + c(t−2)) / 2
    // = m + (m − m') / 2 is the velocity at t. A shaking hand turns within a few frames: on the
    // motion_blur preset at 1280×720 (target 1/16 of the frame) the last motion alone left 71 %
    // of the frames within 5 px, this 88 %.
    const bool consecutive = t.lastCentre && t.lastRefined == frame0 - 1;
    cv::Vec2d streak(0, 0);
    if (consecutive) {
      const tracker::Tracker* lane = single_ ? &*single_ : t.lane ? &*t.lane : nullptr;
      const double exposure = lane ? lane->exposure() : options_.tracker.tracking.blurExposure;
      const cv::Point2d motion = centreOf(r.homography) - *t.lastCentre;
      const cv::Point2d velocity = t.lastMotion ? motion + 0.5 * (motion - *t.lastMotion) : motion;
      streak = cv::Vec2d(velocity.x, velocity.y) * exposure;
    }
    // A target whose refinements keep being refused for a correlation under minCorrelation
    // (korean_book's blurred, bent cover: 312 of 321, each after ~70 iterations of the
    // coarse-to-fine path, 3.7 ms a frame) gets the quick path only on the frames it goes on being
    // tracked, the whole one every kFullRefinementEvery refusals (a view that correlates again is
    // refined again within that many frames). Refusals for other reasons (a large shift, too
    // little in view: fast motion) keep the whole path.
    const bool quickOnly =
        consecutive && t.refusedInARow >= kRefusalsBeforeQuick && t.refusedInARow % kFullRefinementEvery != 0;
    const tracker::Refinement refined = t.refiner->refine(frame, r.homography, streak, !quickOnly);
    const bool uncorrelated = !refined.homography && refined.correlation < t.refiner->options().minCorrelation;
    t.refusedInARow = uncorrelated ? t.refusedInARow + 1 : 0;
    const cv::Point2d centre = centreOf(refined.homography ? *refined.homography : r.homography);
    if (consecutive)
      t.lastMotion = centre - *t.lastCentre;
    else
      t.lastMotion.reset();
    t.lastRefined = frame0;
    t.lastCentre = centre;
    const double mpp = modelOf(t).metresPerPixel();
    tracker::Pose pose;
    try {
      if (!refined.homography) throw std::runtime_error("not refined");
      // IPPE on a 3 × 3 grid of the refined homography (no Levenberg-Marquardt: the grid fits it
      // exactly; 0.03 instead of 0.2 ms).
      pose = tracker::poseFromHomography(calibration, *refined.homography, size, mpp, 3, false);
    } catch (const std::exception&) {
      // Not refined, or a homography no camera makes: the lanes' result, whose pose the tracking
      // lane left unrefined (pipelineOptions()); its inliers refine it here.
      if (options_.refinePose && r.inlierTargetPoints.size() >= 4) {
        try {
          pose = tracker::estimatePose(calibration, r.inlierTargetPoints, r.inlierFramePoints, mpp, true);
        } catch (const std::exception&) {  // degenerate inliers: the lane's pose as it is
          return;
        }
        setPose(r, pose);
      }
      return;
    }
    r.homography = *refined.homography;
    r.corners = cornersOf(r.homography, size);
    closeQuadOutline(r);
    setPose(r, pose);
    // The reported error is the reported pose's, over the lane's inliers (a detection the lane did
    // not refine has none and keeps its own).
    if (!r.inlierTargetPoints.empty())
      r.reprojectionErrorPx =
          tracker::meanReprojectionErrorPx(calibration, pose, r.inlierTargetPoints, r.inlierFramePoints, mpp);
  });
  result.timings.refine += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void TargetTracking::refineCurved(Target& t, const cv::Mat& frame, const tracker::CameraCalibration& calibration,
                                  int workingFactor, long long frame0, TargetResult& r) {
  if (!t.curvedRefiner || t.refinerFactor != workingFactor) {
    tracker::RefinerOptions refinerOptions;
    refinerOptions.maxShiftPx *= workingFactor;
    t.curvedRefiner = std::make_shared<const tracker::CurvedRefiner>(modelOf(t), refinerOptions);
    t.refinerFactor = workingFactor;
  }
  tracker::Pose pose;
  pose.rvec = r.pose.rvec;
  pose.tvec = r.pose.t;
  pose.inliers = r.inliers;
  // Each label point's blur: the exposure × its velocity at this frame's time, from the poses of
  // the last two frames when they were refined (as the flat targets' centre, above).
  const bool consecutive = t.lastPose && t.lastRefined == frame0 - 1;
  tracker::CurvedMotion motion;
  if (consecutive) {
    const tracker::Tracker* lane = single_ ? &*single_ : t.lane ? &*t.lane : nullptr;
    motion.before = t.lastPose;
    motion.beforeThat = t.poseBefore;
    motion.exposure = lane ? lane->exposure() : options_.tracker.tracking.blurExposure;
  }
  const bool quickOnly =
      consecutive && t.refusedInARow >= kRefusalsBeforeQuick && t.refusedInARow % kFullRefinementEvery != 0;
  const tracker::CurvedRefinement refined = t.curvedRefiner->refine(frame, calibration, pose, motion, !quickOnly);
  const bool uncorrelated = !refined.pose && refined.correlation < t.curvedRefiner->options().minCorrelation;
  t.refusedInARow = uncorrelated ? t.refusedInARow + 1 : 0;
  t.poseBefore = consecutive ? t.lastPose : std::nullopt;
  t.lastPose = refined.pose ? *refined.pose : pose;
  t.lastRefined = frame0;
  if (!refined.pose) return;  // refused: the lanes' result as it is
  // The lane goes on from its own pose, as a flat target's does: with the Tracker's pose replaced
  // by the refined one, the can's and cup's unconstrained presets lost 0.6–2.7 points within 5 px
  // (a refinement taken in a blurred frame that was off misled the next frames) for 1.7–2.0 points
  // gained on motion_blur.
  const detection::LabelSurface& surface = t.curvedRefiner->surface();
  const cv::Size size = modelOf(t).image.size();
  setPose(r, *refined.pose);
  r.homography = tracker::tangentPlaneHomography(calibration, *refined.pose, surface.metresPerPixel());
  const double w = size.width, h = size.height;
  std::vector<cv::Point3d> corners;
  for (const cv::Point2d& c : {cv::Point2d(0, 0), cv::Point2d(w, 0), cv::Point2d(w, h), cv::Point2d(0, h)})
    corners.push_back(surface.point(c));
  std::vector<cv::Point2d> projected;
  cv::projectPoints(corners, refined.pose->rvec, refined.pose->tvec, calibration.K, calibration.distortion, projected);
  r.corners.clear();
  for (const cv::Point2d& c : projected) r.corners.emplace_back(static_cast<float>(c.x), static_cast<float>(c.y));
  r.outline = tracker::projectedOutline(surface, size, *refined.pose, calibration);
  // The reported error is the refined pose's, over the lane's inliers (their label points).
  if (!r.inlierTargetPoints.empty()) {
    std::vector<cv::Point3d> object;
    for (const cv::Point2f& p : r.inlierTargetPoints) object.push_back(surface.point(p));
    cv::projectPoints(object, refined.pose->rvec, refined.pose->tvec, calibration.K, calibration.distortion, projected);
    double sum = 0;
    for (size_t i = 0; i < projected.size(); ++i) sum += cv::norm(cv::Point2d(r.inlierFramePoints[i]) - projected[i]);
    r.reprojectionErrorPx = sum / static_cast<double>(projected.size());
  }
}

void TargetTracking::smooth(const tracker::CameraCalibration& calibration, FrameResult& result) {
  if (!options_.poseFilter) return;
  const long long frame = frames_ - 1;  // track() counted this frame already
  for (TargetResult& r : result.targets) {
    Target& t = find(r.id, "smooth");
    if (t.info.geometry.curved()) continue;  // the filter refits a plane's pose to the corners
    if (!r.found || r.corners.size() != 4) {
      t.lastSmoothedFrame = -1;
      continue;
    }
    if (!t.cornerFilter) t.cornerFilter.emplace(options_.poseFilterOptions);
    if (t.lastSmoothedFrame != frame - 1) t.cornerFilter->reset();
    const double dt = result.timestampNs > 0 && t.lastSmoothedNs > 0 && result.timestampNs > t.lastSmoothedNs
                          ? 1e-9 * static_cast<double>(result.timestampNs - t.lastSmoothedNs)
                          : 1.0 / 30.0;
    t.lastSmoothedFrame = frame;
    t.lastSmoothedNs = result.timestampNs;
    const std::vector<cv::Point2f> filtered = t.cornerFilter->filter(r.corners, dt);
    const cv::Size size = modelOf(t).image.size();
    const float w = static_cast<float>(size.width), h = static_cast<float>(size.height);
    const std::vector<cv::Point2f> targetCorners = {{0, 0}, {w, 0}, {w, h}, {0, h}};
    const cv::Matx33d H = cv::getPerspectiveTransform(targetCorners, filtered);
    tracker::Pose pose;
    try {
      pose = tracker::poseFromHomography(calibration, H, size, modelOf(t).metresPerPixel(), 3, false);
    } catch (const std::exception&) {  // a quad no camera makes: report the unfiltered one
      continue;
    }
    r.homography = H * (1.0 / H(2, 2));
    r.corners = filtered;
    closeQuadOutline(r);
    setPose(r, pose);
  }
}

void TargetTracking::startLane(Target& t, const cv::Matx33d& homography, double searchRangePx, int framesBefore) {
  if (!t.lane) {
    tracker::TrackerOptions o = options_.tracker;
    o.detectionEnabled = false;
    t.lane.emplace(*caps_, modelOf(t), *calibration_, o);
  }
  t.lane->initialise(homography, searchRangePx, framesBefore);
  t.framesSinceFound = 0;
  t.lastStarted = frames_;
}

void TargetTracking::startLane(Target& t, const tracker::Detection& detection, double searchRangePx, int framesBefore) {
  if (!t.info.geometry.curved()) return startLane(t, detection.homography, searchRangePx, framesBefore);
  if (!t.lane) {
    tracker::TrackerOptions o = options_.tracker;
    o.detectionEnabled = false;
    t.lane.emplace(*caps_, modelOf(t), *calibration_, o);
  }
  t.lane->initialise(detection.pose, searchRangePx);  // a label on its surface starts from its pose
  t.framesSinceFound = 0;
  t.lastStarted = frames_;
}

void TargetTracking::startTracking(TargetId id, const cv::Matx33d& homography) {
  Target& t = find(id, "startTracking");
  if (t.info.geometry.curved())
    throw InputError("startTracking: target '" + t.info.name + "' is a " + toString(t.info.geometry.kind) +
                     " target: its tracking starts from a detection's pose, not from a homography");
  if (targets_.size() == 1 && single_)
    single_->initialise(homography);
  else if (targets_.size() > 1 && caps_ && calibration_ && !gpuReleased_)
    startLane(t, homography);
}

void TargetTracking::resetTracking() {
  if (async_) async_->cancel();
  lastSearchRejection_.clear();
  if (single_) single_->reset();
  for (Target& t : targets_) {
    if (t.lane) t.lane->reset();
    t.framesSinceFound = -1;
    t.lastFound.reset();
  }
}

void TargetTracking::releaseGpu() {
  if (single_) single_->releaseGpu();
  recognizer_.reset();
  if (async_) async_->clear();  // its lanes and the worker's context
  gpuReleased_ = true;
}

void TargetTracking::restoreGpu(const gpu::Capabilities& caps) {
  caps_ = caps;
  gpuReleased_ = false;
  if (single_) single_->restoreGpu(caps);
  rebuildLanes();
}

}  // namespace nft::session
