#pragma once
// `nft_eval suite run --jobs N`: the pairs of a plan on this machine, N replays at a time.

#include <ostream>

#include "suite/suite_plan.h"

namespace nft::eval::suite {

/// What a local run did.
struct LocalRunSummary {
  int ran = 0;      ///< pairs replayed (ok or failed)
  int failed = 0;   ///< of those, failed
  int skipped = 0;  ///< already finished
  double seconds = 0;  ///< wall time of the whole run
};

/// Runs every unfinished pair of `plan` (finished ones are skipped), `jobs` (≥ 1) at a time, each
/// replay limited to max(1, cores / jobs) threads. A failed pair does not stop the others. Prints
/// one line per pair to `log` as it ends ("[3/8] clip × config: ok, 4.2 s"). `force`: run finished
/// pairs again. @throws std::invalid_argument for jobs < 1; std::runtime_error when the output
/// folder cannot be written (after the running replays end).
LocalRunSummary runLocal(const Plan& plan, int jobs, bool force, std::ostream& log);

}  // namespace nft::eval::suite
