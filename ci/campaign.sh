#!/usr/bin/env bash
# The README's main job: installs what is missing, builds the release preset, and runs a
# time-boxed differential campaign over every operator and backend (default 30 s), writing
# the conformance table to stdout and JSON + JUnit XML under reports/campaign/.
# Then every MRT quantization expansion against its direct formula on every backend
# (`cvmcheck mrt`, MRT_SECONDS, default 10 s). Exit 1 if either finds a mismatch.
# Extra arguments go to `cvmcheck campaign` (e.g. --seconds 300 --seed 42 --ops conv2d,dense).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh release >/dev/null
args=("$@")
[[ " ${args[*]:-} " == *" --seconds "* ]] || args=(--seconds 30 "${args[@]}")
[[ " ${args[*]:-} " == *" --report "* ]] || args=(--report reports/campaign "${args[@]}")
status=0
build/bin/cvmcheck campaign "${args[@]}" || status=$?
echo
echo "== MRT expansions (the MRT formalization) against their direct formulas"
build/bin/cvmcheck mrt --seconds "${MRT_SECONDS:-10}" --backend all || status=1
exit "$status"
