#pragma once
// The whole public API of the nft library: #include <nft/nft.h> and link nft::nft
// (CMake: find_package(nft)) or `pkg-config --cflags --libs nft`.

#include "config/config.h"
#include "error.h"
#include "image_view.h"
#include "session.h"
#include "types.h"
#include "version.h"
