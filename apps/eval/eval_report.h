#pragma once
// Output of the descriptor evaluation: one CSV with every curve and ratio-test result (what
// scripts/plot_eval.py draws), and the summary tables printed at the end of a run.

#include <filesystem>
#include <ostream>
#include <vector>

#include "apps/eval/descriptor_eval.h"

namespace nft::eval {

/// The CSV header (one line, no newline):
/// sequence,extractor,pair,kind,threshold,recall,one_minus_precision,matches,correct,
/// correspondences,keypoints1,keypointsN
std::string csvHeader();

/// Writes the header and, per result: for each pair ("1-2" .. "1-6") its threshold rows
/// (kind "threshold", threshold t: pairs with distance < t match) and one kind "nn" row
/// (threshold = the ratio, recall = correct / correspondences, one_minus_precision =
/// 1 − precision of the ratio test); then the pair "mean" rows: the threshold curve averaged
/// over the pairs that have correspondences (recall and 1 − precision means, counts sums) and
/// the summed "nn" row. A pair without correspondences has recall 0 in its rows and
/// correspondences 0: its recall is undefined (plot_eval.py leaves it out).
/// @throws std::runtime_error naming the file when it cannot be written.
void writeResultsCsv(const std::filesystem::path& file, const std::vector<ExtractorResult>& results, double ratio);

/// Prints, per sequence, two tables: recall at 1 − precision = `level` per pair and the mean
/// over the pairs with correspondences (in %; "n/a" for a pair without correspondences), and
/// the ratio-test correct matches / precision per pair and summed over the pairs.
void printSummary(std::ostream& out, const std::vector<ExtractorResult>& results, double level, double ratio);

}  // namespace nft::eval
