// libFuzzer target: the ground-truth reader of nft_replay (suite/ground_truth.h,
// loadGroundTruth: the TMT gt.tsv format) on arbitrary bytes, through a scratch file.
// Contract: finite corners, or std::runtime_error.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "suite/ground_truth.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const nft::fuzz::ScratchFile file("ground_truth", ".tsv");
  const std::string& path = file.write(data, size);
  try {
    for (const nft::replay::QuadCorners& corners : nft::replay::loadGroundTruth(path))
      for (const cv::Point2f& p : corners)
        if (!std::isfinite(p.x) || !std::isfinite(p.y))
          nft::fuzz::contractBroken("ground_truth_fuzzer", "a corner holds a NaN or infinity");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
