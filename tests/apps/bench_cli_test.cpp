// nft_bench (apps/nft_bench.cpp, apps/bench/): the harness's medians and ratios, and the program
// as a user runs it — a quick run of the renderer cases (no data needed) whose JSON has the
// expected keys and positive times, a data case skipped or measured, and bad options.
// NFT_BENCH_BINARY is the built program.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/bench/bench_run.h"
#include "apps/bench_program_run.h"
#include "support/test_data.h"

namespace nft::bench {
namespace {

TEST(BenchHarness, MediansAndRatios) {
  const Timing t = summarize({5.0, 1.0, 3.0, 9.0});
  EXPECT_DOUBLE_EQ(t.median, 4.0);
  EXPECT_DOUBLE_EQ(t.min, 1.0);
  EXPECT_DOUBLE_EQ(t.max, 9.0);
  EXPECT_EQ(t.reps, 4);
  EXPECT_DOUBLE_EQ(summarize({2.0, 7.0, 1.0}).median, 2.0);
  Result r;
  r.ours.median = 2.0;
  const Baseline slower{"b", {8.0, 8.0, 8.0, 1}};
  EXPECT_DOUBLE_EQ(r.ratio(slower), 4.0);  // ms: ours is 4x faster
  r.unit = "fps";
  EXPECT_DOUBLE_EQ(r.ratio(slower), 0.25);  // fps: ours is 4x slower
  r.ours.median = 0.0;
  EXPECT_DOUBLE_EQ(r.ratio(slower), 0.0);
  int calls = 0;
  EXPECT_EQ(timeCalls(3, 2, [&] { ++calls; }).reps, 3);
  EXPECT_EQ(calls, 5);
}

TEST(BenchHarness, FilterSelectsCaseNames) {
  const BenchRun all(true, "");
  EXPECT_TRUE(all.wants("surf_es/float/surf64/n1024"));
  const BenchRun some(true, "^render/|matcher/1000x8192");
  EXPECT_TRUE(some.wants("render/640x480/draw"));
  EXPECT_TRUE(some.wants("matcher/1000x8192"));
  EXPECT_FALSE(some.wants("matcher/1000x1000"));
  EXPECT_TRUE(some.wantsAny({"fast/x", "render/640x480/readback"}));
  EXPECT_FALSE(some.wantsAny({"fast/x"}));
  EXPECT_LT(all.reps(), BenchRun(false, "").reps());
}

testing::ProgramResult runBench(const std::string& args) {
  return testing::runProgramCapturing(NFT_BENCH_BINARY, args);
}

nlohmann::json readJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

TEST(BenchCli, QuickRenderRunWritesTheTableAndJson) {
  const std::filesystem::path json = std::filesystem::temp_directory_path() / "nft_bench_cli_render.json";
  const auto r = runBench("--quick --filter '^render/' --json '" + json.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.text;
  EXPECT_NE(r.text.find("GL_RENDERER"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("render/640x480/readback"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("2 cases measured, 0 skipped"), std::string::npos) << r.text;
  const nlohmann::json j = readJson(json);
  ASSERT_TRUE(j.is_object()) << "not JSON: " << json;
  for (const char* key : {"gl_renderer", "gl_version", "egl_platform", "cpu_model", "cpu_cores"})
    EXPECT_TRUE(j["system"].contains(key)) << key;
  EXPECT_FALSE(j["system"]["gl_renderer"].get<std::string>().empty());
  EXPECT_EQ(j["settings"]["quick"], true);
  ASSERT_EQ(j["results"].size(), 2u);
  for (const nlohmann::json& result : j["results"]) {
    for (const char* key : {"name", "group", "what", "unit", "median", "min", "max", "reps", "baselines", "extra"})
      EXPECT_TRUE(result.contains(key)) << key << " in " << result.dump();
    EXPECT_TRUE(result["skipped"].is_null());
    EXPECT_EQ(result["group"], "render");
    EXPECT_GT(result["median"].get<double>(), 0.0);
    EXPECT_GE(result["reps"].get<int>(), 3);
    ASSERT_EQ(result["baselines"].size(), 1u);
    EXPECT_GT(result["baselines"][0]["median"].get<double>(), 0.0);
    EXPECT_GT(result["baselines"][0]["ratio"].get<double>(), 0.0);
  }
  std::filesystem::remove(json);
}

TEST(BenchCli, ADataCaseIsSkippedNamingTheMissingFile) {
  const auto r = runBench("--quick --filter '^fast/' --data /no/such/data");
  ASSERT_EQ(r.exitCode, 0) << r.text;
  EXPECT_NE(r.text.find("real data missing: /no/such/data/video/cmu_book/book.mp4"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("0 cases measured, 1 skipped"), std::string::npos) << r.text;
}

TEST(BenchCli, FastOnRealDataIsMeasured) {
  NFT_REQUIRE_DATA("video/cmu_book/book.mp4");
  const std::filesystem::path json = std::filesystem::temp_directory_path() / "nft_bench_cli_fast.json";
  const auto r = runBench("--quick --filter '^fast/' --data '" + testing::dataDir().string() + "' --json '" +
                          json.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.text;
  const nlohmann::json j = readJson(json);
  ASSERT_EQ(j["results"].size(), 1u) << r.text;
  const nlohmann::json& fast = j["results"][0];
  EXPECT_EQ(fast["name"], "fast/cmu_book_640x480");
  EXPECT_GT(fast["median"].get<double>(), 0.0);
  EXPECT_GT(fast["extra"]["keypoints"].get<int>(), 100);
  EXPECT_EQ(fast["baselines"].size(), 2u);
  std::filesystem::remove(json);
}

TEST(BenchCli, BadFilterOrEmptySelectionFails) {
  auto r = runBench("--quick --filter '(['");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("is not a valid regex"), std::string::npos) << r.text;
  r = runBench("--quick --filter no_such_case");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("selects no case"), std::string::npos) << r.text;
  r = runBench("--quick --filter '^render/' --json /no/such/folder/out.json");
  EXPECT_EQ(r.exitCode, 1) << r.text;
  EXPECT_NE(r.text.find("folder '/no/such/folder'"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace nft::bench
