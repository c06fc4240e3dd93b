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

bool CurvedFrameSource::read(cv::Mat& frame) {
  if (next_ >= sequence_->frameCount()) return false;
  frame = sequence_->render(next_++);
  return true;
}

std::string CurvedFrameSource::description() const {
  const CurvedSequenceOptions& o = sequence_->options();
  return "synthetic " + toString(o.shape) + " (" + o.labelPath + " over " + std::to_string(static_cast<int>(o.coverageDeg)) +
         " degrees, motion " + o.motion + ", " + std::to_string(o.frames) + " frames " + std::to_string(o.frameSize.width) +
         "x" + std::to_string(o.frameSize.height) + ", seed " + std::to_string(o.seed) + ")";
}

std::vector<QuadCorners> curvedGroundTruth(const CurvedSequence& sequence) {
  const float w = static_cast<float>(sequence.labelImage().cols), h = static_cast<float>(sequence.labelImage().rows);
  std::vector<QuadCorners> truth;
  for (int i = 0; i < sequence.frameCount(); ++i) {
    const std::vector<cv::Point2f> c = sequence.project(i, {{0, 0}, {w, 0}, {w, h}, {0, h}});
    truth.push_back({c[0], c[1], c[2], c[3]});
  }
  return truth;
}

}  // namespace nft::replay
