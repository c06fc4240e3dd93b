// CSV and summary tables of the descriptor evaluation (see eval_report.h).

#include "apps/eval/eval_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace nft::eval {

std::string csvHeader() {
  return "sequence,extractor,pair,kind,threshold,recall,one_minus_precision,matches,correct,correspondences,"
         "keypoints1,keypointsN";
}

namespace {

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// " 12.3", or "  n/a" where recall is undefined (no correspondences).
std::string percent(double fraction) {
  return std::isfinite(fraction) ? format(" %6.1f", 100.0 * fraction) : std::string("    n/a");
}

void writeCurve(std::ostream& out, const std::string& prefix, const std::vector<CurvePoint>& curve, long correspondences,
                int k1, int kN) {
  for (const CurvePoint& p : curve)
    out << prefix << ",threshold," << format("%.6g", p.threshold) << ',' << format("%.6f", p.recall) << ','
        << format("%.6f", p.oneMinusPrecision) << ',' << p.matches << ',' << p.correct << ',' << correspondences << ','
        << k1 << ',' << kN << '\n';
}

void writeRatio(std::ostream& out, const std::string& prefix, double ratio, const RatioTestResult& r,
                long correspondences, int k1, int kN) {
  out << prefix << ",nn," << format("%.6g", ratio) << ',' << format("%.6f", r.recall) << ','
      << format("%.6f", r.matches > 0 ? 1.0 - r.precision : 0.0) << ',' << r.matches << ',' << r.correct << ','
      << correspondences << ',' << k1 << ',' << kN << '\n';
}

}  // namespace

void writeResultsCsv(const std::filesystem::path& file, const std::vector<ExtractorResult>& results, double ratio) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write results file '" + file.string() + "'");
  out << csvHeader() << '\n';
  for (const ExtractorResult& r : results) {
    long correspondences = 0;
    int k1 = 0, kN = 0;
    for (const PairResult& p : r.pairs) {
      const std::string prefix = r.sequence + ',' + r.extractor + ",1-" + std::to_string(p.image);
      writeCurve(out, prefix, p.curve, p.correspondences, p.keypoints1, p.keypointsN);
      writeRatio(out, prefix, ratio, p.ratio, p.correspondences, p.keypoints1, p.keypointsN);
      correspondences += p.correspondences;
      k1 += p.keypoints1;
      kN += p.keypointsN;
    }
    const std::string prefix = r.sequence + ',' + r.extractor + ",mean";
    writeCurve(out, prefix, r.mean, correspondences, k1, kN);
    writeRatio(out, prefix, ratio, r.ratioTotal(), correspondences, k1, kN);
  }
  out.flush();
  if (!out) throw std::runtime_error("error while writing results file '" + file.string() + "'");
}

void printSummary(std::ostream& out, const std::vector<ExtractorResult>& results, double level, double ratio) {
  size_t width = 9;
  for (const ExtractorResult& r : results) width = std::max(width, r.extractor.size());
  const int w = static_cast<int>(width);
  char line[512];
  std::string sequence;
  for (size_t i = 0; i < results.size(); ++i) {
    const ExtractorResult& r = results[i];
    if (r.sequence != sequence) {
      sequence = r.sequence;
      // Both tables of a sequence: gather its results first.
      std::vector<const ExtractorResult*> rows;
      for (size_t j = i; j < results.size() && results[j].sequence == sequence; ++j) rows.push_back(&results[j]);
      out << "\n" << sequence << ": recall (%) at 1-precision = " << format("%.2g", level)
          << " (threshold matching, every pair; mean over the pairs with correspondences)\n";
      std::snprintf(line, sizeof line, "  %-*s %6s %6s %6s %6s %6s %6s\n", w, "extractor", "1-2", "1-3", "1-4",
                    "1-5", "1-6", "mean");
      out << line;
      for (const ExtractorResult* e : rows) {
        std::snprintf(line, sizeof line, "  %-*s", w, e->extractor.c_str());
        out << line;
        for (const PairResult& p : e->pairs) out << percent(p.recallAtLevel);
        out << percent(e->meanRecallAtLevel()) << '\n';
      }
      out << sequence << ": nearest neighbour, ratio " << format("%.2g", ratio)
          << ": correct matches / precision (%)\n";
      std::snprintf(line, sizeof line, "  %-*s %9s %9s %9s %9s %9s %10s\n", w, "extractor", "1-2", "1-3", "1-4", "1-5",
                    "1-6", "all");
      out << line;
      for (const ExtractorResult* e : rows) {
        std::snprintf(line, sizeof line, "  %-*s", w, e->extractor.c_str());
        out << line;
        for (const PairResult& p : e->pairs) {
          std::snprintf(line, sizeof line, " %4ld/%3.0f%%", p.ratio.correct, 100.0 * p.ratio.precision);
          out << line;
        }
        const RatioTestResult t = e->ratioTotal();
        std::snprintf(line, sizeof line, " %5ld/%3.0f%%\n", t.correct, 100.0 * t.precision);
        out << line;
      }
    }
  }
}

}  // namespace nft::eval
