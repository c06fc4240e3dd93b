# ctest docs.api_reference (cmake/NftDocs.cmake): runs Doxygen on the configured Doxyfile into
# OUTPUT_DIR and fails on any warning — the exit status (WARN_AS_ERROR) and, to be sure, any
# "warning:" line. Arguments: -DDOXYGEN=<doxygen> -DDOXYFILE=<build>/docs/Doxyfile -DOUTPUT_DIR=<dir>.
cmake_minimum_required(VERSION 3.22)

foreach(var IN ITEMS DOXYGEN DOXYFILE OUTPUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "nft_docs_test.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUTPUT_DIR}")
file(MAKE_DIRECTORY "${OUTPUT_DIR}")
file(READ "${DOXYFILE}" doxyfile)
file(WRITE "${OUTPUT_DIR}/Doxyfile" "${doxyfile}\nOUTPUT_DIRECTORY = \"${OUTPUT_DIR}\"\n")
execute_process(COMMAND "${DOXYGEN}" "${OUTPUT_DIR}/Doxyfile"
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR err MATCHES "warning:|error:")
  message(NOTICE "${err}")
  message(FATAL_ERROR "Doxygen reports the problems above in the public headers (exit status ${status})")
endif()
if(NOT EXISTS "${OUTPUT_DIR}/html/index.html")
  message(FATAL_ERROR "Doxygen wrote no ${OUTPUT_DIR}/html/index.html\n${out}${err}")
endif()
message(STATUS "API reference: no Doxygen warning; ${OUTPUT_DIR}/html/index.html")
