#pragma once
// What nft_train --database trains: the images of a folder, or the entries of a list file.

#include <string>
#include <vector>

namespace nft::train {

/// One target to train: its name in the database, its image file, its physical width in metres
/// (0 = nft_train's --width-m).
struct TargetEntry {
  std::string name;
  std::string image;
  double widthMetres = 0.0;
};

/// Every image of `folder` (extensions jpg, jpeg, png, bmp, pgm, ppm, tif, tiff, webp; any case),
/// in name order, named by the file's stem.
/// @throws std::runtime_error naming the folder when it does not exist or holds no image.
std::vector<TargetEntry> entriesOfFolder(const std::string& folder);

/// A list file: one target per line, `name image [width_m]` separated by spaces or tabs (names
/// and paths without spaces); `#` starts a comment; relative image paths are relative to the
/// list file's folder.
/// @throws std::runtime_error "<file>:<line>: ..." for a line with too few or too many fields, a
///   width that is not a positive number, or a name given twice.
std::vector<TargetEntry> entriesOfList(const std::string& listFile);

}  // namespace nft::train
