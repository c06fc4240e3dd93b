#pragma once
// The synthetic sequence (synthetic/synthetic_sequence.h) as one of the replay's inputs.

#include <memory>
#include <string>
#include <utility>

#include <opencv2/core.hpp>

#include "apps/replay/frame_source.h"
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

}  // namespace nft::replay
