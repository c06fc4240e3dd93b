#include "apps/replay/video_output.h"

#include <stdexcept>

namespace nft::replay {

VideoOutput::VideoOutput(const std::string& path, const std::string& codec, double fps, cv::Size frameSize)
    : path_(path), size_(frameSize) {
  if (codec.size() != 4)
    throw std::invalid_argument("video codec '" + codec + "' is not a FOURCC (expected exactly 4 characters)");
  if (!(fps > 0)) throw std::invalid_argument("video frame rate must be > 0, got " + std::to_string(fps));
  const int fourcc = cv::VideoWriter::fourcc(codec[0], codec[1], codec[2], codec[3]);
  if (!writer_.open(path, fourcc, fps, frameSize, true))
    throw std::runtime_error("cannot write video '" + path + "' with codec '" + codec +
                             "' (unknown extension or codec, or the folder is not writable)");
}

void VideoOutput::write(const cv::Mat& frame) {
  if (frame.size() != size_ || frame.type() != CV_8UC3)
    throw std::invalid_argument("video '" + path_ + "': frame of " + std::to_string(frame.cols) + "x" +
                                std::to_string(frame.rows) + " " + cv::typeToString(frame.type()) + ", expected " +
                                std::to_string(size_.width) + "x" + std::to_string(size_.height) + " CV_8UC3");
  writer_.write(frame);
  ++written_;
}

void VideoOutput::close() {
  if (writer_.isOpened()) writer_.release();
}

}  // namespace nft::replay
