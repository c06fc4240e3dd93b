#pragma once
// Session options for the tests of what the lanes report on a given frame: each detection in the
// frame it searches (tracking.async_detection off). The default, auto, runs the detection lane
// on a worker thread where the machine has at least 2 cores and reports what it finds a few
// frames later, as many as the worker's speed makes it — under a sanitizer or beside other
// jobs, many more. tests/session/async_detection_test.cpp tests the worker.

#include "nft/session.h"

namespace nft::testing {

/// `options` with tracking.async_detection off (its other keys as given).
inline nft::SessionOptions synchronous(nft::SessionOptions options = {}) {
  options.config.tracking.asyncDetection = nft::config::AsyncDetection::Off;
  return options;
}

}  // namespace nft::testing
