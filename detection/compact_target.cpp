#include "detection/compact_target.h"

#include "detection/target_model_io.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>

namespace nft::detection {
namespace {

// Limits on what a record may hold, so a corrupt size cannot ask for gigabytes (as .nftm's).
constexpr std::uint32_t kMaxSide = 16384;
constexpr std::uint32_t kMaxKeypoints = 1u << 20;
constexpr std::uint32_t kMaxPatches = 1u << 20;
constexpr size_t kKeypointBytes = 4 + 4 + 2 + 2 + 2 + 1;        // version 2
constexpr size_t kPackedKeypointBytes = 2 + 2 + 2 + 2 + 2 + 1;  // version 3
constexpr size_t kPatchBytes = 4 + 4 + 1 + 4;

std::uint16_t toHalf(float v) { return cv::float16_t(v).bits(); }
float fromHalf(std::uint16_t bits) { return static_cast<float>(cv::float16_t::fromBits(bits)); }

}  // namespace

cv::Mat quantizeDescriptors(const cv::Mat& descriptors) {
  if (descriptors.type() != CV_32FC1)
    throw std::invalid_argument("quantizeDescriptors: expected CV_32FC1 descriptors, got " +
                                cv::typeToString(descriptors.type()));
  if (!descriptors.empty() && !cv::checkRange(descriptors))
    throw std::invalid_argument("quantizeDescriptors: a descriptor value is not finite");
  cv::Mat out(descriptors.size(), CV_8SC1);
  for (int r = 0; r < descriptors.rows; ++r) {
    const float* in = descriptors.ptr<float>(r);
    float largest = 0.0f;
    for (int c = 0; c < descriptors.cols; ++c) largest = std::max(largest, std::abs(in[c]));
    const float scale = largest > 0.0f ? 127.0f / largest : 0.0f;
    auto* q = out.ptr<std::int8_t>(r);
    for (int c = 0; c < descriptors.cols; ++c) q[c] = static_cast<std::int8_t>(std::lround(in[c] * scale));
  }
  return out;
}

cv::Mat dequantizeDescriptors(const cv::Mat& quantized) {
  if (quantized.type() != CV_8SC1)
    throw std::invalid_argument("dequantizeDescriptors: expected CV_8SC1 rows, got " + cv::typeToString(quantized.type()));
  cv::Mat out(quantized.size(), CV_32FC1);
  for (int r = 0; r < quantized.rows; ++r) {
    const auto* q = quantized.ptr<std::int8_t>(r);
    float* x = out.ptr<float>(r);
    double squares = 0.0;
    for (int c = 0; c < quantized.cols; ++c) squares += static_cast<double>(q[c]) * q[c];
    const float scale = squares > 0.0 ? static_cast<float>(1.0 / std::sqrt(squares)) : 0.0f;
    for (int c = 0; c < quantized.cols; ++c) x[c] = static_cast<float>(q[c]) * scale;
  }
  return out;
}

void encodeCompactTarget(const TargetModel& model, const CompactTargetOptions& options, binary::Writer& w) {
  if (options.imageQuality < 0 || options.imageQuality > 100)
    throw std::invalid_argument("encodeCompactTarget: image quality " + std::to_string(options.imageQuality) +
                                " (expected 0 for PNG or 1-100 for JPEG)");
  checkModelToEncode(model, "encodeCompactTarget");
  const int length = descriptorLength(model.descriptorType);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.image.cols));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.image.rows));
  w.put<double>(model.originalScale);
  w.put<double>(model.widthMetres);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(length));
  w.put<std::uint32_t>(model.orientation == Orientation::Oriented ? 1u : 0u);
  std::vector<unsigned char> image;
  const bool png = options.imageQuality == 0;
  cv::imencode(png ? ".png" : ".jpg", model.image, image,
               png ? std::vector<int>{cv::IMWRITE_PNG_COMPRESSION, 9}
                   : std::vector<int>{cv::IMWRITE_JPEG_QUALITY, options.imageQuality});
  w.put<std::uint32_t>(static_cast<std::uint32_t>(image.size()));
  w.putBytes(image.data(), image.size());
  const bool v3 = options.quantizer != nullptr;
  if (v3) {
    if (!options.words || options.words->size() != model.keypoints.size())
      throw std::invalid_argument("encodeCompactTarget: " + std::to_string(model.keypoints.size()) + " keypoints but " +
                                  std::to_string(options.words ? options.words->size() : 0) + " word ids");
    if (options.quantizer->length() != length)
      throw std::invalid_argument("encodeCompactTarget: descriptors of " + std::to_string(length) +
                                  " values, the quantiser's of " + std::to_string(options.quantizer->length()));
    for (int id : *options.words)
      if (id < 0 || id > 65535) throw std::invalid_argument("encodeCompactTarget: word id " + std::to_string(id));
  }
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.keypoints.size()));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.tiltedKeypoints));
  const double side = std::max(model.image.cols, model.image.rows);
  for (const Keypoint& k : model.keypoints) {
    if (v3) {  // validateKeypoints (checkModelToEncode) kept them inside the image
      for (float v : {k.x, k.y})
        w.put<std::uint16_t>(static_cast<std::uint16_t>(std::clamp(std::lround(v / side * 65535.0), 0L, 65535L)));
    } else {
      w.put<float>(k.x);
      w.put<float>(k.y);
    }
    for (float v : {k.scale, k.angle, k.response}) w.put<std::uint16_t>(toHalf(v));
    w.put<std::int8_t>(static_cast<std::int8_t>(std::clamp(k.octave, -128, 127)));
  }
  if (v3) {
    for (int id : *options.words) w.put<std::uint16_t>(static_cast<std::uint16_t>(id));
    if (!model.keypoints.empty()) {
      const cv::Mat codes = options.quantizer->encode(model.descriptors, *options.words);
      for (int r = 0; r < codes.rows; ++r) w.putBytes(codes.ptr(r), static_cast<size_t>(codes.cols));
    }
  } else if (!model.keypoints.empty()) {
    const cv::Mat q = quantizeDescriptors(model.descriptors);
    for (int r = 0; r < q.rows; ++r) w.putBytes(q.ptr(r), static_cast<size_t>(length));
  }
  w.put<std::uint32_t>(static_cast<std::uint32_t>(model.patches.size()));
  for (const TrackingPatch& p : model.patches) {
    if (p.level < 0 || p.level > 16)
      throw std::invalid_argument("encodeCompactTarget: patch level " + std::to_string(p.level) + " (expected 0-16)");
    w.put<float>(p.position.x);
    w.put<float>(p.position.y);
    w.put<std::uint8_t>(static_cast<std::uint8_t>(p.level));
    w.put<float>(p.score);
  }
  putQualityReport(w, model.quality);
  if (v3) putGeometry(w, model.geometry);  // the records of a version-4 database
}

TargetModel decodeCompactTarget(binary::Reader& r, const std::string& name, bool decodeImage,
                                const ResidualQuantizer* quantizer, std::vector<int>* wordsOut, bool geometry) {
  const std::string who = "target '" + name + "': ";
  auto fail = [&](const std::string& why) { r.fail(who + why); };
  TargetModel m;
  const std::uint32_t width = r.count("image width", kMaxSide);
  const std::uint32_t height = r.count("image height", kMaxSide);
  if (width == 0 || height == 0) fail("image is " + std::to_string(width) + "x" + std::to_string(height));
  m.originalScale = r.get<double>("original scale");
  m.widthMetres = r.get<double>("width");
  if (!(m.originalScale > 0) || !(m.widthMetres >= 0) || !std::isfinite(m.originalScale) || !std::isfinite(m.widthMetres))
    fail("implausible scale or width");
  const auto length = r.get<std::uint32_t>("descriptor type");
  if (length != 64 && length != 36) fail("descriptor type " + std::to_string(length) + " (expected 64 or 36)");
  m.descriptorType = length == 64 ? DescriptorType::Surf64 : DescriptorType::Surf36;
  const auto orientation = r.get<std::uint32_t>("orientation");
  if (orientation > 1) fail("orientation flag " + std::to_string(orientation));
  m.orientation = orientation == 1 ? Orientation::Oriented : Orientation::Upright;

  const std::uint32_t imageBytes = r.get<std::uint32_t>("image size");
  if (imageBytes > r.remaining()) fail("payload ends inside the image");
  const unsigned char* encoded = r.take(imageBytes, "the image");
  // Only what save() writes goes to OpenCV's decoders: imdecode() takes any format it knows
  // (JPEG 2000, TIFF, OpenEXR...), each a decoder more for a crafted file to reach.
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, kJpeg[3] = {0xff, 0xd8, 0xff};
  const bool png = imageBytes >= sizeof kPng && std::memcmp(encoded, kPng, sizeof kPng) == 0;
  const bool jpeg = imageBytes >= sizeof kJpeg && std::memcmp(encoded, kJpeg, sizeof kJpeg) == 0;
  if (!png && !jpeg) fail("the image (" + std::to_string(imageBytes) + " bytes) is not a PNG or JPEG file");
  // The bytes were checked by the CRC-32; a decoder error is still reported with the file's name.
  if (decodeImage) {
    try {
      m.image = cv::imdecode(cv::Mat(1, static_cast<int>(imageBytes), CV_8UC1, const_cast<unsigned char*>(encoded)),
                             cv::IMREAD_GRAYSCALE);
    } catch (const cv::Exception& e) {
      fail(std::string("the image does not decode (") + e.what() + ")");
    }
    if (m.image.empty()) fail(std::string("the image does not decode as ") + (png ? "PNG" : "JPEG"));
    if (m.image.cols != static_cast<int>(width) || m.image.rows != static_cast<int>(height) || m.image.type() != CV_8UC1)
      fail("the image decodes to " + std::to_string(m.image.cols) + "x" + std::to_string(m.image.rows) + ", not " +
           std::to_string(width) + "x" + std::to_string(height));
  }

  const std::uint32_t n = r.count("keypoint count", kMaxKeypoints);
  const std::uint32_t tilted = r.get<std::uint32_t>("tilted keypoint count");
  if (tilted > n) fail("tilted keypoint count " + std::to_string(tilted) + " > keypoint count " + std::to_string(n));
  m.tiltedKeypoints = static_cast<int>(tilted);
  const bool v3 = quantizer != nullptr;
  if (v3 && quantizer->length() != static_cast<int>(length))
    fail("descriptors of " + std::to_string(length) + " values, the database's of " + std::to_string(quantizer->length()));
  const size_t perKeypoint = v3 ? kPackedKeypointBytes + 2 + static_cast<size_t>(quantizer->subvectors())
                                : kKeypointBytes + length;
  if (static_cast<size_t>(n) * perKeypoint > r.remaining()) fail("payload ends inside the keypoints");
  m.keypoints.resize(n);
  const double step = std::max(width, height) / 65535.0;
  for (Keypoint& k : m.keypoints) {
    if (v3) {
      k.x = static_cast<float>(r.get<std::uint16_t>("keypoint") * step);
      k.y = static_cast<float>(r.get<std::uint16_t>("keypoint") * step);
    } else {
      k.x = r.get<float>("keypoint");
      k.y = r.get<float>("keypoint");
    }
    k.scale = fromHalf(r.get<std::uint16_t>("keypoint"));
    k.angle = fromHalf(r.get<std::uint16_t>("keypoint"));
    k.response = fromHalf(r.get<std::uint16_t>("keypoint"));
    k.octave = r.get<std::int8_t>("keypoint");
  }
  try {
    validateKeypoints(m.keypoints, cv::Size(static_cast<int>(width), static_cast<int>(height)));
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  if (v3) {
    std::vector<int> words(n);
    for (int& id : words) {
      id = r.get<std::uint16_t>("word id");
      if (id >= quantizer->words()) fail("word id " + std::to_string(id) + " of " + std::to_string(quantizer->words()));
    }
    cv::Mat codes(static_cast<int>(n), quantizer->subvectors(), CV_8UC1);
    if (n > 0) r.getBytes(codes.data, static_cast<size_t>(n) * codes.cols, "the descriptor codes");
    for (int i = 0; i < codes.rows * codes.cols; ++i)
      if (codes.data[i] >= quantizer->centroids())
        fail("descriptor code " + std::to_string(codes.data[i]) + " of " + std::to_string(quantizer->centroids()));
    m.descriptors = quantizer->decode(codes, words);
    if (wordsOut) *wordsOut = std::move(words);
  } else {
    cv::Mat quantized(static_cast<int>(n), static_cast<int>(length), CV_8SC1);
    if (n > 0) r.getBytes(quantized.data, static_cast<size_t>(n) * length, "the descriptors");
    m.descriptors = dequantizeDescriptors(quantized);
  }

  const std::uint32_t patches = r.count("patch count", kMaxPatches);
  if (static_cast<size_t>(patches) * kPatchBytes > r.remaining()) fail("payload ends inside the patches");
  m.patches.resize(patches);
  for (TrackingPatch& p : m.patches) {
    p.position.x = r.get<float>("patch");
    p.position.y = r.get<float>("patch");
    p.level = r.get<std::uint8_t>("patch");
    p.score = r.get<float>("patch");
    if (p.level > 16) fail("patch level " + std::to_string(p.level));
  }
  m.quality = getQualityReport(r);
  if (geometry) m.geometry = getGeometry(r, m.widthMetres, cv::Size(static_cast<int>(width), static_cast<int>(height)));
  if (r.remaining() != 0)
    fail(std::to_string(r.remaining()) + " unexpected bytes after the " + (geometry ? "geometry" : "quality report"));
  return m;
}

}  // namespace nft::detection
