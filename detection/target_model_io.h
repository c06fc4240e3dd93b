#pragma once
// The target model file (.nftm): one versioned, checksummed binary file.
//
// Layout (little-endian): magic "NFTM", u32 format version, u64 payload size, the payload,
// then the CRC-32 (zlib) of the payload. Payload, in order: image width and height (u32), the
// image (width × height bytes, row by row), originalScale and widthMetres (f64), descriptor
// type and orientation (u32), keypoint count N (u32), N × (x, y, scale, angle, response: f32;
// octave: i32), the tilted-view keypoints among them (u32, TargetModel::tiltedKeypoints; since
// version 2), descriptor length D (u32), N × D f32, patch count M (u32), M × (x, y: f32;
// level: i32; score: f32), the quality report (keypoints: u32; coverage, distinctness,
// meanContrast: f64; stars: u32; warning count and each warning as u32 length + bytes), then
// (since version 3) the geometry: kind (u32: 0 planar, 1 cylinder, 2 cone), radius_m,
// top_radius_m, bottom_radius_m, side_length_m (f64), the cone's label layout (u32: 0 sector, 1
// rectangle). A version-2 file loads as a planar target.

#include <cstdint>
#include <string>
#include <vector>

#include "detection/target_model.h"

namespace nft::detection {

/// The format version this build writes; it reads kOldestTargetModelVersion to this one.
/// 2: the count of tilted-view keypoints (TargetModel::tiltedKeypoints) after the keypoints.
/// 3: the target's geometry (TargetModel::geometry) after the quality report.
inline constexpr std::uint32_t kTargetModelVersion = 3;
inline constexpr std::uint32_t kOldestTargetModelVersion = 2;

/// Writes `model` to `path` through a temporary file renamed into place, so a failure never
/// leaves a half-written model. @throws std::runtime_error naming the file if it cannot be
/// written; std::invalid_argument if the model is inconsistent (descriptor rows ≠ keypoints,
/// image not CV_8UC1 or empty).
void saveTargetModel(const TargetModel& model, const std::string& path);

/// Reads a model written by saveTargetModel. Every size is checked against the file before
/// anything is allocated, so a truncated, corrupt or foreign file is an error, never a crash
/// or a half-loaded model.
/// @throws std::runtime_error naming the file and what is wrong: cannot be opened, not a target
///         model (magic), another format version (both numbers), truncated (expected and actual
///         sizes), checksum mismatch (corrupt), or an implausible value inside.
TargetModel loadTargetModel(const std::string& path);

/// The bytes saveTargetModel() writes (header, payload, checksum), e.g. to embed a model in a
/// target database (target_database.h). @throws std::invalid_argument as saveTargetModel().
std::vector<unsigned char> encodeTargetModel(const TargetModel& model);

/// Parses bytes written by encodeTargetModel(), checked as loadTargetModel() checks a file;
/// `source` names them in errors ("'a.nftm'", "'book' in 'db.nftdb'").
/// @throws std::runtime_error "target model <source>: <what is wrong>".
TargetModel decodeTargetModel(const std::vector<unsigned char>& bytes, const std::string& source);

// Parts the compact record of a target database (compact_target.h) shares with this format.
namespace binary {
class Writer;
class Reader;
}  // namespace binary

/// Checks that `model` can be written: a non-empty CV_8UC1 image, one CV_32F descriptor row of
/// the type's length per keypoint, tiltedKeypoints in [0, keypoints], a valid geometry
/// (validateTargetGeometry).
/// @throws std::invalid_argument "<who>: <what is wrong>".
void checkModelToEncode(const TargetModel& model, const std::string& who);
/// The quality report as both formats store it: keypoints (u32); coverage, distinctness,
/// meanContrast (f64); stars (u32); warning count (u32) and each warning as u32 length + bytes.
void putQualityReport(binary::Writer& out, const TargetQuality& quality);
/// Reads what putQualityReport() wrote. @throws std::runtime_error from `in` (a count too large).
TargetQuality getQualityReport(binary::Reader& in);
/// The geometry as both formats store it (since .nftm version 3, .nftdb version 4): kind (u32),
/// radius_m, top_radius_m, bottom_radius_m, side_length_m (f64), cone label (u32).
void putGeometry(binary::Writer& out, const TargetGeometry& geometry);
/// Reads what putGeometry() wrote and checks it for the model's width and image size
/// (validateTargetGeometry). @throws std::runtime_error from `in`: an unknown kind or label, or
///   the check's message.
TargetGeometry getGeometry(binary::Reader& in, double widthMetres, cv::Size imageSize);

}  // namespace nft::detection
