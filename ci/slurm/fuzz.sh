#!/usr/bin/env bash
# shellcheck disable=SC2154  # root, fuzz_bin, corpus, fuzz_seconds: from night.env
# The batch script of one fuzz task of a night (ci/slurm/night.sh submits them as a job array):
# fuzz.sh NIGHT; task I fuzzes the I-th target of NIGHT/fuzz/targets.txt.
#
# libFuzzer's fork mode (-fork = the task's CPUs, crashes kept and fuzzing on) runs on a copy of
# the shared corpus in node-local scratch, for the night's fuzz seconds less what earlier runs of
# the task used (NIGHT/fuzz/TARGET.seconds); then the new inputs are merged (-merge=1: only
# those adding coverage) into the shared corpus, CORPUS/TARGET. Crashes go to
# NIGHT/fuzz/artifacts/TARGET-*, which the night's merge job turns into findings: the store is
# written by that job alone. SIGTERM (scancel, requeue, preemption, the time limit's signal) is
# passed on to libFuzzer, and what it found so far is merged all the same.
set -euo pipefail
night=${1:?usage: fuzz.sh NIGHT}
i=${SLURM_ARRAY_TASK_ID:?fuzz.sh runs as a Slurm array task (ci/slurm/night.sh submits it)}
# shellcheck source=/dev/null
source "$night/night.env"
cd "$root"
target=$(sed -n "${i}p" "$night/fuzz/targets.txt")
[ -n "$target" ] || { echo "fuzz.sh: no target $i in $night/fuzz/targets.txt" >&2; exit 2; }
binary="$fuzz_bin/fuzz_$target"
log="$night/fuzz/$target.log"
used_file="$night/fuzz/$target.seconds"
work=$(mktemp -d "${TMPDIR:-/tmp}/cvmcheck-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$corpus/$target"
cp -r "$corpus/$target/." "$work/"
used=$(cat "$used_file" 2>/dev/null || echo 0)
left=$((fuzz_seconds - used))
echo "fuzz_$target on $(hostname), run ${SLURM_RESTART_COUNT:-0}: $left s of $fuzz_seconds"
if [ "$left" -gt 0 ]; then
  mapfile -t fuzz_flags < <(bash ci/fuzz-options.sh)
  start=$(date +%s)
  "$binary" -fork="${SLURM_CPUS_PER_TASK:-1}" -ignore_crashes=1 -max_total_time="$left" \
    "${fuzz_flags[@]}" -dict=fuzz/attrs.dict -artifact_prefix="$night/fuzz/artifacts/$target-" \
    "$work" >>"$log" 2>&1 &
  pid=$!
  trap 'kill -TERM "$pid" 2>/dev/null || true' TERM INT
  # A trapped signal ends `wait` early: wait again until libFuzzer has gone.
  while kill -0 "$pid" 2>/dev/null; do wait "$pid" || true; done
  trap - TERM INT
  echo $((used + $(date +%s) - start)) >"$used_file"
fi
"$binary" -merge=1 "$corpus/$target" "$work" >>"$log" 2>&1
echo "fuzz_$target: $(grep -c 'cvmcheck finding' "$log" || true) finding reports," \
  "$(find "$corpus/$target" -type f | wc -l) inputs in $corpus/$target"
