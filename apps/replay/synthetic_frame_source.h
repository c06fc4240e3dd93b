#pragma once
// The synthetic sequences (synthetic/synthetic_sequence.h; a curved label's, synthetic/curved_sequence.h)
// as the replay's inputs.

#include <memory>
#include <string>
#include <utility>

#include <opencv2/core.hpp>

#include "apps/replay/frame_source.h"
#include "synthetic/curved_sequence.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::replay {

/// A SyntheticSequence read as a FrameSource (frames rendered as they are read).
class SyntheticFrameSource : public FrameSource {
 public:
  explicit SyntheticFrameSource(std::shared_ptr<const SyntheticSequence> sequence)
      : sequence_(std::move(sequence)) {}
  bool read(cv::Mat& frame) override;
  int frameCount() const override { return sequence_->frameCount(); }
  double fps() const override { return sequence_->fps(); }
  std::string description() const override;

 private:
  std::shared_ptr<const SyntheticSequence> sequence_;
  int next_ = 0;
};

/// A CurvedSequence read as a FrameSource (frames rendered as they are read).
class CurvedFrameSource : public FrameSource {
 public:
  explicit CurvedFrameSource(std::shared_ptr<const CurvedSequence> sequence) : sequence_(std::move(sequence)) {}
  bool read(cv::Mat& frame) override;
  int frameCount() const override { return sequence_->frameCount(); }
  double fps() const override { return sequence_->fps(); }
  std::string description() const override;

 private:
  std::shared_ptr<const CurvedSequence> sequence_;
  int next_ = 0;
};

/// The ground truth of a curved sequence as the replay scores it: each frame's label corners
/// (0,0), (w,0), (w,h), (0,h) projected (CurvedSequence::project), what TargetResult::corners gives.
std::vector<QuadCorners> curvedGroundTruth(const CurvedSequence& sequence);

}  // namespace nft::replay
