#include "suite/suite_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>

extern char** environ;

namespace nft::eval::suite {
namespace {

using Clock = std::chrono::steady_clock;

/// This process's environment with `extra` ("NAME=value") added or replacing.
std::vector<std::string> environmentWith(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> byName;
  std::vector<std::string> order;
  auto put = [&](const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('='));
    if (byName.find(name) == byName.end()) order.push_back(name);
    byName[name] = entry;
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) put(*e);
  for (const std::string& entry : extra) put(entry);
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const std::string& name : order) out.push_back(byName[name]);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// posix_spawnp with `actions`; the child's pid. @throws std::runtime_error naming the program.
pid_t spawn(const std::vector<std::string>& argv, const posix_spawn_file_actions_t* actions,
            const std::vector<std::string>& extraEnvironment) {
  if (argv.empty()) throw std::invalid_argument("no program to run");
  std::vector<std::string> args = argv;
  std::vector<std::string> env = environmentWith(extraEnvironment);
  std::vector<char*> argp = pointers(args), envp = pointers(env);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), actions, nullptr, argp.data(), envp.data());
  if (rc == ENOENT)
    throw std::runtime_error("'" + argv[0] + "' was not found" +
                             (argv[0].find('/') == std::string::npos ? std::string(" in PATH") : std::string()));
  if (rc != 0) throw std::runtime_error("cannot start '" + argv[0] + "': " + std::strerror(rc));
  return pid;
}

ProcessExit waitFor(pid_t pid, Clock::time_point start) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
  }
  ProcessExit exit;
  exit.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) exit.exitStatus = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  return exit;
}

/// RAII for posix_spawn_file_actions_t.
struct FileActions {
  posix_spawn_file_actions_t actions{};
  FileActions() { posix_spawn_file_actions_init(&actions); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
};

}  // namespace

std::string ProcessExit::describe() const {
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(exitStatus);
}

ProcessExit runLogged(const std::vector<std::string>& argv, const std::string& logFile,
                      const std::vector<std::string>& extraEnvironment) {
  const int fd = ::open(logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create log file '" + logFile + "': " + std::strerror(errno));
  FileActions fa;
  posix_spawn_file_actions_addopen(&fa.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa.actions, fd, 1);
  posix_spawn_file_actions_adddup2(&fa.actions, fd, 2);
  const Clock::time_point start = Clock::now();
  pid_t pid = 0;
  try {
    pid = spawn(argv, &fa.actions, extraEnvironment);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return waitFor(pid, start);
}

CommandResult runCaptured(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  FileActions fa;
  posix_spawn_file_actions_addopen(&fa.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa.actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa.actions, fds[1], 2);
  const Clock::time_point start = Clock::now();
  pid_t pid = 0;
  try {
    pid = spawn(argv, &fa.actions, {});
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  CommandResult result;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  result.exit = waitFor(pid, start);
  return result;
}

std::string selfExecutable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's own path (/proc/self/exe): " + ec.message());
  return self.string();
}

}  // namespace nft::eval::suite
