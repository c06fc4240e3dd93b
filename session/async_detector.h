#pragma once
// The detection lane (one target) or the recogniser (several) off the camera thread
// (../shared/DESIGN.md, "Threads and frame time"; config tracking.async_detection): an app calls
// process() on its camera thread, where the tracking lane takes a few ms, while a detection takes
// tens (p99 47 ms on a hand-held 480×852 clip). The search runs on a worker thread, on a copy of
// the frame it was given; TargetTracking takes its outcome on a later frame and carries it to that
// frame with the tracking lane before reporting it.
//
// One worker thread per Session, one search in flight at most. Its lanes are built, changed and
// destroyed on the worker: a GPU backend's GL objects belong to a headless context the worker
// makes for itself (EGL contexts are current on one thread; the lanes' objects are the worker's
// own, nothing is shared with the Session's context). With the CPU backends (the `auto` choice on
// a software renderer) no context is made.
//
// Deterministic replay (config tracking.async_delay_frames N > 0): no thread; each search runs in
// submit() on the caller's thread and context, and poll() hands it out N frames later, as if a
// worker had taken N frames. nft_replay and nft_eval measure the delay's effect on accuracy this way.
//
// Internal to session/; not thread-safe itself (TargetTracking calls it from the Session's thread).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/target_model.h"
#include "detection/vocabulary.h"
#include "gpu/capabilities.h"
#include "tracker/camera_calibration.h"
#include "tracker/multi_target_detector.h"
#include "tracker/tracker.h"

namespace nft::session {

/// One search: a frame and what to leave out.
struct SearchRequest {
  /// The frame's number (TargetTracking's count), handed back in SearchOutcome::frame.
  long long frame = 0;
  /// The frame, CV_8UC1 of the lanes' (working) frame size, or for one target of its lane's fine
  /// size (DetectionLaneOptions::fineFrameSize); the detector keeps it until the search is done, so
  /// give it a copy the caller does not write to.
  cv::Mat gray;
  /// Several targets: ids not to search for (those tracked now) and their quads (frame pixels),
  /// whose keypoints are masked (MultiTargetDetector::detect).
  std::vector<int> excluded;
  std::vector<std::vector<cv::Point2f>> masks;
  /// Several targets: most targets to find (>= 1), and rounds at most (>= 1): a round that found
  /// targets is repeated with them masked too, while the recogniser verifies every target
  /// (MultiTargetDetector::verifiesEveryTarget; session/target_tracking.cpp, kSearchRoundsPerFrame).
  int room = 1;
  int rounds = 1;
  /// One target: where it was last seen or predicted (target → frame pixels); with
  /// TrackerOptions::regionDetection the region around it is searched first, then the whole frame.
  std::optional<cv::Matx33d> near;
  /// Several targets: ids whose model the caller holds decoded already (a target lost lately,
  /// TargetTracking's kKeptLostModels): found again, it is not decoded a second time.
  std::vector<int> decoded;
};

/// What a search found.
struct SearchOutcome {
  /// SearchRequest::frame of the search: the detections' homographies are in that frame's pixels.
  long long frame = -1;
  /// The targets found (one target: its id given to setSingle), in the order they were found.
  std::vector<tracker::TargetDetection> detections;
  /// Why nothing was found ("" when something was).
  std::string rejection;
  /// Stage times of the search's detections summed, ms, and its wall-clock time, ms.
  tracker::DetectionTimings timings;
  double ms = 0;
  /// Several targets: the models of the database targets found that are kept compact
  /// (RecognizerSpec::Target::stored), decoded on the worker, keyed by target id — the camera
  /// thread starts their tracking lanes without decoding them (a JPEG of the target image: most of
  /// the 8 ms a found target's first frame took on llvmpipe). Empty for models given as models
  /// and for SearchRequest::decoded.
  std::map<int, std::shared_ptr<detection::TargetModel>> models;
};

/// One target: its lane's model and settings (TrackerOptions::detection and the region options).
struct SingleLaneSpec {
  int id = -1;
  std::shared_ptr<const detection::TargetModel> model;
  tracker::TrackerOptions options;
};

/// Several targets: the recogniser's vocabulary, descriptor kind, options and targets.
struct RecognizerSpec {
  detection::Vocabulary vocabulary;  ///< copies share the words and their search tree (unused with trainVocabulary)
  detection::DescriptorType type = detection::DescriptorType::Surf64;
  detection::Orientation orientation = detection::Orientation::Upright;
  tracker::MultiTargetDetectorOptions options;
  struct Target {
    int id = -1;
    std::shared_ptr<const detection::TargetModel> model;  ///< or null for a compact target:
    std::vector<int> words;  ///< word id per keypoint of model (vocabulary's numbering)
    /// A database target kept compact (MultiTargetDetector::addTarget's second overload).
    std::shared_ptr<const detection::StoredTarget> stored;
  };
  std::vector<Target> targets;
  /// True: no vocabulary given (targets added one by one, no database's): the worker trains it
  /// over the targets (trainTargetsVocabulary, session/target_words.h) and quantizes their words
  /// there. A target's empty words are quantized there in any case.
  bool trainVocabulary = false;
};

/// A detection lane or recogniser on a worker thread (or, with a delay, replayed in the caller's
/// thread); see the top of this file.
class AsyncDetector {
 public:
  /// @param delayFrames 0: a worker thread; > 0: searches run in submit() and are handed out
  ///   delayFrames frames later. @throws std::invalid_argument for a negative delay.
  explicit AsyncDetector(int delayFrames);
  /// Waits for a search in flight (a search cannot be interrupted: tens of ms), then destroys the
  /// lanes and the worker's context on the worker and joins it.
  ~AsyncDetector();
  AsyncDetector(AsyncDetector&&) noexcept;
  AsyncDetector& operator=(AsyncDetector&&) noexcept;

  /// Builds the single-target detection lane (tracker::DetectionLane) for frames of
  /// calibration.imageSize, replacing whatever was there; a search in flight is cancelled.
  /// `caps`: the Session's probe, which decides the backends (detection/backend.h); a GPU backend
  /// gets the worker's own headless context (probed again there).
  /// @throws what DetectionLane's constructor throws (std::invalid_argument, gpu::GpuError), on
  ///   the calling thread; the detector is then left without lanes.
  void setSingle(const gpu::Capabilities& caps, const tracker::CameraCalibration& calibration, SingleLaneSpec spec);
  /// Builds the recogniser of several targets (tracker::MultiTargetDetector) with every target of
  /// `spec`, replacing whatever was there; a search in flight is cancelled. With a worker the
  /// recogniser is built there and this returns at once (a 1,001-target database's took 31-40 ms
  /// of the camera thread's first frame on llvmpipe); the first search runs after it.
  /// @throws with a delay (no worker): what MultiTargetDetector's constructor and addTarget throw,
  ///   as setSingle. With a worker such an error is thrown by the poll() that would have handed
  ///   out the next search's outcome (the recogniser is then absent, and every search throws it
  ///   again until the next setSeveral or setSingle).
  void setSeveral(const gpu::Capabilities& caps, const tracker::CameraCalibration& calibration, RecognizerSpec spec);
  /// Cancels a search in flight and destroys the lanes and the worker's GL context (GL context
  /// loss: Session::releaseGpu; or no target left).
  void clear();
  /// True after setSingle or setSeveral (the lanes built, or being built on the worker) until
  /// clear().
  bool ready() const;

  /// True while a search was submitted and its outcome not yet taken by poll(): no other can be
  /// submitted then.
  bool busy() const;
  /// Starts a search. @throws std::logic_error when busy() or not ready(); with a delay, what
  ///   the search throws (std::invalid_argument for a frame of another size).
  void submit(SearchRequest request);
  /// The outcome of the search in flight when it is done (with a delay: on the frame
  /// request.frame + delayFrames or later), std::nullopt otherwise. `frame`: the caller's current
  /// frame number. @throws the exception the search threw on the worker (once).
  std::optional<SearchOutcome> poll(long long frame);
  /// Forgets a search in flight: waits for it to end (the worker does not interrupt one) and
  /// drops its outcome. Nothing to do when none is.
  void cancel();

  /// The frame the search in flight was submitted for (busy() true), else -1.
  long long inFlightFrame() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::session
