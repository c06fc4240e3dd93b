#include "suite/suite_clip_range.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

std::string frameName(int index, const std::string& extension) {
  char name[32];
  std::snprintf(name, sizeof name, "%06d", index);
  return name + extension;
}

/// The image files of a folder in name order (as nft_replay's folder input reads them).
std::vector<fs::path> folderImages(const fs::path& folder) {
  static const std::vector<std::string> kExtensions = {".png", ".jpg", ".jpeg", ".bmp", ".pgm",
                                                       ".ppm", ".tif", ".tiff", ".webp"};
  std::vector<fs::path> images;
  for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (e.is_regular_file() && std::find(kExtensions.begin(), kExtensions.end(), ext) != kExtensions.end())
      images.push_back(e.path());
  }
  std::sort(images.begin(), images.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  return images;
}

int cutFolder(const fs::path& input, int first, int last, const fs::path& out) {
  const std::vector<fs::path> images = folderImages(input);
  if (static_cast<int>(images.size()) <= first)
    throw std::runtime_error("frames folder '" + input.string() + "' has " + std::to_string(images.size()) +
                             " images: the range starts at frame " + std::to_string(first));
  const int end = last < 0 ? static_cast<int>(images.size()) - 1 : std::min(last, static_cast<int>(images.size()) - 1);
  for (int i = first; i <= end; ++i)
    fs::create_symlink(fs::absolute(images[static_cast<size_t>(i)]),
                       out / frameName(i - first, images[static_cast<size_t>(i)].extension().string()));
  return end - first + 1;
}

int cutVideo(const std::string& video, int first, int last, const fs::path& out) {
  cv::VideoCapture capture(video);
  if (!capture.isOpened()) throw std::runtime_error("cannot open video '" + video + "'");
  cv::Mat frame;
  int index = 0;
  for (; index < first; ++index)
    if (!capture.grab())
      throw std::runtime_error("video '" + video + "' has " + std::to_string(index) +
                               " frames: the range starts at frame " + std::to_string(first));
  int written = 0;
  const std::vector<int> fast = {cv::IMWRITE_PNG_COMPRESSION, 1};
  for (; last < 0 || index <= last; ++index) {
    if (!capture.read(frame) || frame.empty()) break;
    const fs::path file = out / frameName(written, ".png");
    if (!cv::imwrite(file.string(), frame, fast)) throw std::runtime_error("cannot write frame '" + file.string() + "'");
    ++written;
  }
  if (written == 0)
    throw std::runtime_error("video '" + video + "' has " + std::to_string(first) +
                             " frames: the range starts at frame " + std::to_string(first));
  return written;
}

/// The header and the non-blank lines first..first+frames-1 of `groundTruth` (blank lines do not
/// count, as loadGroundTruth skips them).
void cutGroundTruth(const std::string& groundTruth, int first, int frames, const fs::path& out) {
  std::ifstream in(groundTruth);
  if (!in) throw std::runtime_error("cannot read ground-truth file '" + groundTruth + "'");
  std::ofstream o(out);
  if (!o) throw std::runtime_error("cannot write '" + out.string() + "'");
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error("ground-truth file '" + groundTruth + "' is empty");
  o << line << "\n";
  int frame = 0, kept = 0;
  while (kept < frames && std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (frame++ < first) continue;
    o << line << "\n";
    ++kept;
  }
  if (kept < frames)
    throw std::runtime_error("ground-truth file '" + groundTruth + "' has " + std::to_string(frame) +
                             " frames: the range needs frames " + std::to_string(first) + ".." +
                             std::to_string(first + frames - 1));
  o.flush();
  if (!o) throw std::runtime_error("cannot write '" + out.string() + "'");
}

}  // namespace

CutClip cutClipRange(const std::string& video, const std::string& groundTruth, int first, int last,
                     const fs::path& folder) {
  const fs::path frames = folder / "frames";
  std::error_code ec;
  fs::create_directories(frames, ec);
  if (ec) throw std::runtime_error("cannot create folder '" + frames.string() + "': " + ec.message());
  CutClip cut;
  cut.video = frames.string();
  cut.frames = fs::is_directory(video) ? cutFolder(video, first, last, frames) : cutVideo(video, first, last, frames);
  if (!groundTruth.empty()) {
    cut.groundTruth = (folder / "gt.tsv").string();
    cutGroundTruth(groundTruth, first, cut.frames, cut.groundTruth);
  }
  return cut;
}

}  // namespace nft::eval::suite
