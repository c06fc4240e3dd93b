#pragma once
// nft_train's geometry options (--geometry, --radius-m, --height-m, --top-radius-m,
// --bottom-radius-m, --side-length-m, --cone-label) as a detection::TargetGeometry and the label's
// width (issue 47, item 1; detection/target_geometry.h).

#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "detection/target_geometry.h"

namespace nft::train {

/// The options as given; unset sizes are std::nullopt. Metres.
struct GeometryArguments {
  std::string kind = "planar";  ///< --geometry: planar, cylinder or cone
  std::optional<double> radius, height, topRadius, bottomRadius, sideLength;
  std::string coneLabel = "sector";  ///< --cone-label: sector or rectangle
  /// How errors name them: as nft_train's options (--radius-m) or as a list file's keys
  /// (radius_m=, database_input.h).
  enum class Naming { Options, ListKeys } naming = Naming::Options;
};

/// An option's name as `naming` spells it: "--radius-m" or "radius_m".
std::string argumentName(const std::string& option, GeometryArguments::Naming naming);

/// The geometry of a label image of `imageSize` pixels, and its width in `widthMetres`: as given
/// by --width-m (`widthGiven`), or from --height-m and the image's aspect (width = height · cols /
/// rows) when only that is given; both given must agree within 1 %.
/// @throws std::invalid_argument naming the option (or key, GeometryArguments::naming): an unknown --geometry or --cone-label, a size
///   option another kind does not use (e.g. --radius-m with cone), a size its kind needs and did
///   not get (cylinder: --radius-m; cone: --top-radius-m, --bottom-radius-m, --side-length-m),
///   --height-m disagreeing with --width-m, and what detection::validateTargetGeometry throws.
detection::TargetGeometry geometryOf(const GeometryArguments& arguments, cv::Size imageSize, double& widthMetres,
                                     bool widthGiven);

}  // namespace nft::train
