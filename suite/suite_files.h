#pragma once
// Small file helpers of the suite runner (suite/suite_*): atomic writes, a stable content
// hash for the names of configs and pairs, and names safe as file names.

#include <cstdint>
#include <filesystem>
#include <string>

namespace nft::eval::suite {

/// Writes `text` to `path` through a temporary file beside it (named with this host and process
/// id, so concurrent writers never share one) renamed into place: readers see the old file or the
/// whole new one, never a part. @throws std::runtime_error naming the file when it cannot be
/// written (the temporary is removed).
void writeTextAtomically(const std::filesystem::path& path, const std::string& text);

/// The whole content of a text file. @throws std::runtime_error naming the file when it cannot be
/// read.
std::string readText(const std::filesystem::path& path);

/// 64-bit FNV-1a of `text` as 16 lowercase hex digits: stable across runs, hosts and compilers
/// (unlike std::hash), so the same config always gets the same name.
std::string stableHash(const std::string& text);

/// `text` with every character outside [A-Za-z0-9._-] replaced by '_' (empty text: "_"), for
/// file names made from clip names.
std::string safeFileName(const std::string& text);

/// "<host>-<pid>": what temporary names carry so that processes on several hosts sharing one
/// folder never collide.
std::string hostAndPid();

/// Seconds since the Unix epoch (wall clock, sub-microsecond resolution), for timings that span
/// processes (a Slurm task's start recorded by its batch script).
double epochSeconds();

}  // namespace nft::eval::suite
