#pragma once
// A file's bytes, memory-mapped read-only where the platform has POSIX mmap (Linux, Android,
// macOS, iOS; emscripten emulates it by reading), read into memory elsewhere. A target database
// (target_database.h) keeps its file mapped so that the targets not being tracked or verified
// cost no resident memory: the load releases the pages it has read, and a target decoded later
// is read again from the file into a copy of its own (copy()), never through the mapping
// (issue 33, item 6: a 1,000-target database within 200 MB of process memory).

#include <cstddef>
#include <string>
#include <vector>

namespace nft::detection {

/// The bytes of one file, read-only, for the object's lifetime (a mapped file keeps one file
/// descriptor open). Not copyable or movable (the
/// targets decoded from it hold a shared_ptr to it). A mapped file must not be truncated by
/// another process while mapped (reading past its new end raises SIGBUS); the files this project
/// writes are replaced by renaming a new file over them (binary::writeAtomically), which leaves
/// the mapped one as it was.
class MappedFile {
 public:
  /// Maps (or reads) `path`; `what` names the kind of file in errors.
  /// @throws std::runtime_error "cannot open <what> '<path>': <reason>".
  MappedFile(const std::string& path, const std::string& what);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  /// True when the bytes are a memory mapping (release() frees memory), false when read.
  bool mapped() const { return mapped_; }
  /// Drops the whole pages within [begin, begin + bytes) (a range of data(); one that ends at the
  /// file's end includes its last page) from the process's
  /// resident memory: madvise(MADV_DONTNEED) on the mapping; the kernel reads them from the file
  /// again when they are next touched. Nothing when the file was read into memory.
  void release(const unsigned char* begin, size_t bytes) const;
  /// The bytes [begin, begin + bytes) (a range of data()), copied into memory of their own
  /// without touching the mapping: pread() from the file where it is mapped (the bytes come
  /// from the page cache and never count in the process's resident memory), a copy elsewhere.
  /// For bytes read now and then, as a stored target's record (stored_target.h): read through
  /// the mapping, Linux maps the cached pages around each one read as well (fault-around, whole
  /// large folios on 6.x kernels), which madvise() on the record alone did not give back: after
  /// one verification of each of 1,001 targets, 5.9 MB of the file stayed resident.
  /// @throws std::invalid_argument if the range is not within data();
  ///   std::runtime_error "cannot read <what> '<path>': <reason>" if the read fails.
  std::vector<unsigned char> copy(const unsigned char* begin, size_t bytes) const;

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  int fd_ = -1;  // the mapped file, open for copy()
  std::string path_, what_;
  std::vector<unsigned char> read_;  // the bytes, where the file is not mapped
};

}  // namespace nft::detection
