#pragma once
// Where the replay's frames come from: a video file, a folder of numbered images, or a camera
// (V4L2 through cv::VideoCapture), behind one interface so the replay loop does not care.

#include <functional>
#include <memory>
#include <string>

#include <opencv2/core.hpp>

namespace nft::replay {

/// A sequence of BGR frames, read one at a time. Not thread-safe.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  /// Reads the next frame into `frame` (CV_8UC3 BGR; grey inputs are converted).
  /// @return false at the end of the input.
  /// @throws std::runtime_error naming the file (and the frame) for an image that cannot be read,
  ///   or a video whose decoding stops before the frame count its file declares (a truncated or
  ///   corrupt file): frames already returned stay valid.
  virtual bool read(cv::Mat& frame) = 0;
  /// Frames the input declares (a video's container, the number of images), or -1 when unknown
  /// (a camera).
  virtual int frameCount() const = 0;
  /// Frame rate the input declares, frames/s; 0 when unknown (image folders).
  virtual double fps() const = 0;
  /// What is read, for messages and the report: the path, or "camera N".
  virtual std::string description() const = 0;
};

/// Opens `spec`: a folder (its image files — .png, .jpg, .jpeg, .bmp, .pgm, .ppm, .tif, .tiff,
/// .webp — in lexicographic order of their names, i.e. numbered frames with leading zeros), a
/// video file (anything cv::VideoCapture reads), or a non-negative integer (a camera index).
/// @throws std::runtime_error naming `spec` when it does not exist, is an empty folder, or
///   cannot be opened as a video or camera.
std::unique_ptr<FrameSource> openFrameSource(const std::string& spec);

/// True when openFrameSource(`spec`) opens a live camera: a camera index (1 to 3 digits) that is
/// not also the name of a file or folder.
bool isCameraSpec(const std::string& spec);

/// Plays the input `open()` gives `loops` times in a row (nft_replay --loop: a long soak run from
/// a short video): when one pass ends, `open` is called again for the next. frameCount() is the
/// total (-1 when a pass's count is unknown); fps() and description() are the first pass's.
/// `loops` = 1 returns `open()` itself. @throws std::invalid_argument if loops < 1.
std::unique_ptr<FrameSource> loopFrameSource(const std::function<std::unique_ptr<FrameSource>()>& open, int loops);

}  // namespace nft::replay
