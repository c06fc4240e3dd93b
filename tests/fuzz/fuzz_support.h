#pragma once
// Shared by the libFuzzer targets of tests/fuzz/: a scratch file the loaders that take a path
// read the fuzzer's bytes from, one per process (libFuzzer's -jobs/-fork run several).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace nft::fuzz {

/// A file in the temporary folder (TMPDIR, e.g. /dev/shm for speed) named after the target and
/// the process id; overwritten by each input, removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name, const std::string& extension = "")
      : path_((std::filesystem::temp_directory_path() /
               ("nft_fuzz_" + name + "_" + std::to_string(::getpid()) + extension))
                  .string()) {}
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  /// Replaces the file's content with `size` bytes; aborts if it cannot (a broken set-up, not a
  /// finding of the fuzzer).
  const std::string& write(const std::uint8_t* data, std::size_t size) const {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
      std::perror(path_.c_str());
      std::abort();
    }
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Stops the run with a message: an oracle of a target found a result that breaks the loader's
/// contract (libFuzzer saves the input as a crash).
[[noreturn]] inline void contractBroken(const char* target, const std::string& what) {
  std::fprintf(stderr, "%s: contract broken: %s\n", target, what.c_str());
  std::abort();
}

}  // namespace nft::fuzz
