#pragma once
// The container of the project's binary files (.nftm target models, .nftdb target databases):
// magic (4 bytes), u32 format version, u64 payload size, the payload, the CRC-32 (zlib) of the
// payload; little-endian plain values inside. Written through a temporary file renamed into
// place (never half-written); read with every size checked before anything is allocated.
// Private to detection/.

#include <cstdint>
#include <functional>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace nft::detection::binary {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the binary files assume a little-endian host");

/// Appends plain values (little-endian, as in memory).
class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const unsigned char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void putBytes(const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
  }
  /// u32 length, then the bytes.
  void putString(const std::string& s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    putBytes(s.data(), s.size());
  }
  std::vector<unsigned char>& bytes() { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

/// Reads plain values from a payload; every failure throws std::runtime_error
/// "<what>: <why> (corrupt file?)", `what` naming the file (e.g. "target model 'a.nftm'").
class Reader {
 public:
  Reader(const unsigned char* data, size_t size, std::string what) : data_(data), size_(size), what_(std::move(what)) {}
  template <typename T>
  T get(const char* field) {
    T value;
    need(sizeof(T), field);
    std::memcpy(&value, data_ + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }
  void getBytes(void* out, size_t size, const char* field) {
    need(size, field);
    std::memcpy(out, data_ + offset_, size);
    offset_ += size;
  }
  /// A u32 count, at most `max`.
  std::uint32_t count(const char* field, std::uint32_t max) {
    const auto n = get<std::uint32_t>(field);
    if (n > max) fail(std::string(field) + " is " + std::to_string(n) + ", more than the " + std::to_string(max) + " allowed");
    return n;
  }
  /// A string written by Writer::putString, at most `max` bytes.
  std::string string(const char* field, std::uint32_t max) {
    const std::uint32_t n = count(field, max);
    std::string s(n, '\0');
    getBytes(s.data(), n, field);
    return s;
  }
  /// A pointer to the next `size` bytes, skipped.
  const unsigned char* take(size_t size, const char* field) {
    need(size, field);
    const unsigned char* p = data_ + offset_;
    offset_ += size;
    return p;
  }
  size_t remaining() const { return size_ - offset_; }
  [[noreturn]] void fail(const std::string& why) const;

 private:
  void need(size_t n, const char* field) const {
    if (n > size_ - offset_) fail(std::string("payload ends inside ") + field);
  }
  const unsigned char* data_;
  size_t size_;
  size_t offset_ = 0;
  std::string what_;
};

/// CRC-32 (zlib) of `size` bytes.
std::uint32_t crc32Of(const unsigned char* data, size_t size);

/// The whole file: header, payload, checksum.
std::vector<unsigned char> container(const char magic[4], std::uint32_t version, const std::vector<unsigned char>& payload);

/// Checks a whole file's header, size and checksum and returns its payload (a view into `file`).
/// The file's format version must be in [oldest, version] (oldest 0: `version` only); versionOf()
/// says which it is.
/// @throws std::runtime_error "<what>: not a <kind> file (no XXXX magic)...", "format version N, but
///   this build reads version M ..." (or "versions O to M"), "truncated or padded ...", "checksum
///   mismatch ...".
/// @param hint what to do about a version mismatch, e.g. "retrain the target with this nft_train".
std::pair<const unsigned char*, size_t> payloadOf(const std::vector<unsigned char>& file, const char magic[4],
                                                  std::uint32_t version, const std::string& what,
                                                  const std::string& kind, const std::string& hint,
                                                  std::uint32_t oldest = 0);
/// payloadOf() on `size` bytes at `file` (e.g. a memory-mapped file, mapped_file.h). The checksum
/// is computed in chunks of kChecksumChunk bytes, each handed to `checked` (when given) once it
/// is summed: a mapped file's caller releases the pages it will not need again
/// (MappedFile::release), so checking a large file does not make it all resident at once.
std::pair<const unsigned char*, size_t> payloadOf(const unsigned char* file, size_t size, const char magic[4],
                                                  std::uint32_t version, const std::string& what,
                                                  const std::string& kind, const std::string& hint,
                                                  std::uint32_t oldest,
                                                  const std::function<void(const unsigned char*, size_t)>& checked);
/// The chunk of payloadOf()'s checksum pass: 1 MiB.
inline constexpr size_t kChecksumChunk = size_t{1} << 20;

/// The format version in the header of a file payloadOf() accepted.
std::uint32_t versionOf(const std::vector<unsigned char>& file);
/// The format version in the header of a file (`size` bytes at `file`) payloadOf() accepted.
std::uint32_t versionOf(const unsigned char* file, size_t size);

/// Writes `bytes` to `path` through `path`.part renamed into place.
/// @throws std::runtime_error "cannot write <what> '<path>': ..." (the temporary file removed).
void writeAtomically(const std::string& path, const std::vector<unsigned char>& bytes, const std::string& what);

/// The whole file. @throws std::runtime_error "cannot open <what> '<path>'".
std::vector<unsigned char> readFile(const std::string& path, const std::string& what);

}  // namespace nft::detection::binary
