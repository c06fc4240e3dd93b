#include "tracker/multi_target_detector.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <list>
#include <optional>
#include <stdexcept>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "gpu/capabilities.h"
#include "tracker/curved_detection.h"

namespace nft::tracker {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

}  // namespace

struct MultiTargetDetector::Impl {
  struct Target {
    std::shared_ptr<const detection::TargetModel> model;         // a decoded target, or
    std::shared_ptr<const detection::StoredTarget> stored;       // a compact one
    std::vector<cv::Point2f> points;  // a decoded target's keypoint positions (a compact one's: keypointsOf())
    cv::Size imageSize;
    double metresPerPixel = 0;
    int frontal = 0;
    /// A curved target's label surface: verified by PnP on it (verifyCurvedDetection) instead of
    /// a homography. std::nullopt for a flat one.
    std::optional<detection::LabelSurface> surface;
  };

  /// The descriptors and keypoint positions of `target` (id `id`): its model's, or its stored
  /// ones decoded into `decoded` (the most recently used first, at most kDecodedTargets). Valid
  /// until the next call.
  std::pair<const cv::Mat*, const std::vector<cv::Point2f>*> keypointsOf(int id, const Target& target) {
    if (target.model) return {&target.model->descriptors, &target.points};
    auto it = std::find_if(decoded.begin(), decoded.end(), [&](const auto& e) { return e.first == id; });
    if (it != decoded.end()) {
      decoded.splice(decoded.begin(), decoded, it);
    } else {
      decoded.emplace_front(id, target.stored->decodeKeypoints());
      if (static_cast<int>(decoded.size()) > kDecodedTargets) decoded.pop_back();
    }
    return {&decoded.front().second.descriptors, &decoded.front().second.points};
  }
  void forget(int id) {
    decoded.remove_if([&](const auto& e) { return e.first == id; });
    if (uploaded == id) uploaded = -1;
    if (uploadedTilted == id) uploadedTilted = -1;
  }

  Impl(const gpu::Capabilities& caps, const CameraCalibration& cal, const detection::Vocabulary& v,
       detection::DescriptorType t, detection::Orientation orient, const MultiTargetDetectorOptions& o)
      : options(o),
        calibration(cal),
        type(t),
        orientation(orient),
        vocabulary(v),
        index(v.size()),
        words(v.size()),
        plan(cal.imageSize, o.lane),
        detector(plan.detector()) {
    detection::SurfEsOptions s;
    s.maxWidth = cal.imageSize.width;
    s.maxHeight = cal.imageSize.height;
    s.maxKeypoints = plan.maxKeypoints();
    s.type = t;
    s.orientation = orient;
    s.storage = o.lane.storage;
    s.precisionBits = o.lane.precisionBits;
    s.boxTaps = o.lane.boxTaps;
    describer = detection::makeKeypointDescriber(o.lane.descriptorBackend, caps, s);
    targetMatcher = detection::makeTargetMatcher(o.lane.matcherBackend, caps, plan.maxKeypoints());
    tiltedMatcher = detection::makeTargetMatcher(o.lane.matcherBackend, caps, plan.maxKeypoints());
  }

  MultiTargetDetectorOptions options;
  CameraCalibration calibration;
  detection::DescriptorType type;
  detection::Orientation orientation;
  detection::Vocabulary vocabulary;  // shares the words and their search tree
  detection::InvertedIndex index;
  int words;
  DetectionPlan plan;
  detection::FastDetector detector;
  std::unique_ptr<detection::KeypointDescriber> describer;
  std::unique_ptr<detection::TargetMatcher> targetMatcher;
  std::unique_ptr<detection::TargetMatcher> tiltedMatcher;
  int uploaded = -1;        // the target whose own (frontal) descriptors targetMatcher holds
  int uploadedTilted = -1;  // the target whose tilted views' descriptors tiltedMatcher holds
  std::map<int, Target> targets;
  std::list<std::pair<int, detection::StoredKeypoints>> decoded;  // compact targets', see keypointsOf()
  DetectionTimings timings;
  std::vector<std::pair<int, double>> shortlist;
  std::string rejection;
};

MultiTargetDetector::MultiTargetDetector(const gpu::Capabilities& caps, const CameraCalibration& calibration,
                                         const detection::Vocabulary& vocabulary, detection::DescriptorType type,
                                         detection::Orientation orientation, const MultiTargetDetectorOptions& options) {
  if (!(options.followScoreRatio >= 0 && options.followScoreRatio <= 1))
    throw std::invalid_argument("MultiTargetDetectorOptions::followScoreRatio must be in [0, 1], got " +
                                std::to_string(options.followScoreRatio));
  if (options.verifyAllUpTo < 0)
    throw std::invalid_argument("MultiTargetDetectorOptions::verifyAllUpTo must be >= 0, got " +
                                std::to_string(options.verifyAllUpTo));
  if (options.shortlist < 1)
    throw std::invalid_argument("MultiTargetDetectorOptions::shortlist must be >= 1, got " + std::to_string(options.shortlist));
  if (vocabulary.size() == 0) throw std::invalid_argument("MultiTargetDetector: the vocabulary is empty");
  if (calibration.imageSize.width <= 0 || calibration.imageSize.height <= 0)
    throw std::invalid_argument("MultiTargetDetector: calibration.imageSize must be positive");
  if (vocabulary.words().cols != detection::descriptorLength(type))
    throw std::invalid_argument("MultiTargetDetector: the vocabulary's words have " +
                                std::to_string(vocabulary.words().cols) + " values, the descriptor type " +
                                std::to_string(detection::descriptorLength(type)));
  impl_ = std::make_unique<Impl>(caps, calibration, vocabulary, type, orientation, options);
}

MultiTargetDetector::~MultiTargetDetector() = default;
MultiTargetDetector::MultiTargetDetector(MultiTargetDetector&&) noexcept = default;
MultiTargetDetector& MultiTargetDetector::operator=(MultiTargetDetector&&) noexcept = default;

void MultiTargetDetector::addTarget(int id, std::shared_ptr<const detection::TargetModel> model,
                                    const std::vector<int>& words) {
  Impl& s = *impl_;
  if (!model || model->descriptorType != s.type || model->orientation != s.orientation)
    throw std::invalid_argument("MultiTargetDetector::addTarget: target " + std::to_string(id) +
                                " has another descriptor type or orientation than the detector");
  if (model->descriptors.rows != static_cast<int>(model->keypoints.size()) || words.size() != model->keypoints.size())
    throw std::invalid_argument("MultiTargetDetector::addTarget: target " + std::to_string(id) + " has " +
                                std::to_string(model->keypoints.size()) + " keypoints, " +
                                std::to_string(model->descriptors.rows) + " descriptors and " +
                                std::to_string(words.size()) + " word ids");
  if (model->tiltedKeypoints < 0 || static_cast<size_t>(model->tiltedKeypoints) >= model->keypoints.size())
    throw std::invalid_argument("MultiTargetDetector::addTarget: target " + std::to_string(id) + " has " +
                                std::to_string(model->tiltedKeypoints) + " tilted-view keypoints of " +
                                std::to_string(model->keypoints.size()) + " (it needs keypoints of its own)");
  // The index scores the target's own view only: its tilted views' words (a frame rarely shows
  // them) diluted its tf-idf histogram, and among 1,000 distractors the pan layout's prints
  // dropped out of the shortlist (graf1 found in 10.5 % of its frames instead of 89.5 %).
  s.index.add(id, std::vector<int>(words.begin(), words.begin() + model->frontalKeypoints()));
  Impl::Target t;
  for (const detection::Keypoint& k : model->keypoints) t.points.emplace_back(k.x, k.y);
  t.imageSize = model->image.size();
  t.metresPerPixel = model->metresPerPixel();
  t.frontal = model->frontalKeypoints();
  if (model->geometry.curved()) t.surface.emplace(model->geometry, model->widthMetres, model->image.size());
  t.model = std::move(model);
  s.targets[id] = std::move(t);
  s.forget(id);
}

void MultiTargetDetector::addTarget(int id, std::shared_ptr<const detection::StoredTarget> stored,
                                    const std::vector<int>& words) {
  Impl& s = *impl_;
  if (!stored || stored->descriptorType() != s.type || stored->orientation() != s.orientation)
    throw std::invalid_argument("MultiTargetDetector::addTarget: target " + std::to_string(id) +
                                " has another descriptor type or orientation than the detector");
  if (words.size() != static_cast<size_t>(stored->keypointCount()))
    throw std::invalid_argument("MultiTargetDetector::addTarget: target " + std::to_string(id) + " has " +
                                std::to_string(stored->keypointCount()) + " keypoints and " +
                                std::to_string(words.size()) + " word ids");
  if (stored->tiltedKeypoints() < 0 || stored->tiltedKeypoints() >= stored->keypointCount())
    throw std::invalid_argument("MultiTargetDetector::addTarget: target " + std::to_string(id) + " has " +
                                std::to_string(stored->tiltedKeypoints()) + " tilted-view keypoints of " +
                                std::to_string(stored->keypointCount()) + " (it needs keypoints of its own)");
  s.index.add(id, std::vector<int>(words.begin(), words.begin() + stored->frontalKeypoints()));
  Impl::Target t;
  t.imageSize = stored->imageSize();
  t.metresPerPixel = stored->metresPerPixel();
  t.frontal = stored->frontalKeypoints();
  if (stored->geometry().curved()) t.surface.emplace(stored->geometry(), stored->widthMetres(), stored->imageSize());
  t.stored = std::move(stored);
  s.targets[id] = std::move(t);
  s.forget(id);
}

void MultiTargetDetector::removeTarget(int id) {
  impl_->index.remove(id);
  impl_->targets.erase(id);
  impl_->forget(id);
}

int MultiTargetDetector::decodedTargets() const { return static_cast<int>(impl_->decoded.size()); }

int MultiTargetDetector::targetCount() const { return static_cast<int>(impl_->targets.size()); }
bool MultiTargetDetector::verifiesEveryTarget() const {
  return impl_->options.verifyAllUpTo > 0 && static_cast<int>(impl_->targets.size()) <= impl_->options.verifyAllUpTo;
}
const DetectionTimings& MultiTargetDetector::lastTimings() const { return impl_->timings; }
const std::vector<std::pair<int, double>>& MultiTargetDetector::lastShortlist() const { return impl_->shortlist; }
const std::string& MultiTargetDetector::lastRejection() const { return impl_->rejection; }

std::vector<TargetDetection> MultiTargetDetector::detect(const cv::Mat& gray, const std::vector<int>& excluded,
                                                         const std::vector<std::vector<cv::Point2f>>& masks,
                                                         int maxResults) {
  Impl& s = *impl_;
  if (gray.type() != CV_8UC1 || gray.size() != s.calibration.imageSize)
    throw std::invalid_argument("MultiTargetDetector::detect: expected a CV_8UC1 frame of " +
                                std::to_string(s.calibration.imageSize.width) + "x" +
                                std::to_string(s.calibration.imageSize.height));
  s.timings = {};
  s.shortlist.clear();
  s.rejection.clear();
  std::vector<TargetDetection> found;
  if (maxResults <= 0 || s.targets.empty()) {
    s.rejection = "no target to look for";
    return found;
  }

  // 1. Keypoints, without those on targets already tracked.
  auto t = Clock::now();
  // The tracked quads masked before the budget is spread (FastDetector::detect(image, mask)):
  // dropping their keypoints after it left a print not yet found about 30 of 1000 on the grid.
  cv::Mat allowed;
  if (!masks.empty()) {
    allowed = cv::Mat(gray.size(), CV_8UC1, cv::Scalar(255));
    for (const auto& quad : masks) {
      if (quad.size() < 3) continue;
      std::vector<cv::Point> polygon;
      for (const cv::Point2f& c : quad) polygon.emplace_back(cvRound(c.x), cvRound(c.y));
      cv::fillPoly(allowed, std::vector<std::vector<cv::Point>>{polygon}, cv::Scalar(0));
    }
  }
  std::vector<detection::Keypoint> keypoints;
  if (allowed.empty()) {
    keypoints = s.detector.detect(gray);
  } else {
    // The budget in proportion to the unmasked area: a whole-frame search's keypoint density,
    // so a search with targets tracked costs no more than one without (describe and match grow
    // with the keypoints) and the unmasked part gets no fewer than it did.
    detection::FastDetectorOptions o = s.detector.options();
    const double share = cv::countNonZero(allowed) / static_cast<double>(allowed.total());
    o.maxKeypoints = std::max(1, static_cast<int>(std::ceil(share * o.maxKeypoints)));
    keypoints = detection::FastDetector(o).detect(gray, allowed);
  }
  s.timings.detect = msSince(t);
  if (static_cast<int>(keypoints.size()) < s.options.lane.minInliers) {
    s.rejection = "too few keypoints: " + std::to_string(keypoints.size());
    return found;
  }

  // 2-4 in passes in a large database, as DetectionLane (DetectionPlan::passEnds): the strongest
  // keypoints first, and more only when those find no target. A frame that shows a target
  // usually has enough of its keypoints among its strongest, and the search then describes and
  // looks up fewer (measured with two passes, the strongest half of 1000 first: among 1,000
  // targets on cmu_book 10.5 ms a frame, 1.75-1.80 × the single-target lane's (2.7-2.9 × in one
  // pass, the same run). Not in a small database (verifiesEveryTarget()), where a search looks
  // for every print at once and the strongest half holds too few keypoints on some of several
  // small ones: on the grid baboon and aero3 were found a frame later, and pan's searches took
  // 4.2 instead of 3.2 ms a frame.
  const std::vector<size_t> passes =
      verifiesEveryTarget() ? std::vector<size_t>{keypoints.size()} : s.plan.passEnds(keypoints.size());
  detection::FrameDescriptors descriptors;  // of the keypoints described so far, on the host
  descriptors.host = cv::Mat(0, detection::descriptorLength(s.type), CV_32F);
  std::vector<int> wordIds;
  for (const size_t end : passes) {
    const size_t begin = static_cast<size_t>(descriptors.host.rows);
    s.rejection.clear();
    // 2. Descriptors, on the host for the words (a GPU describer reads them back; the GPU
    //    matcher uploads them).
    t = Clock::now();
    std::vector<detection::Keypoint> part(keypoints.begin() + static_cast<std::ptrdiff_t>(begin),
                                          keypoints.begin() + static_cast<std::ptrdiff_t>(end));
    const detection::FrameDescriptors described = s.describer->describe(gray, part, true);
    std::copy(part.begin(), part.end(), keypoints.begin() + static_cast<std::ptrdiff_t>(begin));  // angles
    descriptors.host.push_back(described.host);
    descriptors.count = descriptors.host.rows;
    s.timings.describe += msSince(t);

    // 3. Words (the vocabulary's tree descent, uniform patches' zero rows left out) and the
    //    shortlist, over every keypoint described so far.
    t = Clock::now();
    const std::vector<int> all = s.vocabulary.quantize(described.host);
    for (int i = 0; i < described.host.rows; ++i)
      if (cv::countNonZero(described.host.row(i)) > 0) wordIds.push_back(all[static_cast<size_t>(i)]);
    // A small database: every target not excluded is a candidate, and the ranking only orders
    // them (MultiTargetDetectorOptions::verifyAllUpTo).
    const bool verifyAll = verifiesEveryTarget();
    s.shortlist =
        s.index.query(wordIds, verifyAll ? static_cast<int>(s.targets.size()) : s.options.shortlist, excluded);
    s.timings.match += msSince(t);
    if (s.shortlist.empty()) {
      s.rejection = "no target shares a visual word with the frame";
      continue;
    }

    // 4. Verify the candidates, best first.
    std::string why;
    for (const auto& [id, score] : s.shortlist) {
      // After a target is found, only candidates scoring nearly as well are worth a matching pass
      // each: another target in view scores close to it, a distractor well below (see
      // MultiTargetDetectorOptions::followScoreRatio).
      if (!verifyAll && !found.empty() && score < s.options.followScoreRatio * found.back().score) break;
      const Impl::Target& target = s.targets.at(id);
      const auto [descriptorsPtr, pointsPtr] = s.keypointsOf(id, target);
      const cv::Mat& targetDescriptors = *descriptorsPtr;
      const std::vector<cv::Point2f>& targetPoints = *pointsPtr;
      const int frontal = target.frontal;
      // As DetectionLane: the target's own descriptors first, its tilted views' only when those
      // find nothing (their matches added to the first ones) — in a small database, where every
      // target is verified. In a large one most candidates are distractors, each of which would
      // cost the views' pass too: among 1,000 distractors the pan layout took 29.6 ms per frame
      // instead of 11.5 (searching on most frames), so there the views are not matched.
      t = Clock::now();
      if (s.uploaded != id) {
        s.targetMatcher->setTarget(targetDescriptors.rowRange(0, frontal));
        s.uploaded = id;
      }
      std::vector<detection::Match> matches = s.targetMatcher->match(descriptors, s.options.lane.matching);
      s.timings.match += msSince(t);
      const auto verify = [&] {
        if (target.surface)  // a label on a can or a cup: PnP on its surface
          return verifyCurvedDetection(matches, targetPoints, keypoints, *target.surface, target.imageSize,
                                       s.calibration, s.options.lane, why, s.timings.ransac, s.timings.pose);
        return verifyDetection(matches, targetPoints, keypoints,
                               target.imageSize, target.metresPerPixel, s.calibration, s.options.lane, why, s.timings.ransac,
                               s.timings.pose);
      };
      std::optional<Detection> d = verify();
      // A curved label's turned views are matched in a large database too: they are what finds
      // a label turned away from the camera (the trainer's views turned about its axis, up to
      // ±60°), and a database holds few curved targets beside its flat ones.
      if (!d && (verifyAll || target.surface) && frontal < targetDescriptors.rows) {
        t = Clock::now();
        if (s.uploadedTilted != id) {
          s.tiltedMatcher->setTarget(targetDescriptors.rowRange(frontal, targetDescriptors.rows));
          s.uploadedTilted = id;
        }
        for (detection::Match m : s.tiltedMatcher->match(descriptors, s.options.lane.matching)) {
          m.target += frontal;
          matches.push_back(m);
        }
        s.timings.match += msSince(t);
        d = verify();
      }
      if (d) {
        d->timings = s.timings;
        found.push_back({id, std::move(*d), score});
        if (static_cast<int>(found.size()) >= maxResults) break;
      } else if (s.rejection.empty()) {
        s.rejection = "best candidate " + std::to_string(id) + ": " + why;
      }
    }
    if (!found.empty()) break;
  }
  if (!found.empty()) s.rejection.clear();
  return found;
}

}  // namespace nft::tracker
