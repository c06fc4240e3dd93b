# The API reference of the public headers (docs/Doxyfile.in): `cmake --build build/release --target
# nft_docs` writes HTML into build/release/docs/api/html/index.html. Every public class, function,
# member and enum value must be documented: an undocumented one, or a doc comment Doxygen cannot
# read (a @param naming no parameter, ...), is a warning, and warnings fail the build of nft_docs
# and the test docs.api_reference (label docs).
find_package(Doxygen QUIET)

set(NFT_DOCS_DIR "${PROJECT_BINARY_DIR}/docs/api")
configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${PROJECT_BINARY_DIR}/docs/Doxyfile" @ONLY)

if(DOXYGEN_FOUND)
  add_custom_target(nft_docs
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${NFT_DOCS_DIR}"
    COMMAND Doxygen::doxygen "${PROJECT_BINARY_DIR}/docs/Doxyfile"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "API reference (Doxygen) -> ${NFT_DOCS_DIR}/html/index.html"
    VERBATIM)
else()
  message(STATUS "doxygen not found: no nft_docs target (scripts/install-deps.sh installs it)")
endif()

if(NFT_BUILD_TESTS)
  # The test runs what nft_docs runs (rather than a nested build inside ctest) into its own
  # output folder; without doxygen it fails, saying so: the suite never skips the check.
  if(DOXYGEN_FOUND)
    add_test(NAME docs.api_reference
      COMMAND "${CMAKE_COMMAND}" "-DDOXYGEN=${DOXYGEN_EXECUTABLE}"
              "-DDOXYFILE=${PROJECT_BINARY_DIR}/docs/Doxyfile" "-DOUTPUT_DIR=${PROJECT_BINARY_DIR}/docs/test"
              -P "${PROJECT_SOURCE_DIR}/cmake/nft_docs_test.cmake"
      WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  else()
    add_test(NAME docs.api_reference
      COMMAND "${CMAKE_COMMAND}" -E echo "doxygen not found: install it (scripts/install-deps.sh) and reconfigure")
    set_tests_properties(docs.api_reference PROPERTIES FAIL_REGULAR_EXPRESSION "not found")
  endif()
  set_tests_properties(docs.api_reference PROPERTIES LABELS docs)
endif()
