#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release). Installs dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash ci/setup.sh
# Through ccache, with paths relative to the checkout: the mutation runs' scratch tree
# (build-mutate/tree, ci/mutation-sample.sh) then reuses every object this build compiled.
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
