#include "detection/mapped_file.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "detection/binary_io.h"

#if __has_include(<sys/mman.h>) && __has_include(<unistd.h>)
#define NFT_HAVE_MMAP 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace nft::detection {

MappedFile::MappedFile(const std::string& path, const std::string& what) : path_(path), what_(what) {
#ifdef NFT_HAVE_MMAP
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw std::runtime_error("cannot open " + what + " '" + path + "': " + std::strerror(e));
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      throw std::runtime_error("cannot map " + what + " '" + path + "': " + std::strerror(e));
    }
    data_ = static_cast<const unsigned char*>(p);
    mapped_ = true;
    fd_ = fd;  // for copy(): the mapping keeps the file, this descriptor reads it
    return;
  }
  ::close(fd);
#else
  read_ = binary::readFile(path, what);
  data_ = read_.data();
  size_ = read_.size();
#endif
}

MappedFile::~MappedFile() {
#ifdef NFT_HAVE_MMAP
  if (mapped_) ::munmap(const_cast<unsigned char*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
#endif
}

std::vector<unsigned char> MappedFile::copy(const unsigned char* begin, size_t bytes) const {
  if (begin < data_ || bytes > size_ || static_cast<size_t>(begin - data_) > size_ - bytes)
    throw std::invalid_argument("MappedFile::copy: the range is not within " + what_ + " '" + path_ + "'");
  if (fd_ < 0) return std::vector<unsigned char>(begin, begin + bytes);
#ifdef NFT_HAVE_MMAP
  std::vector<unsigned char> out(bytes);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd_, out.data() + done, bytes - done, static_cast<off_t>((begin - data_) + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot read " + what_ + " '" + path_ + "': " +
                               (n < 0 ? std::strerror(errno) : "the file ends early"));
    done += static_cast<size_t>(n);
  }
  return out;
#else
  return {};
#endif
}

void MappedFile::release(const unsigned char* begin, size_t bytes) const {
#ifdef NFT_HAVE_MMAP
  if (!mapped_ || bytes == 0) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto from = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const auto end = reinterpret_cast<std::uintptr_t>(begin) + bytes;
  // The file's last page is its own however little of it the file fills.
  const auto to = (end == reinterpret_cast<std::uintptr_t>(data_) + size_ ? end + page - 1 : end) / page * page;
  // Advice only: a failure leaves the pages resident, nothing worse.
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
#else
  (void)begin;
  (void)bytes;
#endif
}

}  // namespace nft::detection
