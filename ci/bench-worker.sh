#!/usr/bin/env bash
# The worker protocol's cost: campaign calls/s with optimized in process vs the same backend
# served by `cvmcheck worker` over the protocol (exec:), on the same seed and call mix,
# repetitions interleaved, in two set-ups: one campaign process (the worker has the other core,
# so the harness polls for replies: --worker-spin-us 100), and one job per core (--jobs 2, each
# job with its own worker, no polling: every core is busy).
# Usage: ci/bench-worker.sh [SECONDS] [REPETITIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
reps=${2:-3}
bin=build/bin/cvmcheck
[ -x "$bin" ] || { echo "build first: bash ci/build.sh release" >&2; exit 2; }
worker="exec:$PWD/$bin worker --backend optimized"
rate() {  # JOBS ARGS...: calls/s from the table's summary line
  local jobs=$1
  shift
  "$bin" campaign --seed 1 --seconds "$seconds" --jobs "$jobs" --quiet --max-repros 0 "$@" \
    2>/dev/null | sed -n 's/^calls [0-9]* in [0-9.]* s (\([0-9]*\) calls\/s).*/\1/p'
}
declare -A sum
for ((r = 1; r <= reps; r++)); do
  a=$(rate 1 --backends optimized)
  b=$(rate 1 --backend "$worker" --worker-spin-us 100)
  c=$(rate 2 --backends optimized)
  d=$(rate 2 --backend "$worker")
  echo "repetition $r: one process: in process $a, worker $b calls/s;" \
    "--jobs 2: in process $c, worker $d calls/s"
  sum[a]=$((${sum[a]:-0} + a)) sum[b]=$((${sum[b]:-0} + b))
  sum[c]=$((${sum[c]:-0} + c)) sum[d]=$((${sum[d]:-0} + d))
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "mean, one process: in process $((sum[a] / reps)), worker $((sum[b] / reps)) calls/s;" \
  "ratio $(ratio "${sum[b]}" "${sum[a]}")"
echo "mean, --jobs 2: in process $((sum[c] / reps)), worker $((sum[d] / reps)) calls/s;" \
  "ratio $(ratio "${sum[d]}" "${sum[c]}")"
