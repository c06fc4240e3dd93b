#include "nft/version.h"

namespace nft {

// NFT_VERSION_STRING comes from CMake's project(VERSION) (session/CMakeLists.txt).
const char* version() noexcept { return NFT_VERSION_STRING; }

}  // namespace nft
