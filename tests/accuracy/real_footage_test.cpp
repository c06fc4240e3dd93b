// The real-footage regression (issue 45, item 7; docs/results.md, "Real footage: the regression"):
// `nft_eval suite` over the shared real clips — tmt_bookI and korean_book against their ground
// truth, cmu_book (no ground truth: found frames only), opencv-doc's box.mp4 with its top face as
// the target against the reference track `nft_eval reference` made (box_reference.tsv) — and the
// synthetic presets, with per-frame SIFT beside ours on a sample of the real clips' frames
// (the suite's `baselines`). Ours must stay at or above the floors of floors.yaml, set a little
// below what the tracker measured when they were last changed; SIFT's numbers are printed beside
// them (and written to OUT/accuracy.md), not checked.
//
// Environment (for a run by hand; CI sets none of them):
//   NFT_ACCURACY_SUITE  another suite file (relative: to tests/accuracy/), e.g. real_footage_full.yaml:
//                       every preset at 640x480 and 1280x720 with SIFT on one frame in 5 (~40 min)
//   NFT_ACCURACY_OUT    keep the work folder there (the suite's output in OUT/out, the table in
//                       OUT/out/accuracy.md); default: a temporary folder, removed
//   NFT_ACCURACY_JOBS   replays at a time (default 2)
// Without ../shared/data (NFT_DATA_DIR) it skips naming the missing folder (fails in CI).

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <yaml-cpp/yaml.h>

#include "support/program_run.h"
#include "support/test_data.h"
#include "tracker/box_video.h"

namespace {

namespace fs = std::filesystem;
using nft::testing::quoted;

const fs::path kHere = fs::path(NFT_SOURCE_DIR) / "tests" / "accuracy";

/// Removes a folder when the test ends, also when an ASSERT returns early ("": nothing).
struct RemovedAtEnd {
  fs::path path;
  ~RemovedAtEnd() {
    std::error_code ignored;
    if (!path.empty()) fs::remove_all(path, ignored);
  }
};

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string readText(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// floors.yaml: clip → {key of results.json's rows (success_5px, ...) → the floor, percent}.
std::map<std::string, std::map<std::string, double>> loadFloors(const fs::path& file) {
  std::map<std::string, std::map<std::string, double>> floors;
  const YAML::Node root = YAML::LoadFile(file.string());
  for (const auto& clip : root)
    for (const auto& key : clip.second)
      floors[clip.first.as<std::string>()][key.first.as<std::string>()] = key.second.as<double>();
  return floors;
}

/// A row's value in percent ("—" when it has none).
std::string percent(const nlohmann::json& row, const char* key) {
  if (row.is_null() || !row.contains(key) || !row[key].is_number()) return "—";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100.0 * row[key].get<double>());
  return text;
}

/// Makes box/: box.mp4 (opencv-doc's, decompressed), its top face's template (box_video.h) and the
/// reference track of box_reference.tsv, made once by `nft_eval reference` from them.
void prepareBox(const fs::path& box) {
  const fs::path video = nft::testing::unpackBoxVideo(box);
  ASSERT_TRUE(cv::imwrite((box / "top_face.png").string(), nft::testing::boxTopFaceTemplate(video)));
  fs::copy_file(kHere / "box_reference.tsv", box / "reference.tsv", fs::copy_options::overwrite_existing);
}

TEST(RealFootage, OursStaysAboveItsFloorsBesidePerFrameSift) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  NFT_REQUIRE_DATA("video/cmu_book/book.mp4");
  NFT_REQUIRE_DATA("video/korean_book/book.mp4");
  const auto start = std::chrono::steady_clock::now();
  fs::path suite = env("NFT_ACCURACY_SUITE").empty() ? fs::path("real_footage.yaml") : fs::path(env("NFT_ACCURACY_SUITE"));
  if (suite.is_relative()) suite = kHere / suite;
  ASSERT_TRUE(fs::is_regular_file(suite)) << suite;
  const bool keep = !env("NFT_ACCURACY_OUT").empty();
  const fs::path work = keep ? fs::absolute(env("NFT_ACCURACY_OUT")) : nft::testing::freshTempDir("nft_accuracy");
  const RemovedAtEnd cleanup{keep ? fs::path() : work};
  const std::string jobs = env("NFT_ACCURACY_JOBS").empty() ? "2" : env("NFT_ACCURACY_JOBS");

  // The work folder: the suite file, data/ (the shared data), box/.
  fs::create_directories(work);
  fs::copy_file(suite, work / suite.filename(), fs::copy_options::overwrite_existing);
  std::error_code ec;
  fs::remove(work / "data", ec);
  fs::create_directory_symlink(fs::absolute(nft::testing::dataDir()), work / "data");
  prepareBox(work / "box");
  if (HasFatalFailure()) return;

  // The committed box reference is what `nft_eval reference` makes (its first 30 frames, checked).
  nft::testing::ProgramRun r = nft::testing::runProgram(
      NFT_EVAL_BINARY, "reference --video " + quoted(work / "box" / "box.mp4") + " --target " +
                           quoted(work / "box" / "top_face.png") + " --out " + quoted(work / "box" / "head.tsv") +
                           " --frames 30 --progress 0");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<std::string> head = nft::testing::readLines(work / "box" / "head.tsv");
  const std::vector<std::string> committed = nft::testing::readLines(work / "box" / "reference.tsv");
  ASSERT_EQ(head.size(), 31u);
  ASSERT_GE(committed.size(), head.size());
  for (size_t i = 1; i < head.size(); ++i) {
    std::istringstream a(head[i]), b(committed[i]);
    std::string nameA, nameB;
    a >> nameA;
    b >> nameB;
    EXPECT_EQ(nameA, nameB);
    for (int k = 0; k < 8; ++k) {
      std::string x, y;
      a >> x;
      b >> y;
      const double u = std::strtod(x.c_str(), nullptr), v = std::strtod(y.c_str(), nullptr);
      if (std::isnan(u) || std::isnan(v))
        EXPECT_EQ(std::isnan(u), std::isnan(v)) << "box reference line " << i + 1 << ": " << head[i] << " vs " << committed[i];
      else
        EXPECT_NEAR(u, v, 0.05) << "box reference line " << i + 1 << ": " << head[i] << " vs " << committed[i];
    }
  }

  // The suite (--force: a kept folder is measured again, not reused).
  const fs::path out = work / "out";
  r = nft::testing::runProgram(NFT_EVAL_BINARY, "suite run " + quoted(work / suite.filename()) + " --out " +
                                                    quoted(out) + " --jobs " + jobs + " --force");
  ASSERT_EQ(r.status, 0) << r.output;
  r = nft::testing::runProgram(NFT_EVAL_BINARY, "suite collect " + quoted(out));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json results = nlohmann::json::parse(readText(out / "results.json"));
  ASSERT_TRUE(results["complete"].get<bool>()) << r.output;

  // Ours and SIFT per clip, and ours against the floors.
  const auto floors = loadFloors(kHere / "floors.yaml");
  std::vector<std::string> clips;
  std::map<std::string, nlohmann::json> ours, sift;
  for (const nlohmann::json& row : results["rows"]) {
    const std::string clip = row["clip"].get<std::string>();
    if (row["baseline"].is_null()) {
      clips.push_back(clip);
      ours[clip] = row;
    } else if (row["baseline"] == "sift") {
      sift[clip] = row;
    }
  }
  std::ostringstream table;
  table << "| clip | ours ≤ 5 px | ≤ 10 px | visible ≤ 5 px | found | SIFT ≤ 5 px | ≤ 10 px | visible ≤ 5 px | found "
           "| SIFT frames | floors (ours) |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const std::string& clip : clips) {
    const nlohmann::json& o = ours[clip];
    const nlohmann::json s = sift.count(clip) > 0 ? sift[clip] : nlohmann::json();
    std::string floorText;
    const auto f = floors.find(clip);
    if (f == floors.end()) {
      ADD_FAILURE() << "no floor for clip '" << clip << "': add one to " << (kHere / "floors.yaml").string();
    } else {
      for (const auto& [key, minimum] : f->second) {
        ASSERT_TRUE(o.contains(key) && o[key].is_number()) << clip << ": no '" << key << "' in its row " << o.dump();
        const double value = 100.0 * o[key].get<double>();
        EXPECT_GE(value, minimum) << clip << ": " << key << " " << value << " % is below its floor " << minimum
                                  << " % (tests/accuracy/floors.yaml)";
        char text[64];
        std::snprintf(text, sizeof text, "%s%s %.1f", floorText.empty() ? "" : ", ", key.c_str(), minimum);
        floorText += text;
      }
    }
    table << "| " << clip << " | " << percent(o, "success_5px") << " | " << percent(o, "success_10px") << " | "
          << percent(o, "visible_success_5px") << " | " << percent(o, "found_fraction") << " | "
          << percent(s, "success_5px") << " | " << percent(s, "success_10px") << " | "
          << percent(s, "visible_success_5px") << " | " << percent(s, "found_fraction") << " | "
          << (s.is_null() ? std::string("—") : std::to_string(s["frames"].get<int>())) << " | " << floorText << " |\n";
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char footer[128];
  std::snprintf(footer, sizeof footer, "\n%zu clips, %zu pairs, %.0f s with --jobs %s\n", clips.size(),
                results["rows"].size(), seconds, jobs.c_str());
  table << footer;
  std::ofstream(out / "accuracy.md") << table.str();
  std::cout << "\n" << table.str();
}

}  // namespace
