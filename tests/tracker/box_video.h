#pragma once
// opencv-doc's real hand-held clip /usr/share/doc/opencv-doc/opencv4/html/box.mp4.gz (640×480,
// 455 frames: a hand moving a box whose top face is a printed planar target), decompressed at
// test time into a temporary folder, and the template of the box's top face made by rectifying
// it in one frame.
//
// The face's corners in frame 100 (0-based decoded index), picked by eye on 8× crops of that
// frame (the hand covers the back-left corner: that one is where the face's back and left edges
// meet), in the order of the printed face's upright view (its "GALLETAS BIRBA" border at the
// top, "CAMPRODON" at the bottom): upper-left (331, 30), upper-right (550, 87), lower-right
// (484, 196), lower-left (218, 103). Rectified to 300 × 220 px (cv::INTER_AREA), the face's
// printed border comes out straight and even on all four sides.

#include <zlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace nft::testing {

inline constexpr const char* kBoxVideoGz = "/usr/share/doc/opencv-doc/opencv4/html/box.mp4.gz";
inline constexpr int kBoxTemplateFrame = 100;
inline const std::array<cv::Point2f, 4> kBoxTopFace = {
    cv::Point2f(331, 30), cv::Point2f(550, 87), cv::Point2f(484, 196), cv::Point2f(218, 103)};
inline const cv::Size kBoxTemplateSize(300, 220);

/// Decompresses box.mp4.gz into `folder` (created if needed) and returns the video's path.
/// @throws std::runtime_error naming the file when it is missing (install opencv-doc:
///   scripts/install-deps.sh) or unreadable, or the output cannot be written.
inline std::filesystem::path unpackBoxVideo(const std::filesystem::path& folder) {
  if (!std::filesystem::is_regular_file(kBoxVideoGz))
    throw std::runtime_error(std::string(kBoxVideoGz) + " is missing (install opencv-doc: scripts/install-deps.sh)");
  std::filesystem::create_directories(folder);
  const std::filesystem::path out = folder / "box.mp4";
  gzFile in = gzopen(kBoxVideoGz, "rb");
  if (in == nullptr) throw std::runtime_error(std::string("cannot read ") + kBoxVideoGz);
  FILE* file = std::fopen(out.string().c_str(), "wb");
  if (file == nullptr) {
    gzclose(in);
    throw std::runtime_error("cannot write " + out.string());
  }
  char buffer[1 << 16];
  int n = 0;
  bool ok = true;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0)
    ok = ok && std::fwrite(buffer, 1, static_cast<size_t>(n), file) == static_cast<size_t>(n);
  ok = ok && n == 0;
  gzclose(in);
  ok = std::fclose(file) == 0 && ok;
  if (!ok) throw std::runtime_error(std::string("cannot decompress ") + kBoxVideoGz + " into " + out.string());
  return out;
}

/// The top face's template: frame kBoxTemplateFrame of the video rectified from kBoxTopFace to
/// kBoxTemplateSize (BGR). @throws std::runtime_error if the video has fewer frames.
inline cv::Mat boxTopFaceTemplate(const std::filesystem::path& video) {
  cv::VideoCapture capture(video.string());
  cv::Mat frame;
  for (int i = 0; i <= kBoxTemplateFrame; ++i)
    if (!capture.read(frame)) throw std::runtime_error("cannot read frame " + std::to_string(i) + " of " + video.string());
  const float w = static_cast<float>(kBoxTemplateSize.width), h = static_cast<float>(kBoxTemplateSize.height);
  const cv::Point2f to[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  cv::Mat face;
  cv::warpPerspective(frame, face, cv::getPerspectiveTransform(kBoxTopFace.data(), to), kBoxTemplateSize, cv::INTER_AREA);
  return face;
}

}  // namespace nft::testing
