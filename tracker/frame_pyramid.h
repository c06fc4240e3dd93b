#pragma once
// The frame's image pyramid the tracking lane searches, coarse to fine (Klein and Murray,
// "Parallel Tracking and Mapping for Small AR Workspaces", ISMAR 2007, section 5: a four-level
// pyramid, the coarsest levels searched first over a wide radius; Wagner et al., TVCG 2010,
// section 5.1: half, then full resolution). Built once per frame and shared by every search of
// that frame (the tracker may try several hypotheses) and by the trackers of every target
// followed in it (Tracker::track(FramePyramid&), session/target_tracking.cpp).
//
// Conventions are cv::pyrDown's (tracker/ncc_patch.h): pixel x of level L is pixel 2^L·x of
// level 0.

#include <vector>

#include <opencv2/core.hpp>

namespace nft::tracker {

/// Levels 0..n−1 of one grey frame: level 0 is the frame itself (sharing its pixels), level L
/// is cv::pyrDown of level L−1. Keeps its buffers from one frame to the next. Copyable.
class FramePyramid {
 public:
  /// The most levels build() and ensure() take.
  static constexpr int kMaxLevels = 8;
  /// Starts the pyramid of a new frame `gray` with `levelCount` levels (fewer when a level
  /// would be under 16 px on a side).
  /// @param gray CV_8UC1, not empty; shared, not copied: keep it unchanged while the pyramid is used.
  /// @throws std::invalid_argument for an empty or non-CV_8UC1 frame, or levelCount outside [1, 8].
  void build(const cv::Mat& gray, int levelCount);
  /// Adds the levels up to `levelCount` that build() did not make (as many as the size allows).
  /// Once ensure(kMaxLevels) has run on this frame, ensure() and level() only read: lanes on
  /// several threads may then share the pyramid (session/target_tracking.cpp).
  /// @throws std::invalid_argument before build() or for levelCount outside [1, 8].
  void ensure(int levelCount);
  /// Levels built so far (0 before build()).
  int levelCount() const { return static_cast<int>(valid_); }
  /// Level `index` in [0, levelCount()). @throws std::out_of_range for another index.
  const cv::Mat& level(int index) const;
  /// Level 0's size (an empty size before build()).
  cv::Size frameSize() const { return valid_ == 0 ? cv::Size() : levels_[0].size(); }

 private:
  std::vector<cv::Mat> levels_;  // CV_8UC1; levels_[valid_..] are spare buffers
  size_t valid_ = 0;
};

}  // namespace nft::tracker
