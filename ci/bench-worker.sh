#!/usr/bin/env bash
# The worker protocol's cost: campaign calls/s with optimized in process vs the same backend
# served by `cvmcheck worker` over the protocol (exec:), on the same seed and call mix,
# repetitions interleaved, one campaign process (CVMCHECK_BENCH_JOBS to change).
# Usage: ci/bench-worker.sh [SECONDS] [REPETITIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
reps=${2:-3}
jobs=${CVMCHECK_BENCH_JOBS:-1}  # one campaign process: the worker takes the other core
bin=build/bin/cvmcheck
[ -x "$bin" ] || { echo "build first: bash ci/build.sh release" >&2; exit 2; }
rate() {  # calls/s from the table's summary line
  "$bin" campaign --seed 1 --seconds "$seconds" --jobs "$jobs" --quiet --max-repros 0 "$@" 2>/dev/null |
    sed -n 's/^calls [0-9]* in [0-9.]* s (\([0-9]*\) calls\/s).*/\1/p'
}
in_sum=0 ex_sum=0
for ((r = 1; r <= reps; r++)); do
  a=$(rate --backends optimized)
  b=$(rate --backend "exec:$PWD/$bin worker --backend optimized")
  echo "repetition $r: in process $a calls/s, through the worker $b calls/s"
  in_sum=$((in_sum + a)) ex_sum=$((ex_sum + b))
done
echo "mean: in process $((in_sum / reps)), worker $((ex_sum / reps)) calls/s;" \
  "ratio $(awk -v a="$ex_sum" -v b="$in_sum" 'BEGIN { printf "%.2f\n", a / b }')"
