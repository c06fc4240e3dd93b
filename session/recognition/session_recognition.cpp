// SessionRecognition: the Session's side of the recognition service. The camera thread only
// copies a frame and starts a request (std::async: a thread per request, at most one a
// min_interval_s); the request, JPEG encoding and model download run on that thread; the Session
// itself is touched on the camera thread alone.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include <opencv2/imgproc.hpp>

#include "nft/recognition.h"

namespace nft {
namespace {

double nowS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A new folder in the temporary directory (nft-models-XXXXXX): downloaded models are the app's
// cache, not something to keep.
std::string temporaryModelsDir() {
  namespace fs = std::filesystem;
  std::random_device seed;
  std::mt19937_64 rng(seed());
  for (int attempt = 0; attempt < 16; ++attempt) {
    const fs::path p = fs::temp_directory_path() / ("nft-models-" + std::to_string(rng() % 1000000000ULL));
    std::error_code ec;
    if (fs::create_directory(p, ec)) return p.string();
  }
  throw InputError("SessionRecognition: cannot make a models folder in " + fs::temp_directory_path().string());
}

constexpr size_t kMaxErrors = 32;

}  // namespace

SessionRecognition::SessionRecognition(Session& session)
    : SessionRecognition(session, makeRecognitionClient(session.config()), session.config().recognition.minIntervalS,
                         session.config().recognition.modelsDir) {}

SessionRecognition::SessionRecognition(Session& session, std::shared_ptr<RemoteRecognizer> recognizer,
                                       double minIntervalS, const std::string& modelsDir)
    : session_(session), recognizer_(std::move(recognizer)), minIntervalS_(minIntervalS), modelsDir_(modelsDir) {
  if (!recognizer_) throw ConfigError("SessionRecognition: recognizer: expected a RemoteRecognizer, got null");
  if (!(minIntervalS >= 0) || !std::isfinite(minIntervalS))
    throw ConfigError("SessionRecognition: min interval " + std::to_string(minIntervalS) +
                      " s: expected a number >= 0", "<config>", 0, "recognition.min_interval_s");
  if (modelsDir_.empty()) modelsDir_ = temporaryModelsDir();
}

SessionRecognition::~SessionRecognition() {
  if (pending_.valid()) pending_.wait();
}

void SessionRecognition::collect() {
  if (!pending_.valid() || pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  std::string failure;
  try {
    const Answer answer = pending_.get();
    if (!answer.modelPath.empty() && !added_.count(answer.recognition.targetId)) {
      const Recognition& r = answer.recognition;
      added_[r.targetId] = session_.addTarget(answer.modelPath, r.name, r.widthMetres);
    }
  } catch (const Error& e) {  // a RecognitionError of the request, or addTarget's InputError
    failure = e.what();
  } catch (const std::exception& e) {
    failure = std::string("recognition request: ") + e.what();
  }
  if (!failure.empty()) {
    if (errors_.size() == kMaxErrors) errors_.erase(errors_.begin());
    errors_.push_back(failure);
  }
}

FrameResult SessionRecognition::process(const cv::Mat& frame, long long timestampNs) {
  collect();
  FrameResult result = session_.process(frame, timestampNs);
  bool found = false;
  for (const TargetResult& t : result.targets) found = found || t.found;
  const double now = nowS();
  if (!found && !pending_.valid() && now - lastRequestS_ >= minIntervalS_) {
    lastRequestS_ = now;
    ++requests_;
    cv::Mat copy;  // the frame is the app's buffer, reused after process() returns
    if (frame.channels() == 4)
      cv::cvtColor(frame, copy, cv::COLOR_BGRA2BGR);  // JPEG takes 1 or 3 channels
    else
      copy = frame.clone();
    std::set<long long> known;
    for (const auto& [id, tid] : added_) known.insert(id);
    pending_ = std::async(std::launch::async, [recognizer = recognizer_, copy, known = std::move(known),
                                               folder = modelsDir_]() -> Answer {
      Answer a;
      a.recognition = recognizer->recognize(copy);
      if (a.recognition.found && !known.count(a.recognition.targetId))
        a.modelPath = recognizer->downloadModel(a.recognition.targetId, folder);
      return a;
    });
  }
  return result;
}

}  // namespace nft
