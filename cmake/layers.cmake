# One static library per layer (docs/architecture.md), declared bottom-up with
#   cvmcheck_layer(NAME FILES globs... [EXCLUDE globs...] [SKIP files...] [DEPENDS layers...]
#                  [EXPOSES layers...] [INCLUDE_DIR dir])
# FILES (less EXCLUDE) are the layer's sources and headers: all are include-checked, and its
# .cc (and, with CVMCHECK_CUDA, .cu) files not in SKIP are compiled into cvmcheck_NAME (a layer
# of headers only is an INTERFACE library). DEPENDS names layers declared before it, so the link
# graph is a DAG by construction; the same list is what the include check allows (with
# everything below those layers). DEPENDS are linked PRIVATE, except the layers in EXPOSES (a
# subset of DEPENDS): those the layer's own headers include, linked PUBLIC so that its users can
# compile them; the include check fails the build on a header including a layer it does not
# expose. INCLUDE_DIR is a folder its users name its headers from (as
# `core/include/` is for the core): it becomes a usage requirement of the library and an include
# root of the check.
#   cvmcheck_programs(NAME FILES globs... USES layers...)
# declares the files of executables in no layer (the command line, example and planted workers,
# adapters' workers), include-checked as the files of a layer built on USES: each may include its
# own files and the layers USES names, with everything below them, and nothing else of ours.
# cvmcheck_layer_check() then adds the check to the build.

set_property(GLOBAL PROPERTY CVMCHECK_LAYERS "")
set_property(GLOBAL PROPERTY CVMCHECK_PROGRAMS "")
set_property(GLOBAL PROPERTY CVMCHECK_INCLUDE_ROOTS "")

# The layers `deps` build on, with everything below them (fails on a layer not yet declared).
function(cvmcheck_layers_below who deps out)
  get_property(declared GLOBAL PROPERTY CVMCHECK_LAYERS)
  set(below "")
  foreach(dep IN LISTS deps)
    if(NOT dep IN_LIST declared)
      message(FATAL_ERROR "${who}: ${dep} must be declared before it (layers go bottom-up)")
    endif()
    get_property(dep_below GLOBAL PROPERTY CVMCHECK_LAYER_${dep}_BELOW)
    list(APPEND below ${dep} ${dep_below})
  endforeach()
  list(REMOVE_DUPLICATES below)
  set(${out} ${below} PARENT_SCOPE)
endfunction()

function(cvmcheck_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "INCLUDE_DIR" "FILES;EXCLUDE;SKIP;DEPENDS;EXPOSES")
  cvmcheck_layers_below("layer ${name}" "${arg_DEPENDS}" below)
  # What a user of this layer may reach through its headers: the exposed layers and theirs.
  set(exposed "")
  foreach(dep IN LISTS arg_EXPOSES)
    if(NOT dep IN_LIST arg_DEPENDS)
      message(FATAL_ERROR "layer ${name}: EXPOSES ${dep}, which is not in its DEPENDS")
    endif()
    get_property(dep_exposed GLOBAL PROPERTY CVMCHECK_LAYER_${dep}_EXPOSED)
    list(APPEND exposed ${dep} ${dep_exposed})
  endforeach()
  list(REMOVE_DUPLICATES exposed)

  file(GLOB files CONFIGURE_DEPENDS RELATIVE ${CMAKE_SOURCE_DIR} ${arg_FILES})
  if(arg_EXCLUDE)
    file(GLOB excluded CONFIGURE_DEPENDS RELATIVE ${CMAKE_SOURCE_DIR} ${arg_EXCLUDE})
    list(REMOVE_ITEM files ${excluded})
  endif()
  set(sources ${files})
  if(CVMCHECK_CUDA)
    list(FILTER sources INCLUDE REGEX "\\.(cc|cu)$")
  else()
    list(FILTER sources INCLUDE REGEX "\\.cc$")
  endif()
  if(arg_SKIP)
    list(REMOVE_ITEM sources ${arg_SKIP})
  endif()
  set(hidden ${arg_DEPENDS})
  if(arg_EXPOSES)
    list(REMOVE_ITEM hidden ${arg_EXPOSES})
  endif()
  list(TRANSFORM arg_EXPOSES PREPEND cvmcheck_ OUTPUT_VARIABLE public_targets)
  list(TRANSFORM hidden PREPEND cvmcheck_ OUTPUT_VARIABLE private_targets)
  if(sources)
    add_library(cvmcheck_${name} STATIC ${sources})
    set(usage PUBLIC)
    target_link_libraries(cvmcheck_${name} PUBLIC ${public_targets} PRIVATE ${private_targets})
  else()
    add_library(cvmcheck_${name} INTERFACE)
    set(usage INTERFACE)
    target_link_libraries(cvmcheck_${name} INTERFACE ${public_targets} ${private_targets})
  endif()
  if(arg_INCLUDE_DIR)
    target_include_directories(cvmcheck_${name} ${usage} ${CMAKE_SOURCE_DIR}/${arg_INCLUDE_DIR})
    set_property(GLOBAL APPEND PROPERTY CVMCHECK_INCLUDE_ROOTS ${arg_INCLUDE_DIR})
  endif()

  set_property(GLOBAL APPEND PROPERTY CVMCHECK_LAYERS ${name})
  set_property(GLOBAL PROPERTY CVMCHECK_LAYER_${name}_BELOW ${below})
  set_property(GLOBAL PROPERTY CVMCHECK_LAYER_${name}_EXPOSED ${exposed})
  set_property(GLOBAL PROPERTY CVMCHECK_LAYER_${name}_FILES ${files})
endfunction()

function(cvmcheck_programs name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "FILES;USES")
  get_property(layers GLOBAL PROPERTY CVMCHECK_LAYERS)
  if(name IN_LIST layers)
    message(FATAL_ERROR "programs ${name}: a layer has that name")
  endif()
  cvmcheck_layers_below("programs ${name}" "${arg_USES}" below)
  file(GLOB files CONFIGURE_DEPENDS RELATIVE ${CMAKE_SOURCE_DIR} ${arg_FILES})
  set_property(GLOBAL APPEND PROPERTY CVMCHECK_PROGRAMS ${name})
  set_property(GLOBAL PROPERTY CVMCHECK_LAYER_${name}_BELOW ${below})
  set_property(GLOBAL PROPERTY CVMCHECK_LAYER_${name}_FILES ${files})
endfunction()

# Writes the table for cmake/check_layers.cmake and runs it before any layer compiles: a stamp
# that every layer library depends on, redone when any layer or program file (or the table)
# changes. The programs wait for it through the layers they link.
function(cvmcheck_layer_check)
  get_property(layers GLOBAL PROPERTY CVMCHECK_LAYERS)
  get_property(programs GLOBAL PROPERTY CVMCHECK_PROGRAMS)
  get_property(roots GLOBAL PROPERTY CVMCHECK_INCLUDE_ROOTS)
  set(table "set(LAYERS ${layers})\nset(PROGRAMS ${programs})\nset(INCLUDE_ROOTS ${roots})\n")
  set(all_files "")
  foreach(layer IN LISTS layers programs)
    get_property(below GLOBAL PROPERTY CVMCHECK_LAYER_${layer}_BELOW)
    get_property(exposed GLOBAL PROPERTY CVMCHECK_LAYER_${layer}_EXPOSED)
    get_property(files GLOBAL PROPERTY CVMCHECK_LAYER_${layer}_FILES)
    string(APPEND table "set(LAYER_${layer}_BELOW ${below})\nset(LAYER_${layer}_EXPOSED ${exposed})\n"
                        "set(LAYER_${layer}_FILES ${files})\n")
    list(APPEND all_files ${files})
  endforeach()
  set(table_file ${CMAKE_BINARY_DIR}/cvmcheck_layers.cmake)
  file(CONFIGURE OUTPUT ${table_file} CONTENT "${table}" @ONLY)  # rewritten only on change
  set(stamp ${CMAKE_BINARY_DIR}/cvmcheck_layers.stamp)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DTABLE=${table_file}
            -DSTAMP=${stamp} -P ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake
    DEPENDS ${all_files} ${table_file} ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "Checking that every layer and program includes only headers of the layers below it")
  add_custom_target(cvmcheck_layer_check DEPENDS ${stamp})
  foreach(layer IN LISTS layers)
    add_dependencies(cvmcheck_${layer} cvmcheck_layer_check)  # INTERFACE libraries too (3.19+)
  endforeach()
endfunction()
