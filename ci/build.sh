#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release). Installs dependencies first.
# Usage: ci/build.sh [PRESET [TARGET...]]: only those targets when named (the main job builds
# `cvmcheck` alone: ci/campaign.sh), else everything the preset builds.
# It says on stderr what it builds and about how long that takes, then how far it is (one
# updating line on a terminal, a line per tenth of the steps in a log: ci/build-progress.sh);
# CMake's and the compilers' output goes to build-logs/PRESET.log, whose path and failing lines
# it prints when the build fails. Nothing on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
targets=("${@:2}")
source ci/build-progress.sh
bash ci/setup.sh
# Through ccache, with paths relative to the checkout: the mutation runs' scratch tree
# (build-mutate/tree, ci/mutation-sample.sh) then reuses every object this build compiled.
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
# The figure for the release `cvmcheck` is docs/first-run.md's (a fresh 2-core machine, an empty
# compiler cache); the whole release preset compiles the tests, workers and benchmarks besides, over twice
# cvmcheck's compiles.
if [[ ${#targets[@]} -gt 0 ]]; then
  what="${targets[*]} ($preset preset)"
else
  what="every target of the $preset preset"
fi
if [[ $preset == release && "${targets[*]}" == cvmcheck ]]; then
  about="about 5 min on 2 cores from scratch"
else
  about="from scratch longer than the release cvmcheck alone (about 5 min on 2 cores)"
fi
log="build-logs/$preset.log"
mkdir -p build-logs
: >"$log"
start=$SECONDS
echo "ci/build.sh: building $what: $about, seconds when cached; log: $log" >&2
logged_build "ci/build.sh: configure" "$log" cmake --preset "$preset"
build=(cmake --build --preset "$preset")
[[ ${#targets[@]} -eq 0 ]] || build+=(--target "${targets[@]}")
logged_build "ci/build.sh" "$log" "${build[@]}"
warnings=$(grep -c ': warning: ' "$log" || true)
note=""
((warnings == 0)) || note="; $warnings compiler warnings in $log"
echo "ci/build.sh: built in $(build_elapsed $((SECONDS - start)))$note" >&2
