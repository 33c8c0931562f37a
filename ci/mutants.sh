#!/usr/bin/env bash
# Random mutants judged by the main job's campaign alone (issue 34, docs/mutation-random.md): a
# seed draws N mutants over optimized/, cuda/ (as cuda-host runs it) and infer/, rule first then
# site; each is built incrementally through ccache in a scratch tree and judged
# by a campaign over every operator and the default backends for S seconds; survivors then meet
# their operators' unit tests. Progress a line per mutant; the report in
# build-mutate/random/random.json and random.md.
# Usage: ci/mutants.sh [--seed S] [-n N] [--seconds S] [any tools/mutate/random_mutants.py option]
#   --seed S     default: a new one each day, the UTC date as YYYYMMDD (printed)
#   -n N         mutants to draw (default 100)
#   --seconds S  campaign time box per mutant (default 20)
# Exit status 0 whatever the score (the nightly keeps the report); 2 when the unmutated tree
# fails to build or fails the campaign.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
seed="" n=100 seconds=20
args=()
while (($#)); do
  case "$1" in
    --seed) seed="$2"; shift 2 ;;
    -n) n="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[[ -n "$seed" ]] || seed=$(date -u +%Y%m%d)
echo "random mutants: seed $seed, $n mutants, ${seconds} s campaign each" \
  "(reproduce: ci/mutants.sh --seed $seed -n $n --seconds $seconds)"
# The operator list and rule names come from the release build's `cvmcheck ops --json`.
[[ -x build/bin/cvmcheck ]] || bash ci/build.sh release >/dev/null
python3 tools/mutate/test_catalogue.py 2>&1 | tail -1  # the mutant rules themselves
status=0
nice python3 tools/mutate/random_mutants.py --seed "$seed" -n "$n" --seconds "$seconds" \
  ${args[@]+"${args[@]}"} || status=2
exit "$status"
