#pragma once
// The compact form of a target model inside a target database (.nftdb versions 2 and 3,
// target_database.h): quantised descriptors, the working image compressed (JPEG or PNG),
// keypoints packed. The .nftm form (target_model_io.h) stores every value as it is in memory;
// version 2 is about a tenth of it, version 3 about a third of version 2: a database an app can
// ship (issue 33 item 6, issue 46 item 3). Private to detection/.
//
// Record layout (little-endian): image width, height (u32); originalScale, widthMetres (f64);
// descriptor type (u32: 64 or 36), orientation (u32: 1 oriented, 0 upright); the image's encoded
// bytes (u32 length + a PNG or JPEG file, gray, width × height); keypoint count N and tilted-view
// keypoint count (u32); then
//  - version 2: N × (x, y: f32; scale, angle, response: IEEE half; octave: i8); N × D descriptor
//    values as i8 (quantizeDescriptors);
//  - version 3: N × (x, y: u16, in units of S / 65535 px where S is the image's longer side —
//    within 0.004 px at 480 px, 0.03 px at 4096; scale, angle, response: IEEE half; octave: i8);
//    N word ids (u16, the database vocabulary's); N × M residual codes (u8, residual_quantizer.h,
//    M = the database quantiser's sub-vectors);
// then patch count P (u32), P × (x, y: f32; level: u8; score: f32); the quality report as in
// .nftm (keypoints u32; coverage, distinctness, meanContrast f64; stars u32; warning count, each
// warning u32 length + bytes); in a version-4 database's records (version 3's layout otherwise)
// then the geometry as in .nftm version 3 (putGeometry, target_model_io.h).

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/binary_io.h"
#include "detection/residual_quantizer.h"
#include "detection/target_model.h"

namespace nft::detection {

/// 8-bit descriptors: each row r of `descriptors` (N × D CV_32F; SURF rows are unit L2,
/// surf_descriptor.h) scaled so that its largest magnitude is 127, rounded: N × D CV_8SC1. The
/// scale is not stored: dequantizeDescriptors() renormalises each row to unit length, which is
/// the direction the 8 bits keep. The same 8 bits a component as the GPU's RGBA8 descriptor
/// storage (seeds/000 section 4.5), with a per-row scale instead of a fixed one: SURF-64's
/// components are small (largest about 0.3), so a fixed [-1, 1] range would waste 2 of the 8 bits.
/// A zero row stays zero. @throws std::invalid_argument if `descriptors` is not CV_32FC1 or holds
/// a value that is not finite.
cv::Mat quantizeDescriptors(const cv::Mat& descriptors);

/// The rows of quantizeDescriptors() back as unit CV_32F rows (a zero row as zero). For a unit
/// row x of D values with largest magnitude m, the row x̂ back is within sqrt(D)·m / 127 of it
/// (L2; rounding moves each of the D scaled values by at most 1/2, and renormalising at most
/// doubles that): ≤ 0.019 for SURF-64's m ≈ 0.3. Quantizing the result again gives the same 8-bit rows (the encoding
/// is a fixed point: a database loaded and saved again keeps its descriptors bit for bit).
/// @throws std::invalid_argument if `quantized` is not CV_8SC1.
cv::Mat dequantizeDescriptors(const cv::Mat& quantized);

/// Options of the compact form.
struct CompactTargetOptions {
  /// The working image: 0 = PNG (lossless, about 57 KB for a 480 × 360 photograph), 1..100 = JPEG
  /// at this quality (libjpeg's scale).
  int imageQuality = 0;
  /// Null: a version-2 record (8-bit descriptor rows). Else a version-3 record: the descriptors
  /// as `words` (each keypoint's word id, required then) and this quantiser's residual codes.
  /// Neither is owned; both must outlive the call.
  const ResidualQuantizer* quantizer = nullptr;
  const std::vector<int>* words = nullptr;
};

/// Appends the compact record of `model` to `out` (version 2, or with options.quantizer the
/// record of a version-4 database: version 3's and the geometry).
/// @throws std::invalid_argument as encodeTargetModel() (inconsistent model), for an image
///   quality outside [0, 100], or (version 3) without one word id a keypoint, for a word id above
///   65535 or descriptors of another length than the quantiser's.
void encodeCompactTarget(const TargetModel& model, const CompactTargetOptions& options, binary::Writer& out);

/// Parses one record written by encodeCompactTarget() from `in`, every size checked before it is
/// allocated; `name` names the target in errors. The record must fill `in` exactly. Without
/// `decodeImage` the model's image is left empty (its PNG or JPEG signature is still checked):
/// what the recogniser needs of a target it verifies (stored_target.h), without the decoder's
/// time and the image's memory.
/// With `quantizer` the record is read as version 3 (the descriptors decoded by it from the
/// record's word ids and codes; `words`, when given, receives the word ids), else as version 2;
/// with `geometry` (a version-4 database's record) the geometry follows the quality report, else
/// the model is planar.
/// @throws std::runtime_error "<in's what>: target '<name>': <what is wrong> (corrupt file?)",
///   also for a word id outside the quantiser's vocabulary.
TargetModel decodeCompactTarget(binary::Reader& in, const std::string& name, bool decodeImage = true,
                                const ResidualQuantizer* quantizer = nullptr, std::vector<int>* words = nullptr,
                                bool geometry = false);

}  // namespace nft::detection
