#pragma once
// Runs one of the built programs as a user would (through the shell), for the CLI tests of
// nft_eval tracking and nft_bench: its exit status and everything it printed.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nft::testing {

struct ProgramResult {
  int exitCode = -1;   ///< -1 when it did not exit normally
  std::string text;    ///< stdout followed by stderr
};

/// Runs `program args` with stdout and stderr captured in temporary files.
inline ProgramResult runProgramCapturing(const std::string& program, const std::string& args) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path();
  const std::string stem = "nft_cli_" + std::to_string(getpid());
  const std::filesystem::path out = folder / (stem + ".out"), err = folder / (stem + ".err");
  const std::string command = "'" + program + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int raw = std::system(command.c_str());
  ProgramResult result;
  result.exitCode = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  for (const std::filesystem::path& p : {out, err}) {
    std::ifstream in(p);
    std::ostringstream text;
    text << in.rdbuf();
    result.text += text.str();
    std::filesystem::remove(p);
  }
  return result;
}

}  // namespace nft::testing
