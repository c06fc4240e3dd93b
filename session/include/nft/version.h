#pragma once
// The library's version.

namespace nft {

/// The version of the library the program runs with, "MAJOR.MINOR.PATCH" (CMake's project
/// version; the shared library's SOVERSION is MAJOR.MINOR while MAJOR is 0).
const char* version() noexcept;

}  // namespace nft
