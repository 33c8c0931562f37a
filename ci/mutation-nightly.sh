#!/usr/bin/env bash
# Nightly mutation testing: every mutant of the kernels (tools/mutate) through the cheap modes
# (unit, properties, golden), optionally every mode on every mutant and the fuzz mode, then the
# kill matrix into docs/mutation.md (the full per-mutant table stays in build-mutate/).
# Usage: ci/mutation-nightly.sh [--all-modes] [--fuzz] [any tools/mutate/mutate.py option]
#   e.g. ci/mutation-nightly.sh --files optimized/reduce.cc --all-modes
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_CXX_COMPILER_LAUNCHER=ccache
status=0
nice python3 tools/mutate/mutate.py --out build-mutate --report-name nightly "$@" || status=$?
python3 tools/mutate/summary.py build-mutate/nightly.json docs/mutation.md
exit "$status"
