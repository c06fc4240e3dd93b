#include "detection/binary_io.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace nft::detection::binary {

namespace {
constexpr size_t kHeaderSize = 4 + 4 + 8;  // magic, version, payload size
constexpr size_t kChecksumSize = 4;
}  // namespace

void Reader::fail(const std::string& why) const { throw std::runtime_error(what_ + ": " + why + " (corrupt file?)"); }

std::uint32_t crc32Of(const unsigned char* data, size_t size) {
  uLong c = crc32(0L, Z_NULL, 0);
  // zlib's crc32 takes uInt lengths: feed large payloads in chunks.
  while (size > 0) {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    c = crc32(c, data, chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<std::uint32_t>(c);
}

std::vector<unsigned char> container(const char magic[4], std::uint32_t version, const std::vector<unsigned char>& payload) {
  Writer w;
  w.putBytes(magic, 4);
  w.put<std::uint32_t>(version);
  w.put<std::uint64_t>(payload.size());
  w.putBytes(payload.data(), payload.size());
  w.put<std::uint32_t>(crc32Of(payload.data(), payload.size()));
  return std::move(w.bytes());
}

std::pair<const unsigned char*, size_t> payloadOf(const std::vector<unsigned char>& file, const char magic[4],
                                                  std::uint32_t version, const std::string& what,
                                                  const std::string& kind, const std::string& hint,
                                                  std::uint32_t oldest) {
  return payloadOf(file.data(), file.size(), magic, version, what, kind, hint, oldest, {});
}

std::pair<const unsigned char*, size_t> payloadOf(const unsigned char* file, size_t fileSize, const char magic[4],
                                                  std::uint32_t version, const std::string& what,
                                                  const std::string& kind, const std::string& hint,
                                                  std::uint32_t oldest,
                                                  const std::function<void(const unsigned char*, size_t)>& checked) {
  if (oldest == 0) oldest = version;
  auto fail = [&](const std::string& why) { throw std::runtime_error(what + ": " + why); };
  if (fileSize < 4 || std::memcmp(file, magic, 4) != 0)
    fail("not a " + kind + " file (no " + std::string(magic, 4) + " magic)");
  if (fileSize < kHeaderSize) fail("truncated: " + std::to_string(fileSize) + " bytes, shorter than the header");
  std::uint32_t stored = 0;
  std::uint64_t payloadSize = 0;
  std::memcpy(&stored, file + 4, sizeof stored);
  std::memcpy(&payloadSize, file + 8, sizeof payloadSize);
  if (stored < oldest || stored > version)
    fail("format version " + std::to_string(stored) + ", but this build reads " +
         (oldest == version ? "version " + std::to_string(version)
                            : "versions " + std::to_string(oldest) + " to " + std::to_string(version)) +
         " (" + hint + ")");
  const std::uint64_t expected = kHeaderSize + payloadSize + kChecksumSize;
  if (payloadSize > fileSize || fileSize != expected)
    fail("truncated or padded: " + std::to_string(fileSize) + " bytes, the header announces " +
         std::to_string(expected));
  // The size fits a size_t now: it is no larger than the file in memory (32-bit builds too).
  const auto size = static_cast<size_t>(payloadSize);
  const unsigned char* payload = file + kHeaderSize;
  std::uint32_t checksum = 0;
  std::memcpy(&checksum, payload + size, sizeof checksum);
  uLong c = crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < size;) {
    const size_t chunk = std::min(size - done, kChecksumChunk);
    c = crc32(c, payload + done, static_cast<uInt>(chunk));
    if (checked) checked(payload + done, chunk);
    done += chunk;
  }
  if (static_cast<std::uint32_t>(c) != checksum) fail("checksum mismatch: the file is corrupt");
  return {payload, size};
}

std::uint32_t versionOf(const std::vector<unsigned char>& file) { return versionOf(file.data(), file.size()); }

std::uint32_t versionOf(const unsigned char* file, size_t size) {
  std::uint32_t stored = 0;
  if (size >= 8) std::memcpy(&stored, file + 4, sizeof stored);
  return stored;
}

void writeAtomically(const std::string& path, const std::vector<unsigned char>& bytes, const std::string& what) {
  const std::string temporary = path + ".part";
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write " + what + " '" + temporary + "' (for '" + path + "')");
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(temporary);
      throw std::runtime_error("error writing " + what + " '" + path + "' (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary);
    throw std::runtime_error("cannot write " + what + " '" + path + "': " + ec.message());
  }
}

std::vector<unsigned char> readFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + what + " '" + path + "'");
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace nft::detection::binary
