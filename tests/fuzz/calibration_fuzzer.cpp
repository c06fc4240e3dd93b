// libFuzzer target: the camera calibration loader (tracker/camera_calibration.h,
// loadCalibration; OpenCV's cv::FileStorage reads YAML, XML or JSON) on arbitrary bytes, through
// a scratch file since it takes a path. Contract: either a calibration that keeps the documented
// promises (finite K with positive focal lengths and last row 0 0 1, a distortion row of 4, 5, 8,
// 12 or 14 finite values or none, a positive image size) or std::runtime_error — nothing else.

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tests/fuzz/fuzz_support.h"
#include "tracker/camera_calibration.h"

namespace {

void check(const nft::tracker::CameraCalibration& c) {
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(c.K.val[i])) nft::fuzz::contractBroken("calibration_fuzzer", "K holds a NaN or infinity");
  if (!(c.K(0, 0) > 0) || !(c.K(1, 1) > 0)) nft::fuzz::contractBroken("calibration_fuzzer", "non-positive focal length");
  if (c.K(2, 0) != 0 || c.K(2, 1) != 0 || c.K(2, 2) != 1 || c.K(1, 0) != 0)
    nft::fuzz::contractBroken("calibration_fuzzer", "K is not an intrinsic matrix");
  if (c.imageSize.width <= 0 || c.imageSize.height <= 0) nft::fuzz::contractBroken("calibration_fuzzer", "image size");
  if (!c.distortion.empty()) {
    const int n = static_cast<int>(c.distortion.total());
    if (c.distortion.rows != 1 || c.distortion.type() != CV_64F || (n != 4 && n != 5 && n != 8 && n != 12 && n != 14))
      nft::fuzz::contractBroken("calibration_fuzzer", "distortion layout");
    for (int i = 0; i < n; ++i)
      if (!std::isfinite(c.distortion.at<double>(0, i)))
        nft::fuzz::contractBroken("calibration_fuzzer", "distortion holds a NaN or infinity");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // cv::FileStorage tells YAML, XML and JSON apart by the content; the extension only matters
  // for compressed files (.gz), which this scratch name avoids.
  static const nft::fuzz::ScratchFile file("calibration", ".yml");
  const std::string& path = file.write(data, size);
  try {
    // OpenCV 4.6's parser never returns on some inputs (tests/fuzz/known-hangs/): the loader
    // then fails at its deadline, 2 s here (the per-input timeout of scripts/fuzz.sh is 10 s),
    // leaving the stuck parser thread running until this fork-mode child ends.
    check(nft::tracker::loadCalibration(path, std::chrono::seconds(2)));
  } catch (const std::runtime_error&) {
    // refused with a message naming the file: fine
  }
  return 0;
}
