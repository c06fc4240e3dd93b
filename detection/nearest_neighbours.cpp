#include "detection/nearest_neighbours.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace nft::detection {
namespace {

// Eight floats: one AVX register, two SSE2 or NEON registers; GCC and clang lower the
// arithmetic to whatever the target has (vector extensions, no intrinsics).
typedef float Lanes __attribute__((vector_size(32)));
constexpr int kLanes = 8;
// The register block: kRowBlock queries × kColumnBlock targets, 8 accumulators of 8 lanes, plus
// the two target vectors and a broadcast query value: 11 of AVX's 16 registers.
constexpr int kRowBlock = 4;
constexpr int kColumnBlock = 2 * kLanes;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

// On x86-64 Linux, one copy of the search for AVX2 + FMA (x86-64-v3) and one for the baseline,
// chosen once at load time (an ifunc); elsewhere the compiler's target only. Not under
// ThreadSanitizer: the ifunc's resolver runs while the loader relocates, before TSan's runtime is
// set up, and TSan-instrumented code there crashes the program at load (gcc 12).
#if defined(__SANITIZE_THREAD__)
#define NFT_WIDEST_VECTORS
#elif defined(__x86_64__) && defined(__linux__) && !defined(__EMSCRIPTEN__)
#define NFT_WIDEST_VECTORS __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define NFT_WIDEST_VECTORS
#endif

struct TwoBest {
  float first = kInfinity;   // squared distances
  float second = kInfinity;
  int index = -1;
};

int roundUp(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

// Up to kRowBlock queries (`rows`, each `length` floats; unused entries point at zeros and their
// results are ignored) against every column of the table: the squared distances of each column
// block are formed in registers, and only those below a query's current second best leave them.
NFT_WIDEST_VECTORS
void searchRows(const float* const* rows, const float* rowNorms, const std::int8_t* rowSigns, int length,
                const float* columns, const float* columnNorms, const std::int8_t* columnSigns, int stride,
                TwoBest* best) {
  for (int j0 = 0; j0 < stride; j0 += kColumnBlock) {
    Lanes dot[kRowBlock][2] = {};
    for (int d = 0; d < length; ++d) {
      const float* column = columns + static_cast<size_t>(d) * static_cast<size_t>(stride) + j0;
      Lanes t0, t1;
      std::memcpy(&t0, column, sizeof t0);
      std::memcpy(&t1, column + kLanes, sizeof t1);
      for (int r = 0; r < kRowBlock; ++r) {
        const float q = rows[r][d];
        dot[r][0] += q * t0;
        dot[r][1] += q * t1;
      }
    }
    for (int r = 0; r < kRowBlock; ++r) {
      TwoBest& b = best[r];
      for (int h = 0; h < 2; ++h) {
        Lanes norms;
        std::memcpy(&norms, columnNorms + j0 + h * kLanes, sizeof norms);
        const Lanes squared = (norms + rowNorms[r]) - 2.0f * dot[r][h];
        float values[kLanes];
        std::memcpy(values, &squared, sizeof values);
        for (int k = 0; k < kLanes; ++k) {
          const float e = values[k];
          if (!(e < b.second)) continue;  // the common case; padding columns are +inf
          const int j = j0 + h * kLanes + k;
          if (columnSigns != nullptr && rowSigns[r] * columnSigns[j] < 0) continue;
          if (e < b.first) {
            b.second = b.first;
            b.first = e;
            b.index = j;
          } else {
            b.second = e;
          }
        }
      }
    }
  }
}

float squaredNorm(const float* row, int length) {
  float sum = 0.0f;
  for (int d = 0; d < length; ++d) sum += row[d] * row[d];
  return sum;
}

float distance(float squared) { return std::sqrt(squared > 0.0f ? squared : 0.0f); }

void checkType(const cv::Mat& m, const char* what) {
  if (!m.empty() && (m.type() != CV_32FC1 || m.dims != 2))
    throw std::invalid_argument(std::string(what) + ": descriptor type " + cv::typeToString(m.type()) +
                                " is not supported (expected CV_32F rows)");
}

}  // namespace

DescriptorTable::DescriptorTable(const cv::Mat& descriptors) {
  checkType(descriptors, "DescriptorTable");
  if (descriptors.empty()) return;
  count_ = descriptors.rows;
  length_ = descriptors.cols;
  stride_ = roundUp(count_, kColumnBlock);
  columns_.assign(static_cast<size_t>(length_) * static_cast<size_t>(stride_), 0.0f);
  squaredNorms_.assign(static_cast<size_t>(stride_), kInfinity);
  for (int j = 0; j < count_; ++j) {
    const float* row = descriptors.ptr<float>(j);
    for (int d = 0; d < length_; ++d)
      columns_[static_cast<size_t>(d) * static_cast<size_t>(stride_) + static_cast<size_t>(j)] = row[d];
    squaredNorms_[static_cast<size_t>(j)] = squaredNorm(row, length_);
  }
}

std::vector<Match> twoNearest(const cv::Mat& queries, const DescriptorTable& table, const LaplacianSigns& querySigns,
                              const LaplacianSigns& tableSigns) {
  checkType(queries, "twoNearest");
  if (queries.empty() || table.count() == 0) return {};
  if (queries.cols != table.length())
    throw std::invalid_argument("twoNearest: query length " + std::to_string(queries.cols) +
                                " differs from the table's " + std::to_string(table.length()));
  validateSigns(querySigns, queries.rows, "twoNearest (queries)");
  validateSigns(tableSigns, table.count(), "twoNearest (table)");
  // Signs only prune when both sides have them.
  const bool signs = !querySigns.empty() && !tableSigns.empty();
  LaplacianSigns paddedTableSigns;
  if (signs) {
    paddedTableSigns.assign(static_cast<size_t>(table.stride_), 0);
    std::copy(tableSigns.begin(), tableSigns.end(), paddedTableSigns.begin());
  }

  const int length = table.length();
  const std::vector<float> zeros(static_cast<size_t>(length), 0.0f);
  std::vector<Match> out(static_cast<size_t>(queries.rows));
  for (int i0 = 0; i0 < queries.rows; i0 += kRowBlock) {
    const float* rows[kRowBlock];
    float rowNorms[kRowBlock];
    std::int8_t rowSigns[kRowBlock] = {};
    TwoBest best[kRowBlock];
    for (int r = 0; r < kRowBlock; ++r) {
      const int i = i0 + r;
      rows[r] = i < queries.rows ? queries.ptr<float>(i) : zeros.data();
      rowNorms[r] = squaredNorm(rows[r], length);
      if (signs && i < queries.rows) rowSigns[r] = querySigns[static_cast<size_t>(i)];
    }
    searchRows(rows, rowNorms, rowSigns, length, table.columns_.data(), table.squaredNorms_.data(),
               signs ? paddedTableSigns.data() : nullptr, table.stride_, best);
    for (int r = 0; r < kRowBlock && i0 + r < queries.rows; ++r) {
      Match& m = out[static_cast<size_t>(i0 + r)];
      m.query = i0 + r;
      if (best[r].index < 0) continue;
      m.target = best[r].index;
      m.distance = distance(best[r].first);
      if (best[r].second < kInfinity) m.secondDistance = distance(best[r].second);
    }
  }
  return out;
}

}  // namespace nft::detection
