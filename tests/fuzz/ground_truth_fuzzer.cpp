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
    for (const nft::replay::QuadCorners& corners : nft::replay::loadGroundTruth(path)) {
      // Either annotated (every corner finite) or not (every coordinate NaN), nothing between.
      const bool annotated = nft::replay::annotated(corners);
      for (const cv::Point2f& p : corners)
        if (annotated ? !std::isfinite(p.x) || !std::isfinite(p.y) : !std::isnan(p.x) || !std::isnan(p.y))
          nft::fuzz::contractBroken("ground_truth_fuzzer", "a frame mixes NaN or infinite corners with numbers");
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
