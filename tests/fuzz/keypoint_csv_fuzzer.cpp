// libFuzzer target: the keypoint CSV reader (detection/keypoint_io.h, readKeypointsCsv) on
// arbitrary bytes, through a scratch file. Contract: finite keypoints with their line numbers,
// or std::runtime_error.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "detection/keypoint_io.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const nft::fuzz::ScratchFile file("keypoints", ".csv");
  const std::string& path = file.write(data, size);
  try {
    const nft::detection::KeypointCsv csv = nft::detection::readKeypointsCsv(path);
    if (csv.lines.size() != csv.keypoints.size()) nft::fuzz::contractBroken("keypoint_csv_fuzzer", "line numbers");
    for (const nft::detection::Keypoint& k : csv.keypoints)
      if (!std::isfinite(k.x) || !std::isfinite(k.y) || !std::isfinite(k.scale) || std::isnan(k.angle))
        nft::fuzz::contractBroken("keypoint_csv_fuzzer", "a keypoint holds a NaN or infinity");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
