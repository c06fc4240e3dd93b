#include "apps/replay/frame_source.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace nft::replay {
namespace {

namespace fs = std::filesystem;

cv::Mat toBgr(const cv::Mat& image) {
  if (image.channels() == 3) return image;
  cv::Mat bgr;
  cv::cvtColor(image, bgr, image.channels() == 4 ? cv::COLOR_BGRA2BGR : cv::COLOR_GRAY2BGR);
  return bgr;
}

/// A video file or a camera through cv::VideoCapture.
class CaptureSource : public FrameSource {
 public:
  CaptureSource(cv::VideoCapture capture, std::string description, bool isFile)
      : capture_(std::move(capture)), description_(std::move(description)), isFile_(isFile) {
    const double count = capture_.get(cv::CAP_PROP_FRAME_COUNT);
    frameCount_ = isFile_ && count > 0 ? static_cast<int>(count) : -1;
    const double fps = capture_.get(cv::CAP_PROP_FPS);
    fps_ = fps > 0 && fps < 1000 ? fps : 0.0;
  }

  bool read(cv::Mat& frame) override {
    cv::Mat image;
    if (!capture_.read(image) || image.empty()) {
      // A file whose container declares more frames than decode is truncated or corrupt. One
      // frame of slack: some containers only estimate the count from the duration.
      if (isFile_ && frameCount_ > 0 && read_ + 1 < frameCount_)
        throw std::runtime_error("video '" + description_ + "': decoding stopped at frame " + std::to_string(read_) +
                                 " but the file declares " + std::to_string(frameCount_) +
                                 " frames (truncated or corrupt file)");
      return false;
    }
    ++read_;
    frame = toBgr(image);
    return true;
  }
  int frameCount() const override { return frameCount_; }
  double fps() const override { return fps_; }
  std::string description() const override { return description_; }

 private:
  cv::VideoCapture capture_;
  std::string description_;
  bool isFile_;
  int frameCount_ = -1;
  double fps_ = 0.0;
  int read_ = 0;
};

/// The image files of a folder, in name order.
class FolderSource : public FrameSource {
 public:
  FolderSource(std::string folder, std::vector<fs::path> files) : folder_(std::move(folder)), files_(std::move(files)) {}

  bool read(cv::Mat& frame) override {
    if (next_ >= files_.size()) return false;
    const fs::path& path = files_[next_];
    cv::Mat image = cv::imread(path.string(), cv::IMREAD_COLOR);
    if (image.empty())
      throw std::runtime_error("frame " + std::to_string(next_) + ": cannot read image '" + path.string() +
                               "' (corrupt or not an image)");
    ++next_;
    frame = toBgr(image);
    return true;
  }
  int frameCount() const override { return static_cast<int>(files_.size()); }
  double fps() const override { return 0.0; }
  std::string description() const override { return folder_; }

 private:
  std::string folder_;
  std::vector<fs::path> files_;
  size_t next_ = 0;
};

/// Another source's input, played several times (loopFrameSource).
class LoopSource : public FrameSource {
 public:
  LoopSource(std::function<std::unique_ptr<FrameSource>()> open, int loops)
      : open_(std::move(open)), loops_(loops), current_(open_()) {
    const int perPass = current_->frameCount();
    frameCount_ = perPass >= 0 && static_cast<long long>(perPass) * loops_ <= INT_MAX ? perPass * loops_ : -1;
    fps_ = current_->fps();
    description_ = current_->description() + " (" + std::to_string(loops_) + " times)";
  }

  bool read(cv::Mat& frame) override {
    while (!current_->read(frame)) {
      if (++pass_ >= loops_) return false;
      current_ = open_();
    }
    return true;
  }
  int frameCount() const override { return frameCount_; }
  double fps() const override { return fps_; }
  std::string description() const override { return description_; }

 private:
  std::function<std::unique_ptr<FrameSource>()> open_;
  int loops_;
  int pass_ = 0;
  std::unique_ptr<FrameSource> current_;
  int frameCount_ = -1;
  double fps_ = 0.0;
  std::string description_;
};

bool isImageFile(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  static const char* const kExtensions[] = {".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".ppm", ".tif", ".tiff", ".webp"};
  return std::any_of(std::begin(kExtensions), std::end(kExtensions), [&](const char* e) { return ext == e; });
}

bool isCameraIndex(const std::string& spec) {
  return !spec.empty() && spec.size() <= 3 &&
         std::all_of(spec.begin(), spec.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; });
}

}  // namespace

bool isCameraSpec(const std::string& spec) {
  std::error_code ec;
  return isCameraIndex(spec) && !fs::exists(spec, ec);
}

std::unique_ptr<FrameSource> openFrameSource(const std::string& spec) {
  std::error_code ec;
  if (fs::is_directory(spec, ec)) {
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(spec, ec))
      if (e.is_regular_file(ec) && isImageFile(e.path())) files.push_back(e.path());
    if (ec) throw std::runtime_error("cannot list frames folder '" + spec + "': " + ec.message());
    if (files.empty())
      throw std::runtime_error("frames folder '" + spec + "' holds no image files (.png, .jpg, .bmp, .pgm, .ppm, .tif)");
    std::sort(files.begin(), files.end());
    return std::make_unique<FolderSource>(spec, std::move(files));
  }
  if (fs::exists(spec, ec)) {
    cv::VideoCapture capture(spec);
    if (!capture.isOpened())
      throw std::runtime_error("cannot open video '" + spec + "' (not a video OpenCV can decode, or a truncated file)");
    return std::make_unique<CaptureSource>(std::move(capture), spec, true);
  }
  if (isCameraIndex(spec)) {
    const int index = std::stoi(spec);
    cv::VideoCapture capture(index);
    if (!capture.isOpened()) throw std::runtime_error("cannot open camera " + spec + " (no such device, or busy)");
    return std::make_unique<CaptureSource>(std::move(capture), "camera " + spec, false);
  }
  throw std::runtime_error("video '" + spec + "' does not exist (expected a video file, a folder of frames or a camera index)");
}

std::unique_ptr<FrameSource> loopFrameSource(const std::function<std::unique_ptr<FrameSource>()>& open, int loops) {
  if (loops < 1) throw std::invalid_argument("loopFrameSource: loops must be >= 1, got " + std::to_string(loops));
  if (loops == 1) return open();
  return std::make_unique<LoopSource>(open, loops);
}

}  // namespace nft::replay
