# Settings every target of ours shares: the project root and the build tree on the include
# path (headers are included as "gpu/context.h"; generated ones live in the build tree) and
# the warning flags. Third-party headers come in as SYSTEM includes, so -Werror applies to
# our code only.
function(nft_target_defaults target)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  else()
    set(scope PUBLIC)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                             -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion)
    if(NFT_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
  target_include_directories(${target} ${scope} "${PROJECT_SOURCE_DIR}" "${PROJECT_BINARY_DIR}")
endfunction()
