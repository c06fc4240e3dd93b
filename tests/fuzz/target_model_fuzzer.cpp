// libFuzzer target: the target model loader (detection/target_model_io.h, loadTargetModel) on
// arbitrary bytes, through a scratch file.
//
// The first byte picks how the rest is used:
//   odd:  the rest is the file as it is — the header checks (magic, version, sizes, CRC-32).
//   even: the rest is a payload; the harness wraps it in a valid header and its CRC-32, so the
//         fuzzer gets past the checksum (which it cannot forge) into the payload's parser.
// Contract: std::runtime_error naming the file, or a model that keeps the loader's promises
// (non-empty CV_8UC1 image, one descriptor row of the declared length per keypoint) and that
// saveTargetModel writes back byte for byte (the format has one encoding per model).

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "detection/binary_io.h"
#include "detection/target_model_io.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

std::vector<unsigned char> wrapPayload(const std::uint8_t* payload, std::size_t size) {
  std::vector<unsigned char> file(4 + 4 + 8);
  std::memcpy(file.data(), "NFTM", 4);
  const std::uint32_t version = nft::detection::kTargetModelVersion;
  const std::uint64_t payloadSize = size;
  std::memcpy(file.data() + 4, &version, 4);
  std::memcpy(file.data() + 8, &payloadSize, 8);
  file.insert(file.end(), payload, payload + size);
  const std::uint32_t crc = static_cast<std::uint32_t>(crc32(crc32(0L, Z_NULL, 0), payload, static_cast<uInt>(size)));
  const auto* c = reinterpret_cast<const unsigned char*>(&crc);
  file.insert(file.end(), c, c + 4);
  return file;
}

std::vector<unsigned char> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const nft::fuzz::ScratchFile input("target_model", ".nftm");
  static const nft::fuzz::ScratchFile output("target_model_out", ".nftm");
  std::vector<unsigned char> bytes;
  if ((data[0] & 1u) != 0)
    bytes.assign(data + 1, data + size);
  else
    bytes = wrapPayload(data + 1, size - 1);
  input.write(bytes.data(), bytes.size());

  nft::detection::TargetModel model;
  try {
    model = nft::detection::loadTargetModel(input.path());
  } catch (const std::runtime_error&) {
    return 0;  // refused with a message: fine
  }
  if (model.image.empty() || model.image.type() != CV_8UC1)
    nft::fuzz::contractBroken("target_model_fuzzer", "loaded model without a CV_8UC1 image");
  if (model.descriptors.rows != static_cast<int>(model.keypoints.size()) ||
      model.descriptors.cols != nft::detection::descriptorLength(model.descriptorType))
    nft::fuzz::contractBroken("target_model_fuzzer", "descriptor matrix does not fit the keypoints");
  nft::detection::saveTargetModel(model, output.path());
  // A file of the current version saves back byte for byte; an older one (version 2: no
  // geometry) loads as a planar model, saved in the current version.
  const bool current = bytes.size() >= 8 && nft::detection::binary::versionOf(bytes) == nft::detection::kTargetModelVersion;
  if (current && readAll(output.path()) != bytes)
    nft::fuzz::contractBroken("target_model_fuzzer", "saving the loaded model does not give the same bytes");
  return 0;
}
