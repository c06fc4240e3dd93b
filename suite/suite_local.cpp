#include "suite/suite_local.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "suite/suite_task.h"

namespace nft::eval::suite {

LocalRunSummary runLocal(const Plan& plan, int jobs, bool force, std::ostream& log) {
  if (jobs < 1) throw std::invalid_argument("--jobs " + std::to_string(jobs) + ": expected at least 1");
  const auto start = std::chrono::steady_clock::now();
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  TaskOptions options;
  options.threads = std::max(1, cores / jobs);
  options.force = force;

  LocalRunSummary summary;
  std::atomic<size_t> next{0};
  std::mutex mutex;  // guards summary, log, firstError
  std::exception_ptr firstError;
  size_t done = 0;
  auto worker = [&] {
    for (;;) {
      const size_t i = next++;
      if (i >= plan.pairs.size()) return;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (firstError) return;  // the output folder failed: stop starting replays
      }
      const Pair& pair = plan.pairs[i];
      try {
        const PairOutcome outcome = runPair(plan, pair, options);
        std::lock_guard<std::mutex> lock(mutex);
        ++done;
        char line[128];
        std::snprintf(line, sizeof line, "[%zu/%zu] ", done, plan.pairs.size());
        log << line << pair.clip << " x " << pair.config << ": ";
        if (outcome.status == PairOutcome::Status::Skipped) {
          ++summary.skipped;
          log << "finished before, skipped\n";
        } else {
          ++summary.ran;
          std::snprintf(line, sizeof line, "%.1f s", outcome.taskSeconds);
          if (outcome.status == PairOutcome::Status::Failed) {
            ++summary.failed;
            log << "FAILED (" << outcome.error << "), " << line << "\n";
          } else {
            log << "ok, " << line << "\n";
          }
        }
        log.flush();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!firstError) firstError = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  const int count = std::min<int>(jobs, static_cast<int>(std::max<size_t>(plan.pairs.size(), 1)));
  for (int t = 0; t < count; ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  if (firstError) std::rethrow_exception(firstError);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace nft::eval::suite
