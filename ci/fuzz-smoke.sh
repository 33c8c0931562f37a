#!/usr/bin/env bash
# PR smoke run: every fuzz target for a bounded time on a copy of its corpus (the checked-in
# corpus is read, never written). Fails on any finding: a backend disagreeing with the
# reference, a runtime_error from the reference, a crash, a leak or a sanitizer report.
# Findings are kept under reports/fuzz/ (libFuzzer artifacts); turn one into a case with
#   build/bin/cvmcheck repro reports/fuzz/<target>-crash-... --target <target> --out DIR
# The seed is fixed (CVMCHECK_FUZZ_SEED, default 1) so that a gate run is repeatable; the nightly
# campaign (ci/fuzz-nightly.sh) draws its seeds at random.
# Usage: ci/fuzz-smoke.sh [SECONDS_PER_TARGET] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift || true
source ci/fuzz-build.sh
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(bash ci/fuzz-targets.sh)
mapfile -t fuzz_flags < <(bash ci/fuzz-options.sh)
mkdir -p reports/fuzz
status=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  log="reports/fuzz/${t}.log"
  if "$fuzz_dir"/bin/fuzz_"$t" -max_total_time="$seconds" -seed="${CVMCHECK_FUZZ_SEED:-1}" \
      "${fuzz_flags[@]}" -dict=fuzz/attrs.dict -artifact_prefix="reports/fuzz/${t}-" \
      -print_final_stats=1 \
      "$work" "corpus/$t" >"$log" 2>&1; then
    execs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}')
    rate=$(grep -E "stat::average_exec_per_sec" "$log" | awk '{print $2}')
    cov=$(grep -E "^#[0-9]+.*DONE" "$log" | grep -oE "cov: [0-9]+" | tail -1)
    echo "fuzz_$t: ${seconds}s, ${execs:-?} execs, ${rate:-?} exec/s, ${cov:-cov: ?}, no finding"
  else
    echo "fuzz_$t: FINDING (see $log and reports/fuzz/${t}-*)"
    grep -A12 "cvmcheck finding\|ERROR: \(Address\|Leak\|libFuzzer\)\|runtime error" "$log" | head -30
    status=1
  fi
  rm -rf "$work"
done
exit "$status"
