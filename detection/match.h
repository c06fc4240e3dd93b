#pragma once
// The result of descriptor matching, shared by GpuMatcher and CpuMatcher, and the filters
// applied to the two nearest neighbours of each query: Lowe's ratio test (Lowe 2004, IJCV
// 60(2), section 7.1; seeds/000 section 6.1 names it for the GPU matcher) and the cross-check
// (mutual nearest neighbours).

#include <cstdint>
#include <limits>
#include <vector>

namespace nft::detection {

/// "No second neighbour": Match::secondDistance when the target set had only one candidate
/// for the query (one descriptor, or every other one pruned by its Laplacian sign).
inline constexpr float kNoDistance = std::numeric_limits<float>::infinity();

/// One query's nearest target descriptor by Euclidean (L2) distance.
struct Match {
  int query = -1;   ///< row of the query descriptor (SurfEs keypoint index)
  int target = -1;  ///< row of the nearest target descriptor
  float distance = kNoDistance;        ///< L2 distance to it, d1 (not squared)
  float secondDistance = kNoDistance;  ///< L2 distance to the second nearest, d2; kNoDistance if none
};

/// Options of the matchers' match(): the filters applied after the nearest-neighbour search.
struct MatchOptions {
  /// Lowe's ratio r: a query is kept when d1 < r · d2 (distances, not squared). In (0, 1];
  /// 1 keeps every query that has a nearest neighbour strictly closer than the second.
  float ratio = 0.8f;
  /// Keep only mutual nearest neighbours: the target's own nearest query must be the query.
  /// Costs a second (transposed) search: targets against queries.
  bool crossCheck = false;
};

/// Laplacian signs, one per descriptor: −1, +1, or 0 (unknown). Two descriptors whose signs
/// are both non-zero and differ are never paired (SURF's sign-of-trace test, Bay et al. 2008
/// section 4.1; seeds/000 section 6.1). Empty = every sign unknown.
using LaplacianSigns = std::vector<std::int8_t>;

/// Whether `m` passes the ratio test: m.distance < ratio · m.secondDistance (true when there is
/// no second neighbour, false when there is no first).
bool passesRatio(const Match& m, float ratio);

/// The matches of `nearest` that pass the ratio test, in the same order.
/// @throws std::invalid_argument if ratio is not in (0, 1].
std::vector<Match> ratioTest(const std::vector<Match>& nearest, float ratio);

/// The matches whose target's nearest query is the match's query:
/// reverseNearest[m.target] == m.query (reverseNearest[t]: nearest query of target t, −1 if
/// none). Same order. @throws std::invalid_argument if a target is outside reverseNearest.
std::vector<Match> crossCheck(const std::vector<Match>& matches, const std::vector<int>& reverseNearest);

/// Checks a sign vector against a descriptor count: empty or `count` entries of −1, 0, +1.
/// @throws std::invalid_argument naming `what`, the size or the first bad value.
void validateSigns(const LaplacianSigns& signs, int count, const char* what);

/// Checks MatchOptions. @throws std::invalid_argument naming a ratio outside (0, 1].
void validateMatchOptions(const MatchOptions& options);

}  // namespace nft::detection
