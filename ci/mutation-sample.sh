#!/usr/bin/env bash
# CI: a fixed sample of kernel mutants (tools/mutate/ci-sample.txt, spread over the families)
# must each be killed by the cheap harness modes: the operator's unit tests (examples, nn paths,
# tests/mutation_kills_test.cc) first, then its RapidCheck properties (fixed seed) and golden
# replay. Fails if any sampled mutant survives. No fuzz build; the robustness tests (operator-wide,
# slow) are left to the nightly run.
# The scratch tree (build-mutate/tree, its own release build) is reused between runs, and its
# objects come from ccache when the release build has been compiled through it, so a run costs
# one object and two links per mutant.
# Usage: ci/mutation-sample.sh            (report: build-mutate/ci-sample.md)
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
start=$(date +%s)
python3 tools/mutate/test_catalogue.py 2>&1 | tail -1  # the mutant rules themselves
status=0
nice python3 tools/mutate/mutate.py --ids-file tools/mutate/ci-sample.txt \
  --modes unit,properties,golden --no-robustness --report-name ci-sample \
  --fail-on-survivor || status=$?
echo "mutation sample: $(( $(date +%s) - start )) s"
exit "$status"
