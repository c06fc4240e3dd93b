#pragma once
// Which descriptor extractor an evaluation runs, as named on the command line:
//   NAME[:MODIFIER...]  with NAME surf-es | surf-cpu | sift | orb and modifiers
//   auto | rgba8 | float   SURF-ES storage path (surf-es only)
//   pN                     SURF-ES precision override p = N bits, 0 = the GPU's (surf-es only)
//   taps1 | taps2 | lookups SURF-ES box reads: one lookup per box, quarter boxes from the box
//                          pyramid (the default), four quarter-box lookups (surf-es only)
//   upright | oriented     orientation (all)
//   64 | 36                SURF-64 or SURF-36 (surf-es, surf-cpu)
// e.g. "surf-es:rgba8:p10", "surf-cpu:upright", "sift". Modifiers not given come from defaults
// (the command line's --storage, --precision, --upright, --surf36).

#include <string>
#include <vector>

#include "detection/surf_descriptor.h"
#include "detection/surf_es.h"

namespace nft::eval {

/// The four extractors: the project's two SURF lanes and OpenCV's references.
enum class ExtractorKind { SurfEs, SurfCpu, Sift, Orb };

/// A parsed extractor name with its settings.
struct ExtractorSpec {
  ExtractorKind kind = ExtractorKind::SurfCpu;
  detection::DescriptorStorage storage = detection::DescriptorStorage::Auto;  ///< surf-es only
  int precisionBits = 0;  ///< surf-es only; 0 = the GPU's
  detection::Orientation orientation = detection::Orientation::Oriented;
  detection::DescriptorType type = detection::DescriptorType::Surf64;  ///< surf-es, surf-cpu
  /// surf-es only, SurfEsOptions::boxTaps and quarterBoxes: modifiers taps1 (one lookup per
  /// box), taps2 (the default: quarter boxes from the box pyramid), lookups (four lookups).
  int boxTaps = 2;
  detection::QuarterBoxes quarterBoxes = detection::QuarterBoxes::BoxPyramid;
};

/// "surf-es", "surf-cpu", "sift" or "orb".
std::string kindName(ExtractorKind kind);

/// Parses one NAME[:MODIFIER...] token (see the top of this file).
/// @throws std::invalid_argument naming the token and what is wrong with it (unknown name,
///   unknown modifier, a modifier that does not apply to that extractor, p outside 0..24).
ExtractorSpec parseExtractorSpec(const std::string& token, const ExtractorSpec& defaults);

/// Parses a comma-separated list of tokens (empty tokens are skipped).
/// @throws std::invalid_argument as parseExtractorSpec, or for a list without any token.
std::vector<ExtractorSpec> parseExtractorList(const std::string& list, const ExtractorSpec& defaults);

}  // namespace nft::eval
