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

MappedFile::MappedFile(const std::string& path, const std::string& what) {
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
  }
  ::close(fd);  // the mapping keeps the file
#else
  read_ = binary::readFile(path, what);
  data_ = read_.data();
  size_ = read_.size();
#endif
}

MappedFile::~MappedFile() {
#ifdef NFT_HAVE_MMAP
  if (mapped_) ::munmap(const_cast<unsigned char*>(data_), size_);
#endif
}

void MappedFile::release(const unsigned char* begin, size_t bytes) const {
#ifdef NFT_HAVE_MMAP
  if (!mapped_ || bytes == 0) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto from = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const auto to = (reinterpret_cast<std::uintptr_t>(begin) + bytes) / page * page;
  // Advice only: a failure leaves the pages resident, nothing worse.
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
#else
  (void)begin;
  (void)bytes;
#endif
}

}  // namespace nft::detection
