#pragma once
// Independent per-target work of one frame spread over the cores: the tracking lanes of the
// targets being tracked, and their final refinements (session/target_tracking.cpp). On the 8-print
// grid on llvmpipe's 2-core machines these were 8 lanes of about 1.3 ms one after another on the
// camera thread (issue 33: p99 of process() ≤ 8 ms with 8 targets tracked).

#include <cstddef>
#include <functional>

namespace nft::session {

/// Calls body(i) once for each i in [0, count), on OpenCV's thread pool (cv::parallel_for_, one
/// index per stripe; the calling thread takes part), and returns when every call has ended. The
/// calls must be independent: each touches its own state, and what they share only read.
/// Serial when count < 2 or cv::getNumThreads() < 2; under ThreadSanitizer, one std::thread per
/// index instead, so that TSan sees the calls run concurrently (it cannot see into TBB's pool).
/// @throws the exception of the lowest index whose call threw, after every call has ended.
void parallelEach(std::size_t count, const std::function<void(std::size_t)>& body);

}  // namespace nft::session
