# nft_embed_shaders(<target> <namespace> <file.glsl>...)
#
# Embeds GLSL ES sources in the binary at build time: for each file `name.stage.glsl` (or
# `name.glsl`) it generates a constant `<namespace>::name_stage` of type
# nft::gpu::ShaderSource {name, text}, where name is the file's path relative to the project
# root (what shader error messages print). The header is
# "<folder>/<target>_shaders.h" in the build tree. Editing a .glsl file regenerates it.
set(NFT_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/embed_shaders_script.cmake")

function(nft_embed_shaders target namespace)
  set(files ${ARGN})
  file(RELATIVE_PATH folder "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
  set(out_dir "${PROJECT_BINARY_DIR}/${folder}")
  set(header "${out_dir}/${target}_shaders.h")
  set(source "${out_dir}/${target}_shaders.cpp")
  set(abs_files "")
  foreach(f IN LISTS files)
    list(APPEND abs_files "${CMAKE_CURRENT_SOURCE_DIR}/${f}")
  endforeach()
  string(REPLACE ";" "|" joined "${abs_files}")
  add_custom_command(
    OUTPUT "${header}" "${source}"
    COMMAND "${CMAKE_COMMAND}" "-DFILES=${joined}" "-DROOT=${PROJECT_SOURCE_DIR}"
            "-DNAMESPACE=${namespace}" "-DHEADER=${header}" "-DSOURCE=${source}"
            -P "${NFT_EMBED_SCRIPT}"
    DEPENDS ${abs_files} "${NFT_EMBED_SCRIPT}"
    COMMENT "Embedding GLSL sources of ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${header}" "${source}")
endfunction()
