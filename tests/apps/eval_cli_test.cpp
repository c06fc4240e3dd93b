// `nft_eval` run as a user runs it: exit status and messages for help, a missing sequence
// folder and a bad extractor name. NFT_EVAL_BINARY is the built program's path.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct ProgramRun {
  int status = -1;  ///< exit status
  std::string output;  ///< stdout and stderr together
};

ProgramRun runProgram(const std::string& args) {
  ProgramRun r;
  const std::string command = std::string("'") + NFT_EVAL_BINARY + "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

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
