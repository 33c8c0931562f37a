#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release). Installs dependencies first.
# Usage: ci/build.sh [PRESET [TARGET...]]: only those targets when named (the main job builds
# `cvmcheck` alone: ci/campaign.sh), else everything the preset builds.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
targets=("${@:2}")
bash ci/setup.sh
# Through ccache, with paths relative to the checkout: the mutation runs' scratch tree
# (build-mutate/tree, ci/mutation-sample.sh) then reuses every object this build compiled.
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
cmake --preset "$preset" >/dev/null
if [[ ${#targets[@]} -gt 0 ]]; then
  cmake --build --preset "$preset" --target "${targets[@]}"
else
  cmake --build --preset "$preset"
fi
