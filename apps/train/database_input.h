#pragma once
// What nft_train --database trains: the images of a folder, or the entries of a list file.

#include <string>
#include <vector>

#include "apps/train/geometry_arguments.h"

namespace nft::train {

/// One target to train: its name in the database, its image file, its physical width in metres
/// (0 = nft_train's --width-m), the surface it is printed on as given (planar unless its list
/// line says otherwise) and where it was given, for messages ("targets.txt:3", or the image).
struct TargetEntry {
  std::string name;
  std::string image;
  double widthMetres = 0.0;
  GeometryArguments geometry;
  std::string origin;
};

/// Every image of `folder` (extensions jpg, jpeg, png, bmp, pgm, ppm, tif, tiff, webp; any case),
/// in name order, named by the file's stem.
/// @throws std::runtime_error naming the folder when it does not exist or holds no image.
std::vector<TargetEntry> entriesOfFolder(const std::string& folder);

/// A list file: one target per line, `name image [width_m] [key=value ...]` separated by spaces or
/// tabs (names and paths without spaces); `#` starts a comment; relative image paths are relative
/// to the list file's folder. The keys give a curved target's surface as nft_train's options do
/// (geometry_arguments.h): geometry= planar|cylinder|cone, radius_m=, height_m=, top_radius_m=,
/// bottom_radius_m=, side_length_m=, cone_label= sector|rectangle; e.g.
///   can   labels/cola.png 0.207 geometry=cylinder radius_m=0.033
/// The sizes are checked against the image when it is trained (geometryOf()).
/// @throws std::runtime_error "<file>:<line>: ..." for a line with too few or too many fields, a
///   width that is not a positive number, an unknown or repeated key, a size that is not a
///   number, or a name given twice.
std::vector<TargetEntry> entriesOfList(const std::string& listFile);

}  // namespace nft::train
