// The device profiles (config/profiles/phone.yaml, board.yaml) run as a user runs them: nft_replay
// (NFT_REPLAY_BINARY) on the first 60 frames of cmu_book (book.mp4, target cv_cover.jpg) with
// --config <profile> --no-render must finish and find the cover. Measured on llvmpipe over all 641
// frames: phone 100 %, board 100 % (docs/tuning.md, "Phones and dev boards"); 60 frames hold the first
// detection and the tracking after it.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/program_run.h"
#include "support/test_data.h"

namespace {

using nft::testing::ProgramRun;
using nft::testing::quoted;

namespace fs = std::filesystem;

ProgramRun run(const std::string& args) { return nft::testing::runProgram(NFT_REPLAY_BINARY, args); }

class DeviceProfile : public ::testing::TestWithParam<const char*> {};

TEST_P(DeviceProfile, FindsTheCoverOnCmuBook) {
  NFT_REQUIRE_DATA("video/cmu_book/book.mp4");
  const fs::path data = nft::testing::dataDir() / "video/cmu_book";
  const fs::path profile = fs::path(NFT_SOURCE_DIR) / "config/profiles" / (std::string(GetParam()) + ".yaml");
  const fs::path dir = fs::temp_directory_path() / ("nft_profile_" + std::string(GetParam()) + "_" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const ProgramRun r = run("--target " + quoted(data / "cv_cover.jpg") + " --video " + quoted(data / "book.mp4") +
                           " --config " + quoted(profile) + " --no-render --frames 60 --progress 0 --report " +
                           quoted(dir / "r.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(dir / "r.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["frames"], 60);
  EXPECT_GE(report["found_fraction"].get<double>(), 0.9) << report.dump(2);
  std::cout << GetParam() << ": found in " << 100 * report["found_fraction"].get<double>() << " % of 60 frames\n";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Profiles, DeviceProfile, ::testing::Values("phone", "board"),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

}  // namespace
