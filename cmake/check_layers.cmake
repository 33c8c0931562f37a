# The include check (run by the build, cmake/layers.cmake): every #include "..." and #include <...>
# of a layer's sources and headers that names one of our files (by its path from an include root:
# each layer's INCLUDE_DIR such as core/include/ and worker_sdk/include/; from the source root;
# or, for the quoted form, beside the including file) must name a header of the same layer or of a
# layer below it; a header must name only a layer its own layer exposes (links PUBLIC). The files
# of programs in no layer (cvmcheck_programs: the command line, the example and planted workers,
# the adapters' workers) may name their own files and the layers they use, and a layer may name
# none of theirs. A `../` include is rejected outright: it hides the layer it reaches into.
# Inputs: SOURCE_DIR, TABLE (the generated layer table), STAMP (touched when clean).
cmake_minimum_required(VERSION 3.25)  # policies (IN_LIST)
include(${TABLE})

foreach(layer IN LISTS LAYERS PROGRAMS)
  foreach(file IN LISTS LAYER_${layer}_FILES)
    set("OWNER_${file}" ${layer})
  endforeach()
endforeach()

# Line number of the first line of `path` equal to `line` (for the message only).
function(line_number path line out)
  file(READ ${SOURCE_DIR}/${path} content)
  string(FIND "${content}" "${line}" pos)
  string(SUBSTRING "${content}" 0 ${pos} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

set(errors "")
foreach(layer IN LISTS LAYERS PROGRAMS)
  set(unit "layer '${layer}'")
  if(layer IN_LIST PROGRAMS)
    set(unit "program '${layer}'")
  endif()
  foreach(file IN LISTS LAYER_${layer}_FILES)
    file(STRINGS ${SOURCE_DIR}/${file} includes
         REGEX "^[ \t]*#[ \t]*include[ \t]*(\"[^\"]+\"|<[^>]+>)")
    get_filename_component(dir ${file} DIRECTORY)
    set(is_header FALSE)  # a program's headers are its own: no layer exposes them
    if(file MATCHES "\\.(h|hpp|cuh)$" AND NOT layer IN_LIST PROGRAMS)
      set(is_header TRUE)
    endif()
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*" "\\1" header "${line}")
      set(candidates "")
      if(line MATCHES "include[ \t]*\"")
        set(candidates ${dir}/${header})  # only the quoted form searches beside the file
      endif()
      set(problem "")
      if(header MATCHES "(^|/)\\.\\.(/|$)")
        set(problem "a ../ include escapes the include roots; name the header from the source root")
      else()
        set(target "")
        foreach(root IN LISTS INCLUDE_ROOTS)
          list(APPEND candidates ${root}/${header})
        endforeach()
        foreach(candidate ${candidates} ${header})
          if(EXISTS ${SOURCE_DIR}/${candidate} AND NOT IS_DIRECTORY ${SOURCE_DIR}/${candidate})
            set(target ${candidate})
            break()
          endif()
        endforeach()
        if(target STREQUAL "")
          continue()  # not ours (a system or third-party header)
        endif()
        set(owner "${OWNER_${target}}")
        if(owner STREQUAL "")
          set(problem "${target} is in no library layer")
        elseif(owner IN_LIST PROGRAMS AND NOT owner STREQUAL layer)
          set(problem "${target} belongs to program '${owner}', in no library layer")
        elseif(NOT owner STREQUAL layer AND NOT owner IN_LIST LAYER_${layer}_BELOW)
          string(REPLACE ";" ", " allowed "${LAYER_${layer}_BELOW}")
          if(allowed STREQUAL "")
            set(allowed "no other layer")
          endif()
          string(CONCAT problem "${unit} may not include layer '${owner}' (${target}); "
                        "${layer} builds on: ${allowed}")
        elseif(is_header AND NOT owner STREQUAL layer AND NOT owner IN_LIST LAYER_${layer}_EXPOSED)
          string(CONCAT problem "a header of layer '${layer}' includes layer '${owner}' (${target}), "
                        "which ${layer} links PRIVATE: add ${owner} to its EXPOSES, or move the "
                        "include into a source file")
        endif()
      endif()
      if(NOT problem STREQUAL "")
        line_number(${file} "${line}" n)
        string(STRIP "${line}" shown)
        string(APPEND errors "  ${file}:${n}: ${shown}: ${problem}\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(NOT errors STREQUAL "")
  file(REMOVE ${STAMP})
  message(FATAL_ERROR "wrong-direction includes (allowed layers: the cvmcheck_layer and "
                      "cvmcheck_programs table in CMakeLists.txt):\n${errors}")
endif()
file(TOUCH ${STAMP})
