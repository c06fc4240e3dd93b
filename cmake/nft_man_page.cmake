# Writes the manual page of one program from its --help, with help2man (cmake/NftManPages.cmake
# runs it at build time). The NAME line is the first line of --help without the program's name
# and parentheses; a program with subcommands (nft_eval) gets a SUBCOMMANDS section with each
# subcommand's --help, two levels deep. The page is compressed (gzip -n: no time stamp).
# Arguments: -DHELP2MAN=<help2man> -DPROGRAM=<path to the program> -DVERSION=<x.y.z>
#            -DOUTPUT=<dir>/<program>.1.gz
cmake_minimum_required(VERSION 3.22)

foreach(var IN ITEMS HELP2MAN PROGRAM VERSION OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "nft_man_page.cmake: -D${var}=... is required")
  endif()
endforeach()
get_filename_component(name "${PROGRAM}" NAME)
get_filename_component(dir "${PROGRAM}" DIRECTORY)
# Run as `name` found on PATH, so that the usage line reads "Usage: nft_x", not the build path.
set(ENV{PATH} "${dir}:$ENV{PATH}")

# help_of(<out-var> <words>...): the --help text of `name words...`; fails on a non-zero exit.
function(help_of out)
  execute_process(COMMAND ${name} ${ARGN} --help RESULT_VARIABLE status OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    string(JOIN " " words ${name} ${ARGN})
    message(FATAL_ERROR "'${words} --help' exited with ${status}: ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# subcommands_of(<out-var> <help text>): the names listed under "Subcommands:" (CLI11's layout).
function(subcommands_of out text)
  set(names)
  if(text MATCHES "\nSubcommands:\n(.*)$")
    string(REPLACE "\n" ";" lines "${CMAKE_MATCH_1}")
    foreach(line IN LISTS lines)
      if(line MATCHES "^  ([a-z][a-z0-9_-]*)( |$)")
        list(APPEND names "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# roff(<out-var> <text>): text shown as it is (no-fill), with roff's special characters escaped.
function(roff out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

help_of(help)
string(REGEX MATCH "^[^\n]*" first "${help}")
string(REGEX REPLACE "^${name}: *" "" brief "${first}")
string(REGEX REPLACE " *\\([^()]*\\)" "" brief "${brief}")  # closed parentheses
string(REGEX REPLACE " *\\(.*$" "" brief "${brief}")        # one the next line closes
string(REGEX REPLACE "\\. .*$" "" brief "${brief}")      # the first sentence
string(REGEX REPLACE "[. ]+$" "" brief "${brief}")

set(include "${OUTPUT}.include")
set(include_option)
file(REMOVE "${include}")
subcommands_of(subs "${help}")
if(subs)
  set(include_option "--include=${include}")
  file(APPEND "${include}" "[SUBCOMMANDS]\nEach subcommand's own --help.\n")
  foreach(sub IN LISTS subs)
    help_of(sub_help ${sub})
    roff(text "${sub_help}")
    file(APPEND "${include}" ".SS \"${name} ${sub}\"\n${text}")
    subcommands_of(subsubs "${sub_help}")
    foreach(subsub IN LISTS subsubs)
      help_of(subsub_help ${sub} ${subsub})
      roff(text "${subsub_help}")
      file(APPEND "${include}" ".SS \"${name} ${sub} ${subsub}\"\n${text}")
    endforeach()
  endforeach()
endif()

string(REGEX REPLACE "\\.gz$" "" page "${OUTPUT}")
execute_process(COMMAND "${HELP2MAN}" --no-info "--version-string=${VERSION}" "--name=${brief}"
                        ${include_option} "--output=${page}" ${name}
  RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR NOT EXISTS "${page}")
  message(FATAL_ERROR "help2man failed for ${name} (exit ${status}): ${err}")
endif()
execute_process(COMMAND gzip -9nf "${page}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gzip ${page} failed (exit ${status})")
endif()
file(REMOVE "${include}")
