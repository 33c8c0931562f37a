# Writes a text file into a C++ header as one raw string literal: included with IN, OUT and NAME
# set (CMakeLists.txt does so at configure time), or run as
#   cmake -DIN=FILE -DOUT=HEADER -DNAME=kIdentifier -P cmake/embed_text.cmake
# (the report page's template: tools/cvmcheck/report_page.html, docs/report.md).
file(READ "${IN}" text)
set(delimiter "cvmembed")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} holds the raw string's delimiter )${delimiter}\"")
endif()
file(WRITE "${OUT}.tmp"
     "// Generated from ${IN} by cmake/embed_text.cmake; do not edit.\n#pragma once\n"
     "inline constexpr char ${NAME}[] = R\"${delimiter}(${text})${delimiter}\";\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
