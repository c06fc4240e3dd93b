#pragma once
// The targets of a Session and the lanes that find and follow them (../shared/DESIGN.md, "The
// pipeline"):
// - one target: the two-lane tracker::Tracker, exactly as before several targets existed;
// - several: recognition among them by tracker::MultiTargetDetector (visual words and an
//   inverted index shortlist, then matching and verification of the shortlisted targets only;
//   detection/vocabulary.h says which method and why), and a tracking lane per found target
//   (tracker::Tracker with its detection lane off, all of them on one pyramid of the frame, side
//   by side on OpenCV's thread pool: session/parallel_each.h; their final refinements too),
//   up to max_targets at once (a curved target, a label on a can or a cup, among them: verified
//   by PnP on its surface, its lane started from the detection's pose and following the label
//   on its surface; tracker/multi_target_detector.h, tracker/tracker.h); while some are
//   tracked, the others are looked for every search_every frames (and on the frame after a
//   search that found one) with the tracked targets' quads masked; a search that found targets
//   is repeated once on the same frame with theirs masked too. A target is reported at most
//   once a frame.
// Going from one target to several (or back) starts the tracking afresh.
// With PipelineOptions::asyncDetection (or a replayed delay, asyncDelayFrames) the detection lane
// or the recogniser runs in an AsyncDetector (session/async_detector.h) instead: track() takes a
// finished search's outcome (for an earlier frame k), starts the tracking lane of each target it
// found from its frame-k homography, searching recovery_search_px around it in this frame (the
// carry to the current frame), and reports it only if that tracking finds it; then it submits a
// new search on a copy of this frame when one is due (as the synchronous lanes would search) and
// none is in flight. Targets being tracked are not searched for.
// Internal to session/: the Session checks arguments and threads; GL work on its context.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/target_database.h"
#include "detection/target_model.h"
#include "detection/vocabulary.h"
#include "gpu/capabilities.h"
#include "nft/types.h"
#include "session/async_detector.h"
#include "session/pipeline_options.h"
#include "tracker/camera_calibration.h"
#include "tracker/frame_pyramid.h"
#include "tracker/curved_refiner.h"
#include "tracker/homography_refiner.h"
#include "tracker/multi_target_detector.h"
#include "tracker/one_euro_filter.h"
#include "tracker/tracker.h"

namespace nft::session {

/// Targets, their vocabulary and the lanes. Not thread-safe; the GL context current in every
/// call that builds or uses lanes (add, remove, setCalibration, track, restoreGpu).
class TargetTracking {
 public:
  /// @throws std::invalid_argument for options.asyncDelayFrames < 0.
  explicit TargetTracking(const PipelineOptions& options);
  ~TargetTracking();
  TargetTracking(TargetTracking&&) noexcept;
  TargetTracking& operator=(TargetTracking&&) noexcept;

  /// Adds a target; info.id is assigned here (ids are never reused).
  /// @throws InputError when it would mix descriptor types or orientations with the other
  ///   targets, its name is already taken, or the lanes cannot take it (nothing changes then).
  TargetId add(detection::TargetModel model, TargetInfo info);
  /// Adds every target of a database (source: its file, for TargetInfo::source). Its vocabulary
  /// becomes the Session's when none came from a database before.
  /// @throws InputError for a name already taken (naming it) or mixed descriptor types.
  std::vector<TargetId> addDatabase(detection::TargetDatabase database, const std::string& source);
  /// @throws InputError for an unknown or removed id.
  void remove(TargetId id);
  /// @throws InputError for an unknown or removed id.
  const TargetInfo& info(TargetId id) const;
  std::vector<TargetInfo> infos() const;
  /// The model of a target (a database target kept compact is decoded now; the reference holds
  /// until the next track(), which may release a lost one's model). @throws InputError for an unknown id.
  const detection::TargetModel& model(TargetId id) const;
  bool empty() const { return targets_.empty(); }

  /// The camera, once the frame size is known: the lanes are built from then on. `fineFrameSize`:
  /// the size of the frames track() may be given as `detectionImage` (one target's detection lane
  /// searches those: DetectionLaneOptions::fineFrameSize); empty: none.
  void setCalibration(const tracker::CameraCalibration& calibration, const gpu::Capabilities& caps,
                      cv::Size fineFrameSize = {});
  /// Tracks one frame (CV_8UC1 or CV_8UC3 BGR of the calibration's size) into result.targets
  /// (in the order of the targets) and the stage timings. `detectionImage`: the same frame at
  /// setCalibration's fineFrameSize (CV_8UC1), which the detection of a single target searches
  /// instead (synchronous or on the worker); empty: `image`.
  void track(const cv::Mat& image, FrameResult& result, const cv::Mat& detectionImage = cv::Mat());
  /// Forgets what is tracked (and a search in flight).
  void resetTracking();
  /// True while a search submitted on an earlier frame has not been taken yet (asynchronous
  /// detection only).
  bool searchInFlight() const;
  /// The final refinement (PipelineOptions::finalRefinement): each found target of `result`, its
  /// results already in the pixels of `frame` (the full-resolution frame: CV_8UC1 or CV_8UC3),
  /// gets its homography refined on `frame` (tracker/homography_refiner.h; a target's refiner is
  /// built the first time it is found), with the motion blur its tracker models (its exposure ×
  /// the centre's velocity at this frame, from its last three frames when found on them all), and
  /// its corners and pose (planar PnP with `calibration`, the frame's) from it; a curved target
  /// gets its pose refined on its surface (tracker/curved_refiner.h, each label point blurred by
  /// its own motion over its last poses) and its homography, corners and outline from it;
  /// a refinement the refiner refuses leaves the result as it was. `workingFactor` is the
  /// working frame's downscale factor k (session/working_frame.h, >= 1): the lanes' errors are in
  /// working-frame pixels, so the largest correction the refiner accepts
  /// (RefinerOptions::maxShiftPx) is k times its default. Call it after track(), once a frame.
  /// Adds the time to result.timings.refine.
  void refine(const cv::Mat& frame, const tracker::CameraCalibration& calibration, int workingFactor,
              FrameResult& result);
  /// The pose filter (PipelineOptions::poseFilter; nothing when off): each found target of
  /// `result` (its corners in the full frame's pixels) gets its corners through its
  /// tracker::CornerFilter (One Euro, Casiez et al. CHI 2012), and its homography and pose (planar
  /// PnP with `calibration`) from them. The time step is the timestamps' difference when both are
  /// given (> 0 and increasing), else 1/30 s a frame; a target not found on the previous frame
  /// starts its filter afresh. Call it after refine(), once a frame.
  void smooth(const tracker::CameraCalibration& calibration, FrameResult& result);
  /// Starts tracking target `id` from a known homography (its model's pixels → this frame's
  /// pixels, e.g. an instant target's quad): the next track() follows it from there with the
  /// tracking lane, without a detection. Needs the calibration (setCalibration) and the GPU.
  /// @throws InputError for an unknown id or a curved target (its lane starts from a pose);
  ///   std::invalid_argument for a homography not finite.
  void startTracking(TargetId id, const cv::Matx33d& homography);
  /// Drops the GPU objects (the detection lanes); tracking state stays.
  void releaseGpu();
  /// Rebuilds them on the current context.
  void restoreGpu(const gpu::Capabilities& caps);

 private:
  /// True when the one target is curved (its detection runs in track() itself, not on the worker).
  bool curvedAlone() const;
  struct Target {
    TargetInfo info;
    /// Its model; for a database target kept compact (`stored`), null until it is found (or
    /// model() asks), and null again once it has been lost longer than the kKeptLostModels
    /// targets found after it (releaseLostModels).
    std::shared_ptr<detection::TargetModel> model;
    std::shared_ptr<const detection::StoredTarget> stored;  // a database target kept compact
    long long lastStarted = -1;             // the frame its tracking lane was last started on
    std::vector<int> words;                 // word ids in vocabulary_'s numbering; empty: not yet
    std::optional<tracker::Tracker> lane;   // several targets: its tracking lane
    int framesSinceFound = -1;              // -1: not being tracked
    bool recognized = false;                // added to recognizer_
    std::shared_ptr<const tracker::HomographyRefiner> refiner;  // built when first found
    std::shared_ptr<const tracker::CurvedRefiner> curvedRefiner;  // a curved target's, likewise
    int refinerFactor = 0;                  // the working factor the refiner was built for
    std::optional<tracker::Pose> lastPose;    // a curved target's pose in the last refined frame
    std::optional<tracker::Pose> poseBefore;  // ... and in the frame before it, when refined too
    std::optional<cv::Point2d> lastCentre;  // its centre in the last refined frame (frame pixels)
    std::optional<cv::Point2d> lastMotion;  // lastCentre minus the centre the frame before it
    long long lastRefined = -1;             // that frame's number
    int refusedInARow = 0;                  // refinements refused in a row for their correlation
    std::optional<cv::Matx33d> lastFound;   // one target, asynchronous: where it was last found
    std::optional<tracker::CornerFilter> cornerFilter;  // the pose filter's state
    long long lastSmoothedFrame = -1, lastSmoothedNs = 0;
  };

  /// refine() of a found curved target `t` (its result `r`), frame `frame0`: its pose aligned on
  /// the label's surface (tracker/curved_refiner.h), blurred by the motion of its last two poses.
  void refineCurved(Target& t, const cv::Mat& frame, const tracker::CameraCalibration& calibration,
                    int workingFactor, long long frame0, TargetResult& r);
  Target& find(TargetId id, const char* call);
  const Target& find(TargetId id, const char* call) const;
  void checkCompatible(detection::DescriptorType type, detection::Orientation orientation,
                       const std::string& name) const;
  /// The model of `t`, decoded from `t.stored` when not decoded yet.
  static const detection::TargetModel& modelOf(Target& t);
  /// Its descriptors (decoded from `t.stored` when the model is not, and not kept).
  static cv::Mat descriptorsOf(const Target& t);
  static detection::DescriptorType typeOf(const Target& t);
  static detection::Orientation orientationOf(const Target& t);
  /// Drops the decoded models, tracking lanes and refiners of the database targets kept compact
  /// that are not being tracked, but for the kKeptLostModels (target_tracking.cpp) found last.
  void releaseLostModels();
  /// Builds what the current targets need (single tracker, or vocabulary + recognizer); adds
  /// targets the recognizer does not know yet.
  void rebuildLanes();
  /// Several targets: the vocabulary (trained over every target's descriptors unless a database
  /// brought one) and each target's words.
  void ensureWords();
  void trackOne(const cv::Mat& image, FrameResult& result);
  /// Several targets: target `t`'s tracking lane (built when missing) started from `homography`.
  /// `searchRangePx`, `framesBefore`: the tracking lane's first search around it and how many
  /// frames before this one the homography was found (Tracker::initialise).
  void startLane(Target& t, const cv::Matx33d& homography, double searchRangePx = 0, int framesBefore = 0);
  /// The same from a detection: a flat target from its homography, a curved one from its pose
  /// (tracker::Tracker::initialise(const Pose&, double); its lane follows the label on its surface).
  void startLane(Target& t, const tracker::Detection& detection, double searchRangePx = 0, int framesBefore = 0);
  /// The first search range of a tracking lane started from a search of frame `searchedFrame`:
  /// tracking.recovery_search_px when that is an earlier frame (the camera moved since), else 0.
  double carrySearchPx(long long searchedFrame) const;
  /// How many frames before the one being tracked `searchedFrame` is (0 for this frame).
  int carriedFrames(long long searchedFrame) const;
  void trackSeveral(const cv::Mat& image, FrameResult& result);
  tracker::MultiTargetDetectorOptions recognizerOptions() const;
  void trackOneAsync(const cv::Mat& image, FrameResult& result);
  /// The grey frame (`image` itself or its conversion into gray_).
  const cv::Mat& grayOf(const cv::Mat& image);
  /// track()'s detectionImage during that call.
  cv::Mat detectionImage_;

  PipelineOptions options_;
  std::optional<gpu::Capabilities> caps_;
  std::optional<tracker::CameraCalibration> calibration_;
  std::vector<Target> targets_;
  TargetId nextId_ = 1;
  std::optional<detection::Vocabulary> vocabulary_;
  bool vocabularyFromDatabase_ = false;
  std::optional<tracker::Tracker> single_;                 // one target
  std::optional<tracker::MultiTargetDetector> recognizer_;  // several
  bool gpuReleased_ = false;
  long long frames_ = 0;
  bool lastSearchFound_ = false;  // the previous frame's search found a target: search again
  cv::Mat gray_;
  /// The frame's pyramid, built once a frame for every tracking lane (trackSeveral) instead of
  /// once per lane: the lanes' levels are the same cv::pyrDown of the same frame either way.
  tracker::FramePyramid pyramid_;
  /// Asynchronous detection (options_.asyncDetection or asyncDelayFrames > 0); destroyed first.
  std::optional<AsyncDetector> async_;
  /// One target, asynchronous: the rejection of the last search that found nothing.
  std::string lastSearchRejection_;
  /// Several targets, asynchronous: the frame of the last search submitted.
  long long lastSubmitted_ = -1;
};

}  // namespace nft::session
