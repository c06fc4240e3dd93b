#pragma once
// MultiTargetDetector: the detection lane for many targets (issue: a target database, recognition
// among them). One detect() call, in order:
// 1. detect:    scale-aware FAST on the frame outside `masks` (the quads of targets already
//               tracked): their corners are dropped before the keypoint budget is spread and
//               capped (FastDetector::detect(image, mask)), so the whole budget goes to the rest
//               of the frame — where the targets not yet found are (see detect() for the
//               measurement);
// 2. describe:  the lane's KeypointDescriber (detection/backend.h, lane.descriptorBackend):
//               SURF-ES on the GPU (read back for the words) or SurfCpu;
// 3. recognise: each descriptor's visual word by descending the vocabulary's tree
//               (detection/vocabulary.h: Nistér and Stewénius's vocabulary tree), then the
//               inverted index's tf-idf scores: the `shortlist` best targets not excluded
//               (every one not excluded while the detector holds at most `verifyAllUpTo`);
// 4. verify:    for each shortlisted target in score order, the lane's TargetMatcher
//               (lane.matcherBackend) against its descriptors with Lowe's ratio test, RANSAC
//               homography, inlier floor, quad check and planar PnP — exactly DetectionLane's
//               steps 3-5 (verifyDetection(), tracker/detection_lane.h), the target's own
//               descriptors first and its tilted views' only when those find nothing. A curved
//               target (a label on a can or a cup, TargetModel::geometry) is verified by PnP on
//               its surface instead (verifyCurvedDetection(), tracker/curved_detection.h: the
//               Detection's pose, its tangent plane's homography, the label's corners), its
//               turned views matched in a large database as well; planar and curved targets
//               share the vocabulary, the index and the shortlist.
// Only shortlisted targets are matched, so the cost grows with the shortlist, not the database.
// While the detector holds more than `verifyAllUpTo` targets, steps 2-4 run in two passes, as
// DetectionLane's (lane.firstPassFraction, firstPassKeypoints()): on the strongest keypoints
// first, and on all of them only when those find no target (detect() has the measurement).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "detection/backend.h"
#include "detection/fast_detector.h"
#include "detection/gpu_matcher.h"
#include "detection/label_surface.h"
#include "detection/stored_target.h"
#include "detection/surf_es.h"
#include "detection/target_model.h"
#include "detection/vocabulary.h"
#include "tracker/detection_lane.h"

namespace nft::tracker {

/// Settings of MultiTargetDetector.
struct MultiTargetDetectorOptions {
  /// Detector, SURF-ES, ratio test, RANSAC, inlier floor, quad limits, pose: as the single-target
  /// lane (DetectionLaneOptions documents each).
  DetectionLaneOptions lane;
  /// Targets verified per detect() call at most (>= 1): the inverted index's best. Not used
  /// while the detector holds at most verifyAllUpTo targets (every one is verified then).
  int shortlist = 3;
  /// With maxResults > 1 and more than verifyAllUpTo targets held, once a target is found the
  /// rest of the shortlist is verified only while a candidate scores at least this fraction of
  /// the last found target's score, in [0, 1]. 0.75: on cmu_book among 1,000 distractors the
  /// cover scores 0.20 and the next ones 0.13 (0.65 of it: not matched, the detection costs one
  /// matching pass); on the 8-print grid the second print found in one search scored 0.78 of
  /// the first.
  double followScoreRatio = 0.75;
  /// While the detector holds at most this many targets (>= 0; 0: never), detect() verifies
  /// every target not excluded, best score first, instead of the `shortlist` best, and
  /// followScoreRatio does not end the verification: a search costs one matching pass per
  /// target not yet tracked. In a small database every target is one the application wants and
  /// may be in view, and the scores of small prints among others do not rank them: on the
  /// 8-print grid (apps/replay/multi_target_sequence.h, frame 1, no target tracked) the inverted
  /// index ranks graf1 0.68, baboon 0.66, aero3 0.43, chicky_512 0.43, messi5 0.40, butterfly
  /// 0.39, box 0.29, starry_night 0.28; baboon and aero3 fail verification (10 and 8 inliers),
  /// so the 3 best found graf1 alone, and with the ratio (0.75 of graf1's 0.68) none of the
  /// others was verified — the other prints were found one per search over 17 frames. Every
  /// target verified: 5 of the 8 in frame 1 (8 passes, 98 ms on llvmpipe), the other 3 in the
  /// next search with the 5 masked (session/target_tracking.cpp repeats it on the same frame);
  /// fewer searches in all (2 instead of 10), detection 0.43 instead of about 1 ms per frame
  /// over the 300 frames. 8: the grid, the default tracking.max_targets; among 1,000
  /// distractors the shortlist and the ratio still bound a search to `shortlist` passes.
  int verifyAllUpTo = 8;
};

/// A target found by MultiTargetDetector.
struct TargetDetection {
  int target = -1;  ///< The id given to addTarget().
  Detection detection;
  double score = 0;  ///< Its inverted-index score in [0, 1].
};


/// Recognition and detection among many targets of one descriptor type, for one frame size.
/// With the GPU backends it holds GPU resources (SurfEs, two GpuMatchers): the GL context current
/// at construction, in every call and at destruction. Move-only, not thread-safe.
class MultiTargetDetector {
 public:
  /// @param vocabulary the words every target's `words` refer to (uploaded once).
  /// @throws std::invalid_argument for options out of range (named), an empty vocabulary or a
  ///   non-positive frame size; GPU errors pass through.
  MultiTargetDetector(const gpu::Capabilities& caps, const CameraCalibration& calibration,
                      const detection::Vocabulary& vocabulary, detection::DescriptorType type,
                      detection::Orientation orientation, const MultiTargetDetectorOptions& options = {});
  ~MultiTargetDetector();
  MultiTargetDetector(MultiTargetDetector&&) noexcept;
  MultiTargetDetector& operator=(MultiTargetDetector&&) noexcept;

  /// Adds (or replaces) target `id` (>= 0): its model (shared, not copied: keep it unchanged) and
  /// the word id of each of its keypoints.
  /// @throws std::invalid_argument for a descriptor type or orientation other than the
  ///   detector's, descriptors ≠ keypoints ≠ words, a word outside the vocabulary, or
  ///   tiltedKeypoints not in [0, keypoint count).
  void addTarget(int id, std::shared_ptr<const detection::TargetModel> model, const std::vector<int>& words);
  /// Adds (or replaces) target `id` (>= 0) of a database kept compact (detection/stored_target.h):
  /// only its words are held (in the index); its descriptors and keypoint positions are decoded
  /// when detect() verifies it, and the last kDecodedTargets targets' kept for the next searches (a shortlist
  /// is usually the same few targets from one frame to the next). Detections are the same as
  /// with its model as stored (StoredTarget::decodeStored). @throws std::invalid_argument as the
  /// other overload.
  void addTarget(int id, std::shared_ptr<const detection::StoredTarget> stored, const std::vector<int>& words);
  /// How many compact targets' descriptors and positions are kept decoded at most: 8, the default shortlist (3)
  /// and the small database's verifyAllUpTo (8) covered.
  static constexpr int kDecodedTargets = 8;
  /// How many compact targets' descriptors are decoded now (<= kDecodedTargets).
  int decodedTargets() const;
  /// Removes target `id` (nothing if absent).
  void removeTarget(int id);
  int targetCount() const;
  /// True while detect() verifies every target not excluded (at most verifyAllUpTo held, > 0).
  bool verifiesEveryTarget() const;

  /// Finds up to `maxResults` targets in `gray` (CV_8UC1 of the calibration's size), skipping the
  /// ids in `excluded` and the keypoints inside the polygons of `masks` (frame pixels). The masks
  /// are applied before the detector's spread and cap, and the cap is lane.detector.maxKeypoints
  /// scaled to the unmasked share of the frame: the keypoint density of a whole-frame search, all
  /// of it on the unmasked part, so a search never describes or matches more keypoints than one
  /// without masks (the bound on its cost). Measured on the 8-print grid
  /// (apps/replay/multi_target_sequence.h; prints of about 145 px; frames 0, 40, 80, 120, the six
  /// other prints masked by their true quads; keypoints on the print and RANSAC inliers against
  /// its own model): masks applied after the cap, as before, left baboon 32–36 keypoints and 9–10
  /// inliers and aero3 27–35 and 7–9 (under the floor of 20: never found); before it, 109–206 and
  /// 15–38, 114–234 and 27–53 (the unmasked part, 59 % of the frame, had 395–614 corners, within
  /// the scaled cap of 590 or about it; `nft_eval multi --layout grid`: both found and followed in
  /// 90 % of the frames). Also measured, and not taken: a 2× upsampled frame level (SIFT's
  /// octave −1, Lowe 2004 section 3.3) gave 15–26 / 16–43 inliers with the masks — these prints
  /// lack corners above the FAST threshold, not fine scales; and filling the budget with FAST at
  /// threshold 20 where fewer than maxKeypoints corners remain (ORB-SLAM's adaptive threshold)
  /// gave 53–65 / 67–96 inliers, but the weak corners made the pan layout find two of its prints
  /// a few frames later (graf1 98.5 %, butterfly 94.7 % instead of 100 / 99.1 %).
  /// @throws std::invalid_argument for another frame size or type.
  std::vector<TargetDetection> detect(const cv::Mat& gray, const std::vector<int>& excluded,
                                      const std::vector<std::vector<cv::Point2f>>& masks, int maxResults);

  /// Stage times of the last detect(), ms: detect (FAST), describe, match (words + candidates),
  /// ransac, pose.
  const DetectionTimings& lastTimings() const;
  /// The last shortlist, (id, score), best first: the candidates of the last detect(), in the
  /// order it verifies them (within verifyAllUpTo targets held: every target not excluded that
  /// shares a word with the frame).
  const std::vector<std::pair<int, double>>& lastShortlist() const;
  /// Why the last detect() found nothing ("" when it found a target).
  const std::string& lastRejection() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft::tracker
