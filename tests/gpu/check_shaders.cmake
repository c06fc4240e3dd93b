# cmake -DGLSLANG=<glslangValidator> -DDIR=<folder> -P check_shaders.cmake
#
# Checks the programs nft_shader_sources wrote to DIR (NAME.vert + NAME.frag + NAME.nohighp.frag,
# each exactly as gpu::Program assembles it: "#version 100", defines, pieces) with the Khronos
# reference compiler as strict GLSL ES 1.00:
# - each program's vertex and fragment stage, compiled and linked together (-l), and the same
#   with the fragment stage's no-highp variant (NFT_NO_HIGHP: the prelude's mediump path, what a
#   GPU without GL_FRAGMENT_PRECISION_HIGH compiles);
# - under the OpenGL ES 2.0 minimum limits and the GLSL ES 1.00 Appendix A restrictions (loops
#   of the form for (int i = a; i < constant; i += constant), constant-index expressions only):
#   glslang's default configuration allows more than a GLES2 GPU must accept, so the
#   configuration is glslangValidator -c with those limits lowered;
# - the no-highp variant, preprocessed, must not contain the token highp;
# - a fragment stage that uses GL_EXT_draw_buffers (marked by nft_shader_sources, which removes the
#   #extension line glslang does not know) is checked with MaxDrawBuffers 8 instead of 1, so
#   gl_FragData[1..7] compiles there and nowhere else.
if(NOT GLSLANG OR NOT DIR)
  message(FATAL_ERROR "usage: cmake -DGLSLANG=glslangValidator -DDIR=folder -P check_shaders.cmake")
endif()

execute_process(COMMAND "${GLSLANG}" -c OUTPUT_VARIABLE conf RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GLSLANG} -c failed (${rc})")
endif()
# OpenGL ES 2.0 section 6.2 minimums, and Appendix A of GLSL ES 1.00 (0 = restricted).
foreach(pair
    "MaxVertexAttribs 8" "MaxVertexUniformVectors 128" "MaxVaryingVectors 8"
    "MaxVertexTextureImageUnits 0" "MaxCombinedTextureImageUnits 8" "MaxTextureImageUnits 8"
    "MaxFragmentUniformVectors 16" "MaxDrawBuffers 1"
    "nonInductiveForLoops 0" "whileLoops 0" "doWhileLoops 0" "generalUniformIndexing 0"
    "generalAttributeMatrixVectorIndexing 0" "generalVaryingIndexing 0" "generalSamplerIndexing 0"
    "generalVariableIndexing 0" "generalConstantMatrixVectorIndexing 0")
  string(REPLACE " " ";" kv "${pair}")
  list(GET kv 0 key)
  string(REGEX REPLACE "(^|\n)${key} [0-9-]+" "\\1${pair}" conf "${conf}")
endforeach()
set(conf_file "${DIR}/../glsl_es100_gles2.conf")
file(WRITE "${conf_file}" "${conf}")
string(REGEX REPLACE "(^|\n)MaxDrawBuffers [0-9-]+" "\\1MaxDrawBuffers 8" conf_mrt "${conf}")
set(conf_mrt_file "${DIR}/../glsl_es100_gles2_draw_buffers.conf")
file(WRITE "${conf_mrt_file}" "${conf_mrt}")

file(GLOB vertex_files "${DIR}/*.vert")
list(LENGTH vertex_files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no shaders in ${DIR}: run nft_shader_sources first")
endif()
set(failures 0)
set(checked 0)
foreach(vert IN LISTS vertex_files)
  string(REGEX REPLACE "\\.vert$" "" stem "${vert}")
  get_filename_component(name "${stem}" NAME)
  file(READ "${stem}.frag" frag_text)
  set(conf_used "${conf_file}")
  if(frag_text MATCHES "NFT_GL_EXT_draw_buffers")
    set(conf_used "${conf_mrt_file}")
  endif()
  foreach(frag "${stem}.frag" "${stem}.nohighp.frag")
    execute_process(COMMAND "${GLSLANG}" -l "${conf_used}" "${vert}" "${frag}"
                    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
    math(EXPR checked "${checked} + 1")
    if(NOT rc EQUAL 0)
      math(EXPR failures "${failures} + 1")
      get_filename_component(frag_name "${frag}" NAME)
      message(SEND_ERROR "${name}.vert + ${frag_name}: glslangValidator rejects it:\n${out}${err}")
    endif()
  endforeach()
  execute_process(COMMAND "${GLSLANG}" -E -S frag "${stem}.nohighp.frag"
                  OUTPUT_VARIABLE pre ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR pre MATCHES "(^|[^A-Za-z0-9_])highp([^A-Za-z0-9_]|$)")
    math(EXPR failures "${failures} + 1")
    message(SEND_ERROR "${name}.nohighp.frag: uses highp where GL_FRAGMENT_PRECISION_HIGH is undefined "
                       "(or does not preprocess):\n${err}")
  endif()
endforeach()
message(STATUS "glslangValidator, GLSL ES 1.00 / GLES2 limits: ${count} programs, ${checked} vertex+fragment "
               "links (with and without highp), ${failures} failures")
