# ctest docs.site (cmake/NftDocs.cmake): runs Doxygen on the configured Doxyfile into OUTPUT_DIR
# and fails on any warning — the exit status (WARN_AS_ERROR) and, to be sure, any "warning:"
# line —, then checks that no link of the generated pages leads nowhere (docs/check_links.py).
# Arguments: -DDOXYGEN=<doxygen> -DPYTHON=<python3> -DDOXYFILE=<build>/docs/Doxyfile
#            -DOUTPUT_DIR=<dir> -DCHECK_LINKS=<docs/check_links.py>
cmake_minimum_required(VERSION 3.22)

foreach(var IN ITEMS DOXYGEN PYTHON DOXYFILE OUTPUT_DIR CHECK_LINKS)
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
  message(FATAL_ERROR "Doxygen reports the problems above in the guide or the public headers (exit status ${status})")
endif()
if(NOT EXISTS "${OUTPUT_DIR}/html/index.html")
  message(FATAL_ERROR "Doxygen wrote no ${OUTPUT_DIR}/html/index.html\n${out}${err}")
endif()
execute_process(COMMAND "${PYTHON}" "${CHECK_LINKS}" "${OUTPUT_DIR}/html" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the site has links that lead nowhere (above)")
endif()
message(STATUS "documentation site: no Doxygen warning, no dead link; ${OUTPUT_DIR}/html/index.html")
