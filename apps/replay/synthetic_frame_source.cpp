#include "apps/replay/synthetic_frame_source.h"

namespace nft::replay {

bool SyntheticFrameSource::read(cv::Mat& frame) {
  if (next_ >= sequence_->frameCount()) return false;
  frame = sequence_->render(next_++);
  return true;
}

std::string SyntheticFrameSource::description() const {
  const SyntheticSequenceOptions& o = sequence_->options();
  return "synthetic (" + o.targetPath + " on " + o.backgroundPath + ", " + std::to_string(o.frames) + " frames " +
         std::to_string(o.frameSize.width) + "x" + std::to_string(o.frameSize.height) + ", seed " +
         std::to_string(o.seed) + (o.preset == SyntheticPreset::Default ? "" : ", preset " + toString(o.preset)) + ")";
}

}  // namespace nft::replay
