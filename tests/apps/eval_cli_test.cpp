// `nft_eval` run as a user runs it: exit status and messages for help, a missing sequence
// folder and a bad extractor name. NFT_EVAL_BINARY is the built program's path.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "support/program_run.h"

namespace {

using nft::testing::ProgramRun;

ProgramRun runProgram(const std::string& args) { return nft::testing::runProgram(NFT_EVAL_BINARY, args); }

TEST(NftEvalCli, HelpListsTheDescriptorsOptions) {
  const ProgramRun r = runProgram("descriptors --help");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* option : {"--sequence", "--extractor", "--storage", "--precision", "--upright", "--surf36",
                             "--keypoints", "--ratio", "--out"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option << " missing from\n" << r.output;
}

TEST(NftEvalCli, ASubcommandIsRequired) {
  const ProgramRun r = runProgram("");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("subcommand is required"), std::string::npos) << r.output;
}

TEST(NftEvalCli, AMissingSequenceFolderFailsNamingIt) {
  const ProgramRun r = runProgram("descriptors --sequence /no/such/oxford/graf --extractor surf-cpu");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("sequence folder '/no/such/oxford/graf' does not exist"), std::string::npos) << r.output;
}

TEST(NftEvalCli, AnUnknownExtractorFailsNamingIt) {
  const ProgramRun r = runProgram("descriptors --sequence /tmp --extractor surf-cpu,brisk");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("unknown name 'brisk'"), std::string::npos) << r.output;
}

}  // namespace
