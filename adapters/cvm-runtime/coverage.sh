#!/usr/bin/env bash
# Line coverage (gcov) of the original's model loader and executor (src/runtime/graph_runtime.cc,
# src/runtime/infer_attr.cc, src/core/model.cc) reached by the cvm-runtime worker: by its calls (a
# campaign, one one-operator model per call) against by whole models (cvmcheck graphs), each for
# the same time on the same device.
#
#   bash adapters/cvm-runtime/coverage.sh CVM_RUNTIME_DIR COV_BUILD_DIR CVMCHECK [SECONDS] [DEVICE]
#
# COV_BUILD_DIR is built first, with --coverage (CVM_RUNTIME_CXXFLAGS=--coverage build.sh; nothing to
# redo when it is up to date but the worker). The worker's forked children write their counters before _exit (worker.cc).
# Prints one line per phase and file: "calls|graphs FILE: Lines executed:P% of N".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "${1:?usage: coverage.sh CVM_RUNTIME_DIR COV_BUILD_DIR CVMCHECK [SECONDS] [DEVICE]}" && pwd)"
out="${2:?COV_BUILD_DIR}"
cvmcheck="${3:?CVMCHECK}"
seconds="${4:-60}"
device="${5:-formal}"
CVM_RUNTIME_CXXFLAGS=--coverage bash "$here/build.sh" "$src" "$out" >/dev/null
objs="$out/runtime/CMakeFiles/cvm_runtime.dir/src"
files=(runtime/graph_runtime.cc runtime/infer_attr.cc core/model.cc)
worker="exec:$out/bin/cvm-runtime-worker --device $device"

report() {
  for f in "${files[@]}"; do
    line=$(cd "$objs/$(dirname "$f")" && gcov -n -o "$objs/$f.o" "$src/src/$f" 2>/dev/null |
           awk -v f="$src/src/$f" 'index($0, "File '"'"'" f "'"'"'") {hit=1; next} hit && /Lines executed/ {print; exit}' ||
           true)
    echo "$1 $f: ${line:-no data}"
  done
}

find "$objs" -name '*.gcda' -delete
"$cvmcheck" campaign --backends "$worker" --seconds "$seconds" --seed 1 --call-timeout 20 \
  >/dev/null 2>&1 || true
report calls
find "$objs" -name '*.gcda' -delete
"$cvmcheck" graphs --backends "$worker" --seconds "$seconds" --seed 1 >/dev/null 2>&1 || true
report graphs
