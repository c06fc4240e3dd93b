// scripts/gpu-report.sh (issue 36) as a user runs it, in its quick mode on this machine's EGL
// device (llvmpipe in CI): the JSON it writes carries the renderer, driver and every selected
// case with its same-run baselines and ratios, and the Markdown table shows the same renderer
// and rows; bad arguments fail naming them. NFT_SOURCE_DIR is the repository, NFT_BENCH_BINARY
// the built nft_bench.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/bench_program_run.h"
#include "support/test_data.h"

namespace nft::bench {
namespace {

const std::filesystem::path kScript = std::filesystem::path(NFT_SOURCE_DIR) / "scripts" / "gpu-report.sh";
// The build folder nft_bench lives in: <build>/apps/nft_bench.
const std::filesystem::path kBuild = std::filesystem::path(NFT_BENCH_BINARY).parent_path().parent_path();

struct Report {
  testing::ProgramResult run;
  nlohmann::json json;
  std::string markdown;
};

Report runReport(const std::string& name, const std::string& filter) {
  const std::filesystem::path out = std::filesystem::temp_directory_path() / ("nft_gpu_report_" + name);
  std::filesystem::remove_all(out);
  Report r;
  r.run = testing::runProgramCapturing(kScript.string(), "--quick --build-dir '" + kBuild.string() + "' --out '" +
                                                             out.string() + "' --filter '" + filter + "' --data '" +
                                                             testing::dataDir().string() + "'");
  std::ifstream json(out / "gpu-report.json");
  r.json = nlohmann::json::parse(json, nullptr, false);
  std::ifstream md(out / "gpu-report.md");
  std::ostringstream text;
  text << md.rdbuf();
  r.markdown = text.str();
  std::filesystem::remove_all(out);
  return r;
}

TEST(GpuReport, QuickRunWritesJsonAndMarkdownWithTheRenderer) {
  const Report r = runReport("render", "^render/640x480/draw$");  // needs no data
  ASSERT_EQ(r.run.exitCode, 0) << r.run.text;
  ASSERT_TRUE(r.json.is_object()) << r.run.text;
  const std::string renderer = r.json["system"]["gl_renderer"].get<std::string>();
  const std::string version = r.json["system"]["gl_version"].get<std::string>();
  EXPECT_FALSE(renderer.empty());
  EXPECT_NE(version.find("OpenGL ES"), std::string::npos) << version;
  EXPECT_NE(r.json["gpu_report"]["command"].get<std::string>().find("--quick"), std::string::npos);
  ASSERT_EQ(r.json["results"].size(), 1u);
  const nlohmann::json& c = r.json["results"][0];
  EXPECT_EQ(c["name"], "render/640x480/draw");
  EXPECT_GT(c["median"].get<double>(), 0.0);
  ASSERT_FALSE(c["baselines"].empty());
  EXPECT_GT(c["baselines"][0]["ratio"].get<double>(), 0.0);
  // The table: the renderer and driver in the head, one row per baseline.
  EXPECT_NE(r.markdown.find("- Renderer: " + renderer + "\n"), std::string::npos) << r.markdown;
  EXPECT_NE(r.markdown.find("- Driver (GL_VERSION): " + version + "\n"), std::string::npos) << r.markdown;
  EXPECT_NE(r.markdown.find("| case | ours | baseline (same run) | baseline | ratio |"), std::string::npos);
  EXPECT_NE(r.markdown.find("| `render/640x480/draw` | "), std::string::npos) << r.markdown;
  EXPECT_NE(r.markdown.find(c["baselines"][0]["name"].get<std::string>()), std::string::npos) << r.markdown;
}

TEST(GpuReport, SurfEsBoxReadsComeWithTheirThreeBaselines) {
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  const Report r = runReport("boxes", "^surf_es_boxes/float/upright/");
  ASSERT_EQ(r.run.exitCode, 0) << r.run.text;
  ASSERT_TRUE(r.json.is_object()) << r.run.text;
  ASSERT_EQ(r.json["results"].size(), 1u);
  const nlohmann::json& c = r.json["results"][0];
  if (!c["skipped"].is_null()) GTEST_FAIL() << "skipped: " << c["skipped"];  // llvmpipe has float targets
  ASSERT_EQ(c["baselines"].size(), 3u);
  for (const nlohmann::json& b : c["baselines"]) {
    EXPECT_GT(b["median"].get<double>(), 0.0) << b["name"];
    EXPECT_NEAR(b["ratio"].get<double>(), b["median"].get<double>() / c["median"].get<double>(), 1e-6);
    EXPECT_NE(r.markdown.find(b["name"].get<std::string>()), std::string::npos) << r.markdown;
  }
  EXPECT_EQ(c["baselines"][1]["name"], "SurfEs box_taps 2, four quarter-box lookups");
}

TEST(GpuReport, BadArgumentsAreNamed) {
  testing::ProgramResult r = testing::runProgramCapturing(kScript.string(), "--frobnicate");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.text.find("unknown argument '--frobnicate'"), std::string::npos) << r.text;
  r = testing::runProgramCapturing(kScript.string(), "--build-dir /no/such/build");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.text.find("/no/such/build/apps/nft_bench is missing"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace nft::bench
