#pragma once
// A sequence of the POT planar-object-tracking benchmark (Liang, Wu, Lu, Wang, Liao, Ling, "Planar
// Object Tracking in the Wild: A Benchmark", ICRA 2018; POT-210 and POT-280), as `nft_eval pot`
// reads it:
// - a folder of frames named V<object>_<category> (e.g. V07_4), the frames in name order;
// - <name>_gt_points.txt: one line per frame, 8 numbers x1 y1 x2 y2 x3 y3 x4 y4 (the target's
//   corners, upper-left, upper-right, lower-right, lower-left, frame pixels); POT annotates every
//   other frame, and a line of 8 zeros is a frame without annotation; the first line is the
//   quad a tracker starts from;
// - <name>_flag.txt: one integer per frame (or per annotated frame): 0 normal, 1 occluded,
//   2 out of view, 3 blurred; a frame flagged other than 0 is not scored.
// The two files are looked for in the sequence folder, beside it, and in an `annotation` folder
// beside it (the layouts POT's archives unpack to). The category is the name's last number:
// 1 scale, 2 rotation, 3 perspective, 4 motion blur, 5 occlusion, 6 out of view,
// 7 unconstrained.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "synthetic/synthetic_sequence.h"

namespace nft::eval {

/// POT's seven challenge categories, numbered as in the sequence names.
enum class PotCategory { Scale = 1, Rotation, Perspective, MotionBlur, Occlusion, OutOfView, Unconstrained };

/// "scale", "rotation", "perspective", "motion_blur", "occlusion", "out_of_view", "unconstrained"
/// (the synthetic presets' names, synthetic/synthetic_presets.h).
std::string toString(PotCategory category);
/// The category of a sequence name V<object>_<category> (e.g. "V07_4" → MotionBlur);
/// std::nullopt for another name or a number outside 1-7.
std::optional<PotCategory> potCategoryOf(const std::string& name);

/// One sequence, read.
struct PotSequence {
  std::string name;                      ///< the folder's name, e.g. "V07_4"
  std::optional<PotCategory> category;   ///< from the name; std::nullopt when it does not say
  std::filesystem::path folder;          ///< the frames
  /// Ground truth of every frame (frame i = line i + 1 of the gt file): the corners, or
  /// replay::notAnnotated() for a frame not scored — no annotation (8 zeros) or flagged. The
  /// first line's quad is kept even when flagged: it is where the tracker starts.
  std::vector<replay::QuadCorners> truth;
  int annotated = 0;  ///< frames with an annotation
  int flagged = 0;    ///< of those, flagged occluded, out of view or blurred (not scored)
  bool flags = false; ///< whether a flag file was found (without one no frame is flagged)
};

/// Reads a sequence folder.
/// @throws std::runtime_error naming the file and line for a missing gt file (naming where it
///   was looked for), a line of other than 8 numbers or with a non-finite one, a first line
///   without annotation, a flag that is not an integer in 0-3, or a flag count that is neither
///   the frames' nor the annotated frames'.
PotSequence loadPotSequence(const std::filesystem::path& folder);

/// The sequence folders of `path`: `path` itself when its gt file is found (a sequence), else
/// its subfolders that are sequences, in name order.
/// @throws std::runtime_error naming the path when it does not exist or holds no sequence.
std::vector<std::filesystem::path> findPotSequences(const std::filesystem::path& path);

}  // namespace nft::eval
