// Reading POT sequences (see pot_sequence.h).
#include "apps/eval/pot_sequence.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "suite/ground_truth.h"

namespace nft::eval {
namespace {

namespace fs = std::filesystem;

/// `file` in the sequence folder, beside it, or in an `annotation` folder beside it; empty when
/// none exists. `tried` gets the places looked at.
fs::path findBeside(const fs::path& folder, const std::string& file, std::string& tried) {
  const fs::path parent = folder.parent_path();
  for (const fs::path& candidate : {folder / file, parent / file, parent / "annotation" / file}) {
    tried += (tried.empty() ? "" : ", ") + candidate.string();
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

/// The non-blank lines of a text file, with their line numbers.
std::vector<std::pair<int, std::string>> lines(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read '" + path.string() + "'");
  std::vector<std::pair<int, std::string>> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t,") != std::string::npos) out.emplace_back(number, line);
  }
  return out;
}

}  // namespace

std::string toString(PotCategory category) {
  switch (category) {
    case PotCategory::Scale: return "scale";
    case PotCategory::Rotation: return "rotation";
    case PotCategory::Perspective: return "perspective";
    case PotCategory::MotionBlur: return "motion_blur";
    case PotCategory::Occlusion: return "occlusion";
    case PotCategory::OutOfView: return "out_of_view";
    case PotCategory::Unconstrained: return "unconstrained";
  }
  return "unknown";
}

std::optional<PotCategory> potCategoryOf(const std::string& name) {
  static const std::regex pattern("V[0-9]+_([1-7])");
  std::smatch m;
  if (!std::regex_match(name, m, pattern)) return std::nullopt;
  return static_cast<PotCategory>(std::stoi(m[1].str()));
}

PotSequence loadPotSequence(const fs::path& given) {
  const fs::path folder = given.filename().empty() ? given.parent_path() : given;  // "V01_1/"
  PotSequence s;
  s.folder = folder;
  s.name = folder.filename().string();
  s.category = potCategoryOf(s.name);

  std::string tried;
  const fs::path gtPath = findBeside(folder, s.name + "_gt_points.txt", tried);
  if (gtPath.empty())
    throw std::runtime_error("POT sequence '" + folder.string() + "': no ground truth " + s.name +
                             "_gt_points.txt (looked for " + tried + ")");
  for (const auto& [number, line] : lines(gtPath)) {
    std::string text = line;
    std::replace(text.begin(), text.end(), ',', ' ');
    std::istringstream in(text);
    double v[8];
    int n = 0;
    while (n < 8 && in >> v[n]) ++n;
    std::string rest;
    // Corners are floats: a finite double beyond float's range would become infinite.
    const auto isCorner = [](double x) { return std::abs(x) <= static_cast<double>(std::numeric_limits<float>::max()); };
    if (n != 8 || (in >> rest) || !std::all_of(v, v + 8, isCorner))
      throw std::runtime_error("'" + gtPath.string() + "' line " + std::to_string(number) +
                               ": expected 8 finite numbers x1 y1 x2 y2 x3 y3 x4 y4, got '" + line + "'");
    if (std::all_of(v, v + 8, [](double x) { return x == 0.0; })) {
      if (s.truth.empty())
        throw std::runtime_error("'" + gtPath.string() + "' line " + std::to_string(number) +
                                 ": the first frame has no annotation (8 zeros): a tracker starts from its quad");
      s.truth.push_back(replay::notAnnotated());
      continue;
    }
    replay::QuadCorners q;
    for (size_t k = 0; k < 4; ++k) q[k] = cv::Point2f(static_cast<float>(v[2 * k]), static_cast<float>(v[2 * k + 1]));
    s.truth.push_back(q);
    ++s.annotated;
  }
  if (s.truth.empty()) throw std::runtime_error("'" + gtPath.string() + "' holds no frame");

  tried.clear();
  const fs::path flagPath = findBeside(folder, s.name + "_flag.txt", tried);
  if (flagPath.empty()) return s;
  s.flags = true;
  std::vector<int> flags;
  for (const auto& [number, line] : lines(flagPath)) {
    std::istringstream in(line);
    int flag = -1;
    std::string rest;
    if (!(in >> flag) || (in >> rest) || flag < 0 || flag > 3)
      throw std::runtime_error("'" + flagPath.string() + "' line " + std::to_string(number) +
                               ": expected one flag 0 (normal), 1 (occluded), 2 (out of view) or 3 (blurred), got '" +
                               line + "'");
    flags.push_back(flag);
  }
  // One flag per frame, or one per annotated frame (in order).
  const bool perFrame = flags.size() == s.truth.size();
  if (!perFrame && flags.size() != static_cast<size_t>(s.annotated))
    throw std::runtime_error("'" + flagPath.string() + "' has " + std::to_string(flags.size()) +
                             " flags: expected one per frame (" + std::to_string(s.truth.size()) +
                             ") or per annotated frame (" + std::to_string(s.annotated) + ")");
  size_t next = 0;  // the flag of the next annotated frame (per annotated frame)
  for (size_t i = 0; i < s.truth.size(); ++i) {
    if (!replay::annotated(s.truth[i])) continue;
    const int flag = perFrame ? flags[i] : flags[next++];
    if (flag == 0 || i == 0) continue;  // the start quad stays
    s.truth[i] = replay::notAnnotated();
    ++s.flagged;
  }
  return s;
}

std::vector<fs::path> findPotSequences(const fs::path& given) {
  const fs::path path = given.filename().empty() ? given.parent_path() : given;
  std::error_code ec;
  if (!fs::is_directory(path, ec))
    throw std::runtime_error("POT data '" + path.string() + "' is not a folder (expected a sequence folder V<obj>_<cat> "
                             "or a folder of them)");
  const auto isSequence = [](const fs::path& folder) {
    std::string tried;
    return !findBeside(folder, folder.filename().string() + "_gt_points.txt", tried).empty();
  };
  if (isSequence(path)) return {path};
  std::vector<fs::path> found;
  for (const fs::directory_entry& e : fs::directory_iterator(path))
    if (e.is_directory() && isSequence(e.path())) found.push_back(e.path());
  std::sort(found.begin(), found.end());
  if (found.empty())
    throw std::runtime_error("POT data '" + path.string() + "' holds no sequence (a folder V<obj>_<cat> with "
                             "V<obj>_<cat>_gt_points.txt in it, beside it or in annotation/)");
  return found;
}

}  // namespace nft::eval
