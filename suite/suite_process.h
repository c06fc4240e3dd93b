#pragma once
// Child processes of the suite runner: a replay with its output in a log file, and a command
// (sbatch) whose output is read back. argv is passed as it is, never through a shell.

#include <string>
#include <vector>

namespace nft::eval::suite {

/// How a child process ended.
struct ProcessExit {
  int exitStatus = -1;  ///< its exit status, or -1 when it did not exit normally
  int signal = 0;       ///< the signal that ended it (0 when it exited)
  double seconds = 0;   ///< wall time from the start to the end of the process, seconds

  /// True when the process exited with status 0.
  bool succeeded() const { return exitStatus == 0; }
  /// "exit status 1", "killed by signal 9 (Killed)".
  std::string describe() const;
};

/// Runs `argv` (argv[0] a path, or a name looked up in PATH) with this process's environment plus
/// `extraEnvironment` ("NAME=value" entries, which override), its stdout and stderr appended to
/// `logFile` (created), and waits for it.
/// @throws std::runtime_error naming the program when it cannot be started (not found, not
///   executable) or the log file cannot be created.
ProcessExit runLogged(const std::vector<std::string>& argv, const std::string& logFile,
                      const std::vector<std::string>& extraEnvironment = {});

/// What a command printed, and how it ended.
struct CommandResult {
  ProcessExit exit;
  std::string output;  ///< stdout and stderr together, in the order written
};

/// Runs `argv` (as runLogged) with stdout and stderr captured, and waits for it.
/// @throws std::runtime_error naming the program when it cannot be started: for a program not
///   found in PATH the message says so ("'sbatch' was not found in PATH").
CommandResult runCaptured(const std::vector<std::string>& argv);

/// The absolute path of the running executable (/proc/self/exe). @throws std::runtime_error
/// when it cannot be read.
std::string selfExecutable();

}  // namespace nft::eval::suite
