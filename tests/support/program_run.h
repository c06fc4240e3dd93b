#pragma once
// Runs one of the built programs as a user would (through the shell) for the CLI tests, and the
// small file helpers those tests share.

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace nft::testing {

/// What a program run left: its exit status and everything it printed.
struct ProgramRun {
  int status = -1;     ///< exit status; -1 when it did not exit normally or could not start
  std::string output;  ///< stdout and stderr together, in the order written
};

/// Runs `environment 'binary' args 2>&1` through the shell (environment: e.g. "VAR=1", or "").
inline ProgramRun runProgram(const std::string& binary, const std::string& args, const std::string& environment = "") {
  ProgramRun r;
  const std::string command = environment + " '" + binary + "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

/// An empty folder under the system's temporary directory, named `name` plus this process id.
inline std::filesystem::path freshTempDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The path in single quotes, for a shell command line.
inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

/// The lines of a text file (empty when it cannot be read).
inline std::vector<std::string> readLines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace nft::testing
