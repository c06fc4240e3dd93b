// Under ThreadSanitizer (the tsan preset) the test programs run OpenCV's cv::parallel_for_ on the
// calling thread: Debian's OpenCV runs it on TBB's pool, whose synchronisation TSan cannot see in
// the uninstrumented libtbb, so every parallel loop (SurfCpu's descriptors, cv::resize, ...)
// would be reported as a race between the pool's workers and the caller. Our own threads (the
// Session's detection worker) are what TSan is there to check; they are not affected.
#if defined(__SANITIZE_THREAD__)
#include <opencv2/core/utility.hpp>

namespace {
const bool kSerialOpenCv = [] {
  cv::setNumThreads(1);
  return true;
}();
}  // namespace
#endif
