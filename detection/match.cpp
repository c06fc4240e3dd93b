#include "detection/match.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace nft::detection {

bool passesRatio(const Match& m, float ratio) {
  if (m.target < 0 || !std::isfinite(m.distance)) return false;
  if (!std::isfinite(m.secondDistance)) return true;
  return m.distance < ratio * m.secondDistance;
}

void validateMatchOptions(const MatchOptions& options) {
  if (!(options.ratio > 0.0f && options.ratio <= 1.0f))
    throw std::invalid_argument("MatchOptions: ratio " + std::to_string(options.ratio) + " is not in (0, 1]");
}

std::vector<Match> ratioTest(const std::vector<Match>& nearest, float ratio) {
  MatchOptions options;
  options.ratio = ratio;
  validateMatchOptions(options);
  std::vector<Match> kept;
  kept.reserve(nearest.size());
  for (const Match& m : nearest)
    if (passesRatio(m, ratio)) kept.push_back(m);
  return kept;
}

std::vector<Match> crossCheck(const std::vector<Match>& matches, const std::vector<int>& reverseNearest) {
  std::vector<Match> kept;
  kept.reserve(matches.size());
  for (const Match& m : matches) {
    if (m.target < 0 || m.target >= static_cast<int>(reverseNearest.size()))
      throw std::invalid_argument("crossCheck: target " + std::to_string(m.target) + " of query " +
                                  std::to_string(m.query) + " is outside the reverse list of " +
                                  std::to_string(reverseNearest.size()));
    if (reverseNearest[static_cast<size_t>(m.target)] == m.query) kept.push_back(m);
  }
  return kept;
}

void validateSigns(const LaplacianSigns& signs, int count, const char* what) {
  if (signs.empty()) return;
  if (static_cast<int>(signs.size()) != count)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(signs.size()) + " Laplacian signs for " +
                                std::to_string(count) + " descriptors (expected none or one per descriptor)");
  for (size_t i = 0; i < signs.size(); ++i)
    if (signs[i] < -1 || signs[i] > 1)
      throw std::invalid_argument(std::string(what) + ": Laplacian sign " + std::to_string(signs[i]) + " at " +
                                  std::to_string(i) + " is not -1, 0 or +1");
}

}  // namespace nft::detection
