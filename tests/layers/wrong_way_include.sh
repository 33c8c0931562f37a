#!/usr/bin/env bash
# The include check fails the build on a wrong-way include in either form: a scratch CMake
# project with two layers (low, and high built on it) and a program in no layer that uses low,
# declared with the project's own cmake/layers.cmake and cmake/check_layers.cmake, is built once
# clean, then once per bad include: low including high as "..." and as <...>, a header of high
# including low while high links low PRIVATE, the program including high (a layer it does not
# use), and low including the program's header. Each bad build must fail naming the file, the
# line and what it may not include.
#   bash tests/layers/wrong_way_include.sh SOURCE_DIR
set -euo pipefail
src="${1:?usage: wrong_way_include.sh SOURCE_DIR}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cmake" "$tmp/low" "$tmp/high" "$tmp/prog"
cp "$src/cmake/layers.cmake" "$src/cmake/check_layers.cmake" "$tmp/cmake/"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)

# $1: high's EXPOSES clause; then the files' lines: low.h, high.h, and prog.h (default: a
# header of the program that includes low).
project() {
  cat > "$tmp/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(layer_probe CXX)
include(cmake/layers.cmake)
cvmcheck_layer(low  FILES low/*.h low/*.cc)
cvmcheck_layer(high FILES high/*.h high/*.cc DEPENDS low $1)
cvmcheck_programs(prog FILES prog/*.h prog/*.cc USES low)
cvmcheck_layer_check()
target_include_directories(cvmcheck_low PUBLIC \${CMAKE_SOURCE_DIR})
add_executable(prog prog/prog.cc)
target_link_libraries(prog PRIVATE cvmcheck_low)
CMAKE
  printf '%s\n' "$2" > "$tmp/low/low.h"
  printf '#include "low/low.h"\nint low() { return 1; }\n' > "$tmp/low/low.cc"
  printf '%s\n' "$3" > "$tmp/high/high.h"
  printf '#include "high/high.h"\n#include "low/low.h"\nint high() { return low(); }\n' \
    > "$tmp/high/high.cc"
  printf '%s\n' "${4:-#pragma once
#include \"low/low.h\"}" > "$tmp/prog/prog.h"
  printf '#include "prog.h"\nint main() { return low() - 1; }\n' > "$tmp/prog/prog.cc"
}

build() {
  rm -rf "$tmp/build"
  cmake -S "$tmp" -B "$tmp/build" "${gen[@]}" >"$tmp/log" 2>&1 &&
    cmake --build "$tmp/build" >>"$tmp/log" 2>&1
}

fails=0
expect_fail() {  # $1: what, $2: text the failure must show
  if build; then
    echo "FAIL: $1: the build passed"; fails=$((fails + 1))
  elif ! grep -qF "$2" "$tmp/log"; then
    echo "FAIL: $1: the build failed without naming it ($2):"; cat "$tmp/log"; fails=$((fails + 1))
  else
    echo "ok: $1 fails the build"
  fi
}

project "EXPOSES low" '#pragma once
int low();' '#pragma once
#include <low/low.h>
int high();'
if build; then echo "ok: the clean probe builds"; else echo "FAIL: the clean probe:"; cat "$tmp/log"; exit 1; fi

project "EXPOSES low" '#pragma once
#include "high/high.h"
int low();' '#pragma once
int high();'
expect_fail 'low includes "high/high.h"' \
  "low/low.h:2: #include \"high/high.h\": layer 'low' may not include layer 'high'"

project "EXPOSES low" '#pragma once
#include <high/high.h>
int low();' '#pragma once
int high();'
expect_fail 'low includes <high/high.h>' \
  "low/low.h:2: #include <high/high.h>: layer 'low' may not include layer 'high'"

project "" '#pragma once
int low();' '#pragma once
#include <low/low.h>
int high();'
expect_fail 'a header of high includes low, linked PRIVATE' \
  "high/high.h:2: #include <low/low.h>: a header of layer 'high' includes layer 'low'"

project "EXPOSES low" '#pragma once
int low();' '#pragma once
int high();' '#pragma once
#include "high/high.h"
int low();'
expect_fail 'the program includes "high/high.h", a layer it does not use' \
  "prog/prog.h:2: #include \"high/high.h\": program 'prog' may not include layer 'high'"

project "EXPOSES low" '#pragma once
#include "prog/prog.h"
int low();' '#pragma once
int high();'
expect_fail 'low includes the program'"'"'s "prog/prog.h"' \
  "low/low.h:2: #include \"prog/prog.h\": prog/prog.h belongs to program 'prog', in no library layer"

exit $((fails > 0))
