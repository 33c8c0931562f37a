#!/usr/bin/env bash
# Nightly mutation testing: every mutant of the kernels (tools/mutate) through the cheap modes
# (unit, properties, golden), the survivors then through the sanitize mode (the unit tests in an
# ASan+UBSan build: overruns that change no output), then the kill matrix into docs/mutation.md
# (the full per-mutant tables stay in build-mutate/).
# Usage: ci/mutation-nightly.sh [--jobs N] [--isa-paths] [any tools/mutate/mutate.py option]
#   --jobs N     N interleaved shards at once, each with its own scratch tree
#                (build-mutate/shard-K); one shard builds on one core, so N = cores
#   --isa-paths  afterwards, the mutants confined to the non-default dispatch paths
#                (tools/mutate/sets/isa_paths.txt) with and without the dispatch variants:
#                build-mutate/isa-paths/, before/after scores in build-mutate/isa-paths/gain.md
#                (docs/mutation.md, "Mutants confined to non-default dispatch paths")
#   e.g. ci/mutation-nightly.sh --jobs 2 --isa-paths
#        ci/mutation-nightly.sh --files optimized/reduce.cc --all-modes --fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
jobs=1
isa_paths=0
args=()
while (($#)); do
  case "$1" in
    --isa-paths) isa_paths=1; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
status=0
reports=()
pids=()
for ((k = 1; k <= jobs; k++)); do
  out="build-mutate/shard-$k"
  mkdir -p "$out"
  reports+=("$out/nightly.json")
  nice python3 tools/mutate/mutate.py --out "$out" --report-name nightly --sanitize \
    --shard "$k/$jobs" ${args[@]+"${args[@]}"} >"$out/progress.log" 2>&1 &
  pids+=($!)
done
echo "mutation nightly: $jobs shard(s); progress in build-mutate/shard-*/progress.log"
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
tail -n 3 build-mutate/shard-*/progress.log
python3 tools/mutate/summary.py --parallel "${reports[@]}" docs/mutation.md
if ((isa_paths)); then
  out=build-mutate/isa-paths
  mkdir -p "$out"
  nice python3 tools/mutate/mutate.py --set isa_paths --no-robustness --out "$out" \
    --report-name isa_paths --modes unit,golden,properties-base,campaign-base,properties,campaign \
    --campaign-cases 20000 --campaign-seconds 60 >"$out/progress.log" 2>&1 || status=$?
  python3 tools/mutate/variants_gain.py --markdown "$out/isa_paths.json" | tee "$out/gain.md"
fi
exit "$status"
