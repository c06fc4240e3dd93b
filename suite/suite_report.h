#pragma once
// What `suite collect` writes from a Collection (suite_collect.h): the CSV, JSON and Markdown
// tables and the plots (suite_plot.h), into the suite's output folder.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/suite_collect.h"

namespace nft::eval::suite {

/// The rows as CSV: clip,config,pair,status,frames,found_fraction,success_5px,success_10px,
/// median_error_px,visible_success_5px,visible_success_10px,median_visible_error_px,tracker_fps,
/// replay_s,task_s,exit_status,error, then one column per swept key (the visible_* columns: by
/// the visible error, suite/ground_truth.h visibleError()).
/// Empty fields where a value does not exist (no ground truth, not finished).
std::string resultsCsv(const Collection& c);

/// Everything as JSON: {"suite", "source", "complete", "pairs", "ok", "failed", "missing",
/// "swept_keys", "rows": [...], "configs": [...]} (fractions in [0, 1], errors in px; null where a
/// value does not exist; per-frame errors are left out). A baseline's rows and summary have its
/// method as "baseline" (null for a config's) and the summary its "every".
nlohmann::json resultsJson(const Collection& c);

/// The Markdown report: an overview (a row per config and per baseline over all clips), then per
/// config (and baseline) a table
/// with a row per clip and the overall row (success at 5 / 10 px, found, median error, success at
/// 5 px and median by the visible error, tracker fps), then the failed and the missing pairs. An incomplete collection says so in its title.
std::string resultsMarkdown(const Collection& c);

/// Writes OUT/results.csv, results.json, results.md and the plots (suite_plot.h) under OUT/plots,
/// each atomically. @returns the files written. @throws std::runtime_error naming a file that
///   cannot be written.
std::vector<std::string> writeCollection(const Collection& c);

}  // namespace nft::eval::suite
