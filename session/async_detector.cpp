#include "session/async_detector.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "detection/backend.h"
#include "gpu/context.h"
#include "session/target_words.h"

namespace nft::session {
namespace {

void addTimings(tracker::DetectionTimings& sum, const tracker::DetectionTimings& t) {
  sum.detect += t.detect;
  sum.describe += t.describe;
  sum.match += t.match;
  sum.ransac += t.ransac;
  sum.pose += t.pose;
}

/// Whether lanes with these options use GL on `caps`'s device (a GPU backend).
bool usesGl(const tracker::DetectionLaneOptions& o, const gpu::Capabilities& caps) {
  return detection::resolveBackend(o.descriptorBackend, caps) == detection::Backend::Gpu ||
         detection::resolveBackend(o.matcherBackend, caps) == detection::Backend::Gpu;
}

}  // namespace

struct AsyncDetector::Impl {
  explicit Impl(int delay) : delayFrames(delay) {
    if (delayFrames == 0) worker = std::thread([this] { workLoop(); });
  }

  ~Impl() {
    if (!worker.joinable()) return;
    try {
      clear();
    } catch (...) {  // a destructor must not throw; the thread is joined below either way
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    worker.join();
  }

  // --- The worker: one thread running posted jobs in order -------------------------------------
  void workLoop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [this] { return stop || !jobs.empty(); });
        if (jobs.empty()) return;  // stop, and nothing left
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      job();
    }
  }

  void post(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      jobs.push_back(std::move(job));
    }
    wake.notify_one();
  }

  /// Runs `f` where the lanes live (the worker, or here with a delay) and waits for it; its
  /// exception is rethrown here. Jobs run in order, so this also waits for every job before it.
  void runThere(const std::function<void()>& f) {
    if (delayFrames > 0) {
      f();
      return;
    }
    std::promise<void> done;
    std::future<void> result = done.get_future();
    post([&] {
      try {
        f();
        done.set_value();
      } catch (...) {
        done.set_exception(std::current_exception());
      }
    });
    result.get();
  }

  // --- The lanes (touched only where runThere runs) ---------------------------------------------
  /// The worker's own context, made when a GPU backend needs one (destroyed last: the lanes' GL
  /// objects are freed on it).
  std::optional<gpu::Context> context;
  std::optional<gpu::Capabilities> contextCaps;
  std::optional<SingleLaneSpec> single;
  std::optional<tracker::DetectionLane> lane;
  cv::Size frameSize;
  std::optional<tracker::MultiTargetDetector> recognizer;
  /// The compact targets of the recogniser, by id: a found one's model is decoded here.
  std::map<int, std::shared_ptr<const detection::StoredTarget>> storedTargets;
  /// Why the recogniser posted by setSeveral could not be built (searches rethrow it).
  std::exception_ptr buildError;

  /// The capabilities the lanes are built with: the worker's own context's (made now if needed)
  /// or, for CPU lanes and replays, the caller's probe.
  const gpu::Capabilities& lanesCaps(const tracker::DetectionLaneOptions& o, const gpu::Capabilities& caps) {
    if (delayFrames > 0 || !usesGl(o, caps)) return caps;
    if (!context) {
      context.emplace(gpu::Context::createHeadless());
      contextCaps = gpu::probeCapabilities();
    }
    return *contextCaps;
  }

  void dropLanes() {
    lane.reset();
    single.reset();
    recognizer.reset();
    storedTargets.clear();
    buildError = nullptr;
    context.reset();  // after the lanes: their GL objects are freed on it
    contextCaps.reset();
  }

  SearchOutcome search(const SearchRequest& q) {
    const auto start = std::chrono::steady_clock::now();
    if (buildError) std::rethrow_exception(buildError);
    SearchOutcome o;
    o.frame = q.frame;
    if (lane) {
      const tracker::TrackerOptions& to = single->options;
      std::optional<tracker::Detection> d;
      if (q.near && to.regionDetection)
        if (const std::optional<cv::Rect> region =
                tracker::detectionRegion(*q.near, single->model->image.size(), frameSize, to.regionMargin)) {
          d = lane->detect(q.gray, *region, *q.near);
          addTimings(o.timings, lane->lastTimings());
        }
      if (!d) {
        d = lane->detect(q.gray);
        addTimings(o.timings, lane->lastTimings());
      }
      if (d)
        o.detections.push_back({single->id, std::move(*d), 0.0});
      else
        o.rejection = lane->lastRejection();
    } else if (recognizer) {
      std::vector<int> excluded = q.excluded;
      std::vector<std::vector<cv::Point2f>> masks = q.masks;
      const int rounds = recognizer->verifiesEveryTarget() ? q.rounds : 1;
      for (int round = 0; round < rounds; ++round) {
        const int room = q.room - static_cast<int>(o.detections.size());
        if (room <= 0) break;
        std::vector<tracker::TargetDetection> found = recognizer->detect(q.gray, excluded, masks, room);
        addTimings(o.timings, recognizer->lastTimings());
        if (found.empty()) {
          if (o.detections.empty()) o.rejection = recognizer->lastRejection();
          break;
        }
        for (tracker::TargetDetection& d : found) {
          excluded.push_back(d.target);
          masks.push_back(d.detection.corners);
          const bool held = std::find(q.decoded.begin(), q.decoded.end(), d.target) != q.decoded.end();
          if (const auto s = storedTargets.find(d.target); s != storedTargets.end() && !held)
            o.models[d.target] = std::make_shared<detection::TargetModel>(s->second->decode());
          o.detections.push_back(std::move(d));
        }
      }
    }
    o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return o;
  }

  void clear() {
    cancel();
    runThere([this] { dropLanes(); });
    configured = false;
  }

  void cancel() {
    if (delayFrames == 0) runThere([] {});  // jobs run in order: the search in flight has ended
    std::lock_guard<std::mutex> lock(mutex);
    ++generation;
    pending = false;
    outcome.reset();
    error = nullptr;
    pendingFrame = -1;
  }

  const int delayFrames;
  std::thread worker;
  std::mutex mutex;  // guards jobs, stop and the outcome slot below
  std::condition_variable wake;
  std::deque<std::function<void()>> jobs;
  bool stop = false;
  // Set by setSingle/setSeveral, dropped by clear(); read by ready(). The caller's thread only.
  bool configured = false;
  // The outcome slot of the search in flight.
  bool pending = false;  // submitted, not yet taken
  long long pendingFrame = -1;
  unsigned generation = 0;  // a cancelled search's outcome (older generation) is dropped
  std::optional<SearchOutcome> outcome;
  std::exception_ptr error;
};

AsyncDetector::AsyncDetector(int delayFrames) {
  if (delayFrames < 0)
    throw std::invalid_argument("AsyncDetector: delay " + std::to_string(delayFrames) + " frames: expected >= 0");
  impl_ = std::make_unique<Impl>(delayFrames);
}

AsyncDetector::~AsyncDetector() = default;
AsyncDetector::AsyncDetector(AsyncDetector&&) noexcept = default;
AsyncDetector& AsyncDetector::operator=(AsyncDetector&&) noexcept = default;

void AsyncDetector::setSingle(const gpu::Capabilities& caps, const tracker::CameraCalibration& calibration,
                              SingleLaneSpec spec) {
  if (!spec.model) throw std::invalid_argument("AsyncDetector::setSingle: no target model");
  impl_->cancel();
  Impl& s = *impl_;
  s.configured = false;
  s.runThere([&] {
    s.dropLanes();
    const gpu::Capabilities& laneCaps = s.lanesCaps(spec.options.detection, caps);
    s.lane.emplace(laneCaps, *spec.model, calibration, spec.options.detection);
    s.frameSize = calibration.imageSize;
    s.single = std::move(spec);
  });
  s.configured = true;
}

void AsyncDetector::setSeveral(const gpu::Capabilities& caps, const tracker::CameraCalibration& calibration,
                               RecognizerSpec spec) {
  impl_->cancel();
  Impl& s = *impl_;
  s.configured = false;
  // The job owns copies of what it reads: the caller goes on (and may change its own) meanwhile.
  auto build = [&s, caps, calibration, spec = std::move(spec)] {
    s.dropLanes();
    try {
      const gpu::Capabilities& laneCaps = s.lanesCaps(spec.options.lane, caps);
      const auto descriptorsOf = [](const RecognizerSpec::Target& t) {
        return t.model ? t.model->descriptors : t.stored->decodeDescriptors();
      };
      // Each target's descriptors decoded once, for the training and its words alike.
      std::vector<cv::Mat> descriptors(spec.targets.size());
      for (size_t i = 0; i < spec.targets.size(); ++i)
        if (spec.trainVocabulary || spec.targets[i].words.empty()) descriptors[i] = descriptorsOf(spec.targets[i]);
      detection::Vocabulary vocabulary = spec.vocabulary;
      if (spec.trainVocabulary) {
        std::vector<int> frontal;
        for (const RecognizerSpec::Target& t : spec.targets)
          frontal.push_back(t.model ? t.model->frontalKeypoints() : t.stored->frontalKeypoints());
        vocabulary = trainTargetsVocabulary(descriptors, frontal);
      }
      s.recognizer.emplace(laneCaps, calibration, vocabulary, spec.type, spec.orientation, spec.options);
      for (size_t i = 0; i < spec.targets.size(); ++i) {
        const RecognizerSpec::Target& t = spec.targets[i];
        const std::vector<int> words = descriptors[i].empty() ? t.words : vocabulary.quantize(descriptors[i]);
        if (t.stored) {
          s.recognizer->addTarget(t.id, t.stored, words);
          s.storedTargets[t.id] = t.stored;
        } else {
          s.recognizer->addTarget(t.id, t.model, words);
        }
      }
      s.frameSize = calibration.imageSize;
    } catch (...) {
      s.dropLanes();
      if (s.delayFrames > 0) throw;
      s.buildError = std::current_exception();  // rethrown by the next search, on the worker
    }
  };
  if (s.delayFrames > 0)
    build();
  else
    s.post(std::move(build));
  s.configured = true;
}

void AsyncDetector::clear() { impl_->clear(); }

bool AsyncDetector::ready() const { return impl_->configured; }

bool AsyncDetector::busy() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->pending;
}

long long AsyncDetector::inFlightFrame() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->pending ? impl_->pendingFrame : -1;
}

void AsyncDetector::submit(SearchRequest request) {
  Impl& s = *impl_;
  if (!ready()) throw std::logic_error("AsyncDetector::submit: no lanes (setSingle or setSeveral first)");
  unsigned generation;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.pending) throw std::logic_error("AsyncDetector::submit: a search is in flight");
    s.pending = true;
    s.pendingFrame = request.frame;
    generation = s.generation;
  }
  if (s.delayFrames > 0) {
    try {
      SearchOutcome o = s.search(request);
      std::lock_guard<std::mutex> lock(s.mutex);
      s.outcome = std::move(o);
    } catch (...) {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.pending = false;
      s.pendingFrame = -1;
      throw;
    }
    return;
  }
  s.post([&s, generation, q = std::move(request)] {
    std::optional<SearchOutcome> o;
    std::exception_ptr e;
    try {
      o = s.search(q);
    } catch (...) {
      e = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(s.mutex);
    if (generation != s.generation) return;  // cancelled meanwhile
    s.outcome = std::move(o);
    s.error = e;
  });
}

std::optional<SearchOutcome> AsyncDetector::poll(long long frame) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.pending) return std::nullopt;
  if (s.error) {
    std::exception_ptr e = s.error;
    s.error = nullptr;
    s.pending = false;
    s.pendingFrame = -1;
    std::rethrow_exception(e);
  }
  if (!s.outcome) return std::nullopt;
  if (s.delayFrames > 0 && frame < s.outcome->frame + s.delayFrames) return std::nullopt;
  std::optional<SearchOutcome> o = std::move(s.outcome);
  s.outcome.reset();
  s.pending = false;
  s.pendingFrame = -1;
  return o;
}

void AsyncDetector::cancel() { impl_->cancel(); }

}  // namespace nft::session
