# Manual pages of the programs, made at build time from each program's --help by help2man
# (cmake/nft_man_page.cmake), so the page and the program never disagree:
# <build>/man/man1/<program>.1.gz, installed into share/man/man1 with the programs (component
# nft_programs; the Debian package nft-tools). `man build/release/man/man1/nft_replay.1.gz`
# reads one before installing.
find_program(NFT_HELP2MAN help2man)

# nft_man_pages(<program target>...): a page for each, made by the target nft_man_pages (ALL).
function(nft_man_pages)
  if(CMAKE_CROSSCOMPILING)
    message(STATUS "manual pages: not made when cross-compiling (the programs cannot run here)")
    return()
  endif()
  if(NOT NFT_HELP2MAN)
    message(WARNING "manual pages: help2man not found, none made or installed (Debian: help2man; "
                    "scripts/install-deps.sh installs it)")
    return()
  endif()
  set(pages)
  foreach(program IN LISTS ARGN)
    set(page "${PROJECT_BINARY_DIR}/man/man1/${program}.1.gz")
    add_custom_command(OUTPUT "${page}"
      COMMAND "${CMAKE_COMMAND}" "-DHELP2MAN=${NFT_HELP2MAN}" "-DPROGRAM=$<TARGET_FILE:${program}>"
              "-DVERSION=${PROJECT_VERSION}" "-DOUTPUT=${page}"
              -P "${PROJECT_SOURCE_DIR}/cmake/nft_man_page.cmake"
      DEPENDS ${program} "${PROJECT_SOURCE_DIR}/cmake/nft_man_page.cmake"
      COMMENT "Manual page ${program}(1) from ${program} --help (help2man)"
      VERBATIM)
    list(APPEND pages "${page}")
  endforeach()
  add_custom_target(nft_man_pages ALL DEPENDS ${pages})
  install(FILES ${pages} DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT nft_programs)
endfunction()
