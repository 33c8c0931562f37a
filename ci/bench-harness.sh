#!/usr/bin/env bash
# Harness throughput (docs/performance.md, "Harness throughput"): the same fixed campaign
# (--seed 1, every operator, the default backends, one process, no repros) run alternately with
# this tree's cvmcheck and, given BASE_REV, that revision's, R times each (interleaved, the order
# swapped every repetition); per run and as medians: calls/s, page faults per call, CPUs used and
# CPU microseconds per call (measured from outside with getrusage on the process and its
# children, so any revision can be measured); their ratio; for this tree the phase breakdown of
# `campaign --profile` (draw, each backend, compare, bookkeeping). When the two revisions differ in
# operators or backends, the comparison is also run on the ones both have. Then the --jobs scaling
# of this tree: --jobs 1 vs --jobs 2, interleaved.
#
# Usage: ci/bench-harness.sh [BASE_REV]
# Environment: RUN_SECONDS (time box per run, default 8), REPS (repetitions, default 3),
#   JOBS (the campaign's --jobs, default 1; 0: one per core, the main job's), BACKENDS (a
#   --backends list for both revisions, e.g. optimized,cuda-host; default: the default backends),
#   MAX_CASES (a fixed number of calls per run instead of the time box), SCALING (0: no --jobs
#   scaling line). Builds (release preset, cvmcheck target, through ccache): this tree into
#   build/, BASE_REV into build-bench-base/tree (a git worktree, reused). Results:
#   build-bench-harness/ (report.md, each run's output). On a shared machine the ratio of the
#   interleaved medians is what holds; the CPU used by other processes during the runs is reported.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
base_rev=${1:-}
run_seconds=${RUN_SECONDS:-8}
reps=${REPS:-3}
max_cases=${MAX_CASES:-}
out=build-bench-harness
mkdir -p "$out/run"
rm -f "$out"/*.txt "$out"/*.count "$out"/*.out "$out/report.md"

bash ci/setup.sh
if command -v ccache >/dev/null; then
  # Paths relative to this checkout, so the base tree under it reuses every unchanged object.
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
build() {  # build DIR: the release preset's cvmcheck in the checkout DIR
  (cd "$1" && cmake --preset release >/dev/null && nice cmake --build --preset release --target cvmcheck >/dev/null)
}
echo "building this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', with uncommitted changes'))"
build .
head_bin=$root/build/bin/cvmcheck
base_bin=
if [ -n "$base_rev" ]; then
  rev=$(git rev-parse --verify --quiet "$base_rev^{commit}") ||
    { echo "ci/bench-harness.sh: unknown revision '$base_rev'" >&2; exit 2; }
  tree=build-bench-base/tree
  if [ -e "$tree/.git" ]; then
    git -C "$tree" checkout -q --force --detach "$rev"
  else
    rm -rf "$tree"
    git worktree prune
    mkdir -p build-bench-base
    git worktree add -q --detach "$tree" "$rev"
  fi
  echo "building base $base_rev ($(git rev-parse --short "$rev")) in $tree"
  build "$tree"
  base_bin=$root/$tree/build/bin/cvmcheck
fi

supports() { "$1" campaign --help 2>/dev/null | grep -q -- "$2"; }
# The fixed campaign's arguments for binary $1 (options an older revision lacks are left out:
# before --jobs a campaign was one process; before --max-repros it wrote repros only on a mismatch).
fixed_args() {
  local a=(campaign --seed 1 --quiet)
  if [ -n "$max_cases" ]; then a+=(--max-cases "$max_cases" --seconds 100000); else a+=(--seconds "$run_seconds"); fi
  if supports "$1" --max-repros; then a+=(--max-repros 0); fi
  printf '%s\n' "${a[@]}"
}
jobs_arg() { if supports "$1" '--jobs'; then printf '%s\n' --jobs "$2"; fi; }

# measure OUT CMD...: runs CMD in $out/run with stdout to OUT; prints "wall user sys minflt
# majflt" of it and its waited-for children (getrusage through wait4).
measure() {
  (cd "$out/run" && python3 -c '
import os, subprocess, sys, time
with open(sys.argv[1], "w") as f:
    start = time.monotonic()
    p = subprocess.Popen(sys.argv[2:], stdout=f, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    print(f"{time.monotonic() - start:.3f} {ru.ru_utime:.3f} {ru.ru_stime:.3f} {ru.ru_minflt} {ru.ru_majflt}")
' "$root/$1" "${@:2}")
}

# run_once LABEL BIN ARGS...: one campaign; appends "calls/s page_faults/call CPUs_used
# CPU_us/call CPU_seconds" to $out/LABEL.txt and prints it.
run_once() {
  local label=$1 n
  n=$(($(cat "$out/$label.count" 2>/dev/null || echo 0) + 1))
  echo "$n" > "$out/$label.count"
  local file="$out/$label.$n.out" usage calls rate
  usage=$(measure "$file" "${@:2}")
  read -r calls rate < <(sed -n 's/^calls \([0-9]*\) in [0-9.]* s (\([0-9]*\) calls\/s).*/\1 \2/p' "$file")
  if [ -z "${rate:-}" ]; then
    echo "ci/bench-harness.sh: no summary line from: ${*:2}" >&2
    tail -5 "$file" >&2
    exit 1
  fi
  echo "$rate $calls $usage" | awk '{ printf "%d %.2f %.2f %.1f %.2f\n", $1, ($6 + $7) / $2,
    ($4 + $5) / $3, 1e6 * ($4 + $5) / $2, $4 + $5 }' | tee -a "$out/$label.txt"
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
  else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$out/$1.txt"; }
runs() { col "$1" 1 | paste -sd' ' | sed 's/ /, /g'; }
summary() {  # summary LABEL NAME: a Markdown row
  echo "| $2 | $(runs "$1") | $(col "$1" 1 | median) | $(col "$1" 2 | median) | $(col "$1" 3 | median) | $(col "$1" 4 | median) |"
}
ratio() { awk -v a="$(col "$1" 1 | median)" -v b="$(col "$2" 1 | median)" 'BEGIN { printf "%.3f", a / b }'; }

# compare LABEL_A BIN_A LABEL_B BIN_B EXTRA_ARGS_A -- EXTRA_ARGS_B: REPS interleaved runs each.
compare() {
  local la=$1 ba=$2 lb=$3 bb=$4 r
  shift 4
  local xa=() xb=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do xa+=("$1"); shift; done
  shift
  xb=("$@")
  local fa fb
  mapfile -t fa < <(fixed_args "$ba")
  mapfile -t fb < <(fixed_args "$bb")
  for ((r = 1; r <= reps; r++)); do
    if ((r % 2)); then
      printf '%s rep %d: %s\n' "$la" "$r" "$(run_once "$la" "$ba" "${fa[@]}" "${xa[@]}")"
      printf '%s rep %d: %s\n' "$lb" "$r" "$(run_once "$lb" "$bb" "${fb[@]}" "${xb[@]}")"
    else
      printf '%s rep %d: %s\n' "$lb" "$r" "$(run_once "$lb" "$bb" "${fb[@]}" "${xb[@]}")"
      printf '%s rep %d: %s\n' "$la" "$r" "$(run_once "$la" "$ba" "${fa[@]}" "${xa[@]}")"
    fi
  done
}

# The operators and backends a binary's campaign table lists (skipped-unavailable ones left out).
one_call() {  # the table of a one-call campaign (it lists every operator and backend)
  local j
  mapfile -t j < <(jobs_arg "$1" 1)
  "$1" campaign --seed 1 --max-cases 1 --seconds 600 --quiet "${j[@]}" 2>/dev/null || true
}
list_ops() { one_call "$1" | awk '/^calls /{ exit } NR > 1 { print $1 }' | sort -u; }
list_backends() {
  local text
  text=$(one_call "$1")
  comm -23 <(awk '/^calls /{ exit } NR > 1 && $2 != "reference" { print $2 }' <<< "$text" | sort -u) \
    <(sed -n 's/^skipped backend \([^:]*\):.*/\1/p' <<< "$text" | sort -u)
}

machine_busy() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8) / hz }' /proc/stat; }

what="seed 1, every operator, ${BACKENDS:-the default backends}, --jobs ${JOBS:-1}, no repros, $(
  if [ -n "$max_cases" ]; then echo "$max_cases calls"; else echo "$run_seconds s"; fi) per run, $reps interleaved repetitions"
echo "fixed campaign: $what"
jobs=${JOBS:-1}
backend_args=()
if [ -n "${BACKENDS:-}" ]; then backend_args=(--backends "$BACKENDS"); fi
mapfile -t head_jobs < <(jobs_arg "$head_bin" "$jobs")
head_jobs+=("${backend_args[@]}")
differ=
if [ -n "$base_bin" ]; then
  mapfile -t base_jobs < <(jobs_arg "$base_bin" "$jobs")
  base_jobs+=("${backend_args[@]}")
  head_ops=$(list_ops "$head_bin" | paste -sd,) base_ops=$(list_ops "$base_bin" | paste -sd,)
  head_backends=$(list_backends "$head_bin" | paste -sd,)
  base_backends=$(list_backends "$base_bin" | paste -sd,)
  common_ops=$(comm -12 <(tr , '\n' <<< "$head_ops") <(tr , '\n' <<< "$base_ops") | paste -sd,)
  common_backends=$(comm -12 <(tr , '\n' <<< "$head_backends") <(tr , '\n' <<< "$base_backends") |
    paste -sd,)
  if [ "$head_ops" != "$base_ops" ] || [ "$head_backends" != "$base_backends" ]; then differ=1; fi
  # Backends named for both: the comparison is on those already.
  if [ -n "${BACKENDS:-}" ]; then differ=; fi
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
busy_before=$(machine_busy)
start=$(date +%s.%N)
if [ -n "$base_bin" ]; then
  compare this "$head_bin" base "$base_bin" --profile "${head_jobs[@]}" -- "${base_jobs[@]}"
  if [ -n "$differ" ]; then
    echo "the revisions differ in operators or backends (this: $head_backends; base: $base_backends):" \
      "also on the common ones"
    compare this-common "$head_bin" base-common "$base_bin" "${head_jobs[@]}" --ops "$common_ops" \
      --backends "$common_backends" -- "${base_jobs[@]}" --ops "$common_ops" \
      --backends "$common_backends"
  fi
else
  mapfile -t fa < <(fixed_args "$head_bin")
  for ((r = 1; r <= reps; r++)); do
    printf 'this rep %d: %s\n' "$r" "$(run_once this "$head_bin" "${fa[@]}" --profile "${head_jobs[@]}")"
  done
fi
if [ "${SCALING:-1}" != 0 ]; then
  compare jobs1 "$head_bin" jobs2 "$head_bin" --jobs 1 --profile -- --jobs 2 --profile
fi
wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
busy_after=$(machine_busy)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
mine=$(cat "$out"/*.txt | awk '{ s += $5 } END { print s + 0 }')
others=$(awk -v b0="$busy_before" -v b1="$busy_after" -v m="$mine" -v w="$wall" -v n="$(nproc)" \
  'BEGIN { o = (b1 - b0) - m; if (o < 0) o = 0;
  printf "%.1f CPU-seconds (%.0f%% of the machine)", o, 100 * o / (w * n) }')

# This tree's phase breakdown: the profile of its median run (by calls/s).
median_run() {  # the number of LABEL's run with the median calls/s
  awk '{ print $1, NR }' "$out/$1.txt" | sort -g | awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }'
}
{
  echo "## Harness throughput: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) logical CPUs) |"
  echo "| this tree | $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + uncommitted changes') |"
  if [ -n "$base_bin" ]; then echo "| base | $base_rev ($(git rev-parse --short "$rev")) |"; fi
  echo "| campaign | $what |"
  echo "| load average (1, 5, 15 min) | before: $load_before; after: $load_after |"
  echo "| other processes during the ${wall} s of runs | $others |"
  echo
  echo "Page faults and CPU are the whole process's (getrusage, startup included); CPUs used ="
  echo "CPU time / wall time."
  echo
  echo "| binary | calls/s of each run | median calls/s | page faults/call | CPUs used | CPU us/call |"
  echo "|---|---|---|---|---|---|"
  summary this "this tree"
  if [ -n "$base_bin" ]; then
    summary base "base $base_rev"
    if [ -n "$differ" ]; then
      summary this-common "this tree, common operators and backends"
      summary base-common "base $base_rev, common operators and backends"
    fi
  fi
  if [ "${SCALING:-1}" != 0 ]; then
    summary jobs1 "this tree, --jobs 1"
    summary jobs2 "this tree, --jobs 2"
  fi
  echo
  if [ -n "$base_bin" ]; then
    echo "- this tree / base, median calls/s: **$(ratio this base)**"
    if [ -n "$differ" ]; then
      echo "- the revisions differ (this tree: $head_backends; base: $base_backends; operators:" \
        "$(tr , '\n' <<< "$head_ops" | wc -l) and $(tr , '\n' <<< "$base_ops" | wc -l)); on the" \
        "$(tr , '\n' <<< "$common_ops" | wc -l) common operators with --backends $common_backends:" \
        "**$(ratio this-common base-common)**"
    fi
  fi
  if [ "${SCALING:-1}" != 0 ]; then
    echo "- --jobs 2 / --jobs 1, median calls/s: **$(ratio jobs2 jobs1)** ($(nproc) logical CPUs)"
  fi
  echo
  echo "This tree's phases (\`campaign --profile\`, the median run of the first row):"
  echo
  echo '```'
  sed -n '/^profile of /,/^profile: /p' "$out/this.$(median_run this).out"
  echo '```'
  if [ "${SCALING:-1}" != 0 ]; then
    echo
    echo "With --jobs 2 (the median run; each phase summed over the two jobs):"
    echo
    echo '```'
    sed -n '/^profile of /,/^profile: /p' "$out/jobs2.$(median_run jobs2).out"
    echo '```'
  fi
} > "$out/report.md"
echo
cat "$out/report.md"
