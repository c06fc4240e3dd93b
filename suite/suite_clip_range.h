#pragma once
// A clip's frame range that starts after its first frame, cut out for a replay that must start
// cold there: nft_replay reads inputs from their first frame, so the frames FIRST..LAST become a
// folder of images (lossless PNG: the replay sees the very pixels it would have decoded) and the
// ground truth keeps its header and the lines of those frames.

#include <filesystem>
#include <string>

namespace nft::eval::suite {

/// The cut-out input.
struct CutClip {
  std::string video;        ///< folder of frames 000000.png ... (or of links to an input folder's images)
  std::string groundTruth;  ///< the cut gt.tsv, or "" when the clip has none
  int frames = 0;           ///< frames in the range (fewer when the input ends first)
};

/// Cuts frames first..last (from 0, inclusive; last = -1: to the end) of `video` (a video file:
/// decoded by OpenCV as nft_replay decodes it; a folder of images: its images in name order, linked)
/// and of `groundTruth` (may be "") into `folder` (created).
/// @throws std::runtime_error naming the file when the input cannot be read or has no frame
///   `first` ("'v.mp4' has 120 frames: the range starts at frame 200"), when the ground truth has
///   fewer lines than the range's frames, or when `folder` cannot be written.
CutClip cutClipRange(const std::string& video, const std::string& groundTruth, int first, int last,
                     const std::filesystem::path& folder);

}  // namespace nft::eval::suite
