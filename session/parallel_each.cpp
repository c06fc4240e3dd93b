#include "session/parallel_each.h"

#include <exception>
#include <vector>

#include <opencv2/core/utility.hpp>

#if defined(__SANITIZE_THREAD__)
#include <thread>
#endif

namespace nft::session {

void parallelEach(std::size_t count, const std::function<void(std::size_t)>& body) {
  // Each call's exception is kept and the first rethrown here with its own type:
  // cv::parallel_for_ would turn it into a cv::Exception.
  std::vector<std::exception_ptr> errors(count);
  const auto call = [&](std::size_t i) {
    try {
      body(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
#if defined(__SANITIZE_THREAD__)
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < count; ++i) threads.emplace_back(call, i);
  if (count > 0) call(0);
  for (std::thread& t : threads) t.join();
#else
  if (count < 2 || cv::getNumThreads() < 2) {
    for (std::size_t i = 0; i < count; ++i) call(i);
  } else {
    cv::parallel_for_(
        cv::Range(0, static_cast<int>(count)),
        [&](const cv::Range& range) {
          for (int i = range.start; i < range.end; ++i) call(static_cast<std::size_t>(i));
        },
        static_cast<double>(count));
  }
#endif
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace nft::session
