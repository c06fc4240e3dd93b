#include "detection/target_model_io.h"

#include "detection/binary_io.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace nft::detection {

namespace {

using binary::Reader;
using binary::Writer;

constexpr char kMagic[4] = {'N', 'F', 'T', 'M'};
// Limits on what a model may hold, so a corrupt size cannot ask for gigabytes.
constexpr std::uint32_t kMaxSide = 16384;
constexpr std::uint32_t kMaxKeypoints = 1u << 20;
constexpr std::uint32_t kMaxPatches = 1u << 20;
constexpr std::uint32_t kMaxWarnings = 64;
constexpr std::uint32_t kMaxWarningLength = 4096;

static_assert(std::numeric_limits<float>::is_iec559, "the model file stores IEEE-754 floats");

}  // namespace

void checkModelToEncode(const TargetModel& model, const std::string& who) {
  if (model.image.empty() || model.image.type() != CV_8UC1)
    throw std::invalid_argument(who + ": the model's image must be a non-empty CV_8UC1 image");
  const int length = descriptorLength(model.descriptorType);
  if (model.descriptors.rows != static_cast<int>(model.keypoints.size()) ||
      (!model.keypoints.empty() && (model.descriptors.cols != length || model.descriptors.type() != CV_32F)))
    throw std::invalid_argument(who + ": " + std::to_string(model.keypoints.size()) + " keypoints but a " +
                                std::to_string(model.descriptors.rows) + "x" + std::to_string(model.descriptors.cols) +
                                " descriptor matrix (expected CV_32F with " + std::to_string(length) + " columns)");
  if (model.tiltedKeypoints < 0 || static_cast<size_t>(model.tiltedKeypoints) > model.keypoints.size())
    throw std::invalid_argument(who + ": tiltedKeypoints " + std::to_string(model.tiltedKeypoints) +
                                " is not in [0, " + std::to_string(model.keypoints.size()) + "]");
  validateTargetGeometry(model.geometry, model.widthMetres, model.image.size(), who);
}

void putGeometry(Writer& w, const TargetGeometry& g) {
  w.put<std::uint32_t>(static_cast<std::uint32_t>(g.kind));
  for (const double v : {g.radiusM, g.topRadiusM, g.bottomRadiusM, g.sideLengthM}) w.put<double>(v);
  w.put<std::uint32_t>(g.coneLabel == ConeLabel::Rectangle ? 1u : 0u);
}

TargetGeometry getGeometry(Reader& r, double widthMetres, cv::Size imageSize) {
  TargetGeometry g;
  const auto kind = r.get<std::uint32_t>("geometry kind");
  if (kind > 2) r.fail("geometry kind " + std::to_string(kind) + " (expected 0 planar, 1 cylinder or 2 cone)");
  g.kind = static_cast<GeometryKind>(kind);
  g.radiusM = r.get<double>("geometry");
  g.topRadiusM = r.get<double>("geometry");
  g.bottomRadiusM = r.get<double>("geometry");
  g.sideLengthM = r.get<double>("geometry");
  const auto label = r.get<std::uint32_t>("cone label");
  if (label > 1) r.fail("cone label layout " + std::to_string(label) + " (expected 0 sector or 1 rectangle)");
  g.coneLabel = label == 1 ? ConeLabel::Rectangle : ConeLabel::Sector;
  try {
    validateTargetGeometry(g, widthMetres, imageSize, "geometry");
  } catch (const std::invalid_argument& e) {
    r.fail(e.what());
  }
  return g;
}

void putQualityReport(Writer& w, const TargetQuality& q) {
  w.put<std::uint32_t>(static_cast<std::uint32_t>(q.keypointCount));
  w.put<double>(q.coverage);
  w.put<double>(q.distinctness);
  w.put<double>(q.meanContrast);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(q.stars));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(q.warnings.size()));
  for (const std::string& warning : q.warnings) w.putString(warning);
}

TargetQuality getQualityReport(Reader& r) {
  TargetQuality q;
  q.keypointCount = static_cast<int>(r.count("quality keypoint count", kMaxKeypoints));
  q.coverage = r.get<double>("quality");
  q.distinctness = r.get<double>("quality");
  q.meanContrast = r.get<double>("quality");
  q.stars = static_cast<int>(r.count("stars", 5));
  const std::uint32_t warnings = r.count("warning count", kMaxWarnings);
  for (std::uint32_t i = 0; i < warnings; ++i) q.warnings.push_back(r.string("warning length", kMaxWarningLength));
  return q;
}

std::vector<unsigned char> encodeTargetModel(const TargetModel& model) {
  checkModelToEncode(model, "encodeTargetModel");
  const int length = descriptorLength(model.descriptorType);
  Writer w;
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.image.cols));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.image.rows));
  for (int r = 0; r < model.image.rows; ++r) w.putBytes(model.image.ptr(r), static_cast<size_t>(model.image.cols));
  w.put<double>(model.originalScale);
  w.put<double>(model.widthMetres);
  w.put<std::uint32_t>(model.descriptorType == DescriptorType::Surf64 ? 64u : 36u);
  w.put<std::uint32_t>(model.orientation == Orientation::Oriented ? 1u : 0u);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.keypoints.size()));
  for (const Keypoint& k : model.keypoints) {
    for (float v : {k.x, k.y, k.scale, k.angle, k.response}) w.put<float>(v);
    w.put<std::int32_t>(k.octave);
  }
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.tiltedKeypoints));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(length));
  for (int r = 0; r < model.descriptors.rows; ++r)
    w.putBytes(model.descriptors.ptr<float>(r), static_cast<size_t>(length) * sizeof(float));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.patches.size()));
  for (const TrackingPatch& p : model.patches) {
    w.put<float>(p.position.x);
    w.put<float>(p.position.y);
    w.put<std::int32_t>(p.level);
    w.put<float>(p.score);
  }
  putQualityReport(w, model.quality);
  putGeometry(w, model.geometry);
  return binary::container(kMagic, kTargetModelVersion, w.bytes());
}

void saveTargetModel(const TargetModel& model, const std::string& path) {
  binary::writeAtomically(path, encodeTargetModel(model), "target model");
}

TargetModel loadTargetModel(const std::string& path) {
  const std::vector<unsigned char> file = binary::readFile(path, "target model");
  return decodeTargetModel(file, "'" + path + "'");
}

TargetModel decodeTargetModel(const std::vector<unsigned char>& file, const std::string& source) {
  const std::string what = "target model " + source;
  const auto [payload, payloadSize] =
      binary::payloadOf(file, kMagic, kTargetModelVersion, what, "target model", "retrain the target with this nft_train",
                        kOldestTargetModelVersion);
  const std::uint32_t version = binary::versionOf(file);
  Reader r(payload, payloadSize, what);
  TargetModel m;
  const std::uint32_t width = r.count("image width", kMaxSide);
  const std::uint32_t height = r.count("image height", kMaxSide);
  if (width == 0 || height == 0) r.fail("image is 0x0");
  m.image.create(static_cast<int>(height), static_cast<int>(width), CV_8UC1);
  r.getBytes(m.image.data, static_cast<size_t>(width) * height, "the image");
  m.originalScale = r.get<double>("original scale");
  m.widthMetres = r.get<double>("width");
  if (!(m.originalScale > 0) || !(m.widthMetres >= 0)) r.fail("implausible scale or width");
  const auto type = r.get<std::uint32_t>("descriptor type");
  if (type != 64 && type != 36) r.fail("descriptor type " + std::to_string(type) + " (expected 64 or 36)");
  m.descriptorType = type == 64 ? DescriptorType::Surf64 : DescriptorType::Surf36;
  const auto orientation = r.get<std::uint32_t>("orientation");
  if (orientation > 1) r.fail("orientation flag " + std::to_string(orientation));
  m.orientation = orientation == 1 ? Orientation::Oriented : Orientation::Upright;
  const std::uint32_t n = r.count("keypoint count", kMaxKeypoints);
  if (static_cast<size_t>(n) * 24 > r.remaining()) r.fail("payload ends inside the keypoints");
  m.keypoints.resize(n);
  for (Keypoint& k : m.keypoints) {
    k.x = r.get<float>("keypoint");
    k.y = r.get<float>("keypoint");
    k.scale = r.get<float>("keypoint");
    k.angle = r.get<float>("keypoint");
    k.response = r.get<float>("keypoint");
    k.octave = r.get<std::int32_t>("keypoint");
  }
  try {
    validateKeypoints(m.keypoints, m.image.size());
  } catch (const std::invalid_argument& e) {
    r.fail(e.what());
  }
  const std::uint32_t tilted = r.get<std::uint32_t>("tilted keypoint count");
  if (tilted > n) r.fail("tilted keypoint count " + std::to_string(tilted) + " > keypoint count " + std::to_string(n));
  m.tiltedKeypoints = static_cast<int>(tilted);
  const std::uint32_t length = r.get<std::uint32_t>("descriptor length");
  if (length != type) r.fail("descriptor length " + std::to_string(length) + " for SURF-" + std::to_string(type));
  if (static_cast<size_t>(n) * length * sizeof(float) > r.remaining()) r.fail("payload ends inside the descriptors");
  m.descriptors.create(static_cast<int>(n), static_cast<int>(length), CV_32F);
  if (n > 0) r.getBytes(m.descriptors.data, static_cast<size_t>(n) * length * sizeof(float), "the descriptors");
  const std::uint32_t patches = r.count("patch count", kMaxPatches);
  if (static_cast<size_t>(patches) * 16 > r.remaining()) r.fail("payload ends inside the patches");
  m.patches.resize(patches);
  for (TrackingPatch& p : m.patches) {
    p.position.x = r.get<float>("patch");
    p.position.y = r.get<float>("patch");
    p.level = r.get<std::int32_t>("patch");
    p.score = r.get<float>("patch");
    if (p.level < 0 || p.level > 16) r.fail("patch level " + std::to_string(p.level));
  }
  m.quality = getQualityReport(r);
  if (version >= 3) m.geometry = getGeometry(r, m.widthMetres, m.image.size());  // version 2: planar
  if (r.remaining() != 0)
    r.fail(std::to_string(r.remaining()) + " unexpected bytes after the " +
           (version >= 3 ? "geometry" : "quality report"));
  return m;
}

}  // namespace nft::detection
