# The documentation site (docs/Doxyfile.in): the user guide — README.md as the front page, the
# Markdown pages of docs/ — and the API reference of the public headers, one Doxygen site.
# `cmake --build build/release --target nft_docs` writes build/release/docs/site/html/index.html.
#
# Tests (label docs), run by ctest like every other:
#   docs.site                     Doxygen over the site: any warning fails (an undocumented public
#                                 entity, a \snippet whose file or marker is gone, a \ref to
#                                 nothing), then no link of the HTML pages leads nowhere
#                                 (docs/check_links.py: files and #anchors)
#   docs.sources                  README.md at most 200 lines and its app the very text of
#                                 examples/minimal/hello.cpp; no code block written into a page
#                                 (code comes from compiled files by \snippet / \include);
#                                 docs/check_sources.py
#   docs.configuration_reference  docs/configuration.md is what docs/config_reference.cpp
#                                 generates from config's schema and config.h's descriptions
find_package(Doxygen QUIET)
# Debian's python3 runs the checks (a pyenv python3 first on PATH would do as well: standard
# library only).
find_program(NFT_DOCS_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT NFT_DOCS_PYTHON)
  find_program(NFT_DOCS_PYTHON python3)
endif()

set(NFT_DOCS_DIR "${PROJECT_BINARY_DIR}/docs/site")
configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${PROJECT_BINARY_DIR}/docs/Doxyfile" @ONLY)

if(DOXYGEN_FOUND)
  add_custom_target(nft_docs
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${NFT_DOCS_DIR}"
    COMMAND Doxygen::doxygen "${PROJECT_BINARY_DIR}/docs/Doxyfile"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Documentation site (Doxygen) -> ${NFT_DOCS_DIR}/html/index.html"
    VERBATIM)
else()
  message(STATUS "doxygen not found: no nft_docs target (scripts/install-deps.sh installs it)")
endif()

if(NOT NFT_BUILD_TESTS)
  return()
endif()

# The configuration reference's generator, and the target that rewrites the page from it.
add_executable(nft_config_reference "${PROJECT_SOURCE_DIR}/docs/config_reference.cpp")
target_link_libraries(nft_config_reference PRIVATE nft_config)
nft_target_defaults(nft_config_reference)
set(nft_config_reference_args
  "-DGENERATOR=$<TARGET_FILE:nft_config_reference>" "-DHEADER=${PROJECT_SOURCE_DIR}/config/config.h"
  "-DPAGE=${PROJECT_SOURCE_DIR}/docs/configuration.md")
add_custom_target(nft_config_reference_update
  COMMAND "${CMAKE_COMMAND}" ${nft_config_reference_args} -DMODE=update
          -P "${PROJECT_SOURCE_DIR}/cmake/nft_config_reference.cmake"
  DEPENDS nft_config_reference
  COMMENT "Rewriting docs/configuration.md from the config schema"
  VERBATIM)
add_test(NAME docs.configuration_reference
  COMMAND "${CMAKE_COMMAND}" ${nft_config_reference_args} -DMODE=check
          -P "${PROJECT_SOURCE_DIR}/cmake/nft_config_reference.cmake")

# The site. The test runs what nft_docs runs (rather than a nested build inside ctest) into its
# own output folder; without doxygen or python3 it fails, saying so: the suite never skips it.
if(DOXYGEN_FOUND AND NFT_DOCS_PYTHON)
  add_test(NAME docs.site
    COMMAND "${CMAKE_COMMAND}" "-DDOXYGEN=${DOXYGEN_EXECUTABLE}" "-DPYTHON=${NFT_DOCS_PYTHON}"
            "-DDOXYFILE=${PROJECT_BINARY_DIR}/docs/Doxyfile" "-DOUTPUT_DIR=${PROJECT_BINARY_DIR}/docs/test"
            "-DCHECK_LINKS=${PROJECT_SOURCE_DIR}/docs/check_links.py"
            -P "${PROJECT_SOURCE_DIR}/cmake/nft_docs_test.cmake"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  set_tests_properties(docs.site PROPERTIES TIMEOUT 300)
else()
  add_test(NAME docs.site
    COMMAND "${CMAKE_COMMAND}" -E echo "doxygen or python3 not found: install them (scripts/install-deps.sh test) and reconfigure")
  set_tests_properties(docs.site PROPERTIES FAIL_REGULAR_EXPRESSION "not found")
endif()
if(NFT_DOCS_PYTHON)
  add_test(NAME docs.sources COMMAND "${NFT_DOCS_PYTHON}" "${PROJECT_SOURCE_DIR}/docs/check_sources.py"
                                     "${PROJECT_SOURCE_DIR}")
else()
  add_test(NAME docs.sources COMMAND "${CMAKE_COMMAND}" -E echo "python3 not found: install it (scripts/install-deps.sh test)")
  set_tests_properties(docs.sources PROPERTIES FAIL_REGULAR_EXPRESSION "not found")
endif()
set_tests_properties(docs.site docs.sources docs.configuration_reference PROPERTIES LABELS docs)
