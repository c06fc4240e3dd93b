#pragma once
// The output video of nft_replay (--out): cv::VideoWriter behind RAII, so the file is finalised
// (its index written, cv::VideoWriter::release) however the replay ends — normally, by an error
// thrown mid-run, or by a frame that changes size.

#include <string>

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

namespace nft::replay {

/// An open video file of fixed frame size. Not copyable nor movable (hold it in a
/// std::optional); released on destruction.
class VideoOutput {
 public:
  /// Opens `path` for `frameSize` BGR frames at `fps` frames/s with the FOURCC `codec`
  /// (exactly 4 characters, e.g. "mp4v", "MJPG", "avc1").
  /// @throws std::invalid_argument for a codec that is not 4 characters or fps <= 0;
  ///   std::runtime_error naming the file and codec when OpenCV cannot open a writer for them.
  VideoOutput(const std::string& path, const std::string& codec, double fps, cv::Size frameSize);
  ~VideoOutput() { close(); }
  VideoOutput(const VideoOutput&) = delete;
  VideoOutput& operator=(const VideoOutput&) = delete;

  /// Appends a CV_8UC3 frame of the size given at construction.
  /// @throws std::invalid_argument for another size or type (names both).
  void write(const cv::Mat& frame);
  /// Finalises the file (idempotent).
  void close();
  int framesWritten() const { return written_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  cv::Size size_;
  cv::VideoWriter writer_;
  int written_ = 0;
};

}  // namespace nft::replay
