# The configuration reference page (cmake/NftDocs.cmake): runs the generator
# (docs/config_reference.cpp) on config/config.h and either rewrites the page (MODE=update) or
# fails when the page differs from its output (MODE=check, the test docs.configuration_reference).
# Arguments: -DGENERATOR=<nft_config_reference> -DHEADER=<config/config.h> -DPAGE=<docs/configuration.md>
#            -DMODE=update|check
cmake_minimum_required(VERSION 3.22)
foreach(var IN ITEMS GENERATOR HEADER PAGE MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "nft_config_reference.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND "${GENERATOR}" "${HEADER}" RESULT_VARIABLE status OUTPUT_VARIABLE generated ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${err}the configuration reference could not be generated (exit status ${status})")
endif()
if(MODE STREQUAL "update")
  file(WRITE "${PAGE}" "${generated}")
  message(STATUS "wrote ${PAGE}")
  return()
endif()
if(NOT EXISTS "${PAGE}")
  message(FATAL_ERROR "${PAGE} does not exist: cmake --build <build> --target nft_config_reference_update writes it")
endif()
file(READ "${PAGE}" committed)
if(NOT committed STREQUAL generated)
  file(WRITE "${PAGE}.generated" "${generated}")
  message(FATAL_ERROR "${PAGE} differs from what the config schema and config/config.h generate "
                      "(written to ${PAGE}.generated; compare them, then "
                      "cmake --build <build> --target nft_config_reference_update)")
endif()
message(STATUS "${PAGE} is what the config schema generates")
