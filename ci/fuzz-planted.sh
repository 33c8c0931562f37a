#!/usr/bin/env bash
# Proof that the fuzz smoke run can fail: for each planted-bug backend (harness/planted/planted.h) the
# fuzz target of its operator's family, run with the bug registered (CVMCHECK_PLANTED), must
# report a finding within its time budget. Passes when every planted bug is found.
# Usage: ci/fuzz-planted.sh [SECONDS_PER_BUG]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
source ci/fuzz-build.sh
# backend:target (the family fuzz target of the buggy operator). Not planted-sum-duplicate-axis-
# wrong-rule: a fuzz input is a free-form call, judged by class only (docs/contract.md, "Rule ids").
bugs=(planted-max-clamps-at-zero:reduce planted-sum-error-class-swapped:reduce
      planted-right-shift-ties-to-zero:elementwise planted-clip-upper-bound-off-by-one:elementwise
      planted-broadcast-add-precision-too-small:broadcast)
mapfile -t fuzz_flags < <(bash ci/fuzz-options.sh)
mkdir -p reports/fuzz-planted
status=0
# prove LABEL TARGET LOG VAR=VALUE TIMEOUT: the target, with the bug selected by the environment
# assignment, must report a finding within the budget (TIMEOUT: libFuzzer's per-input limit).
prove() {
  local label="$1" target="$2" log="$3" setting="$4" timeout="$5" work start
  work=$(mktemp -d)
  start=$(date +%s)
  if env "$setting" "$fuzz_dir"/bin/fuzz_"$target" "${fuzz_flags[@]}" -max_total_time="$seconds" -timeout="$timeout" \
      -dict=fuzz/attrs.dict -artifact_prefix="$work/" "$work" "corpus/$target" >"$log" 2>&1; then
    echo "$label: NOT FOUND by fuzz_$target in ${seconds}s"
    status=1
  elif grep -q "cvmcheck finding" "$log"; then
    echo "$label: found by fuzz_$target after $(( $(date +%s) - start ))s"
  else
    echo "$label: fuzz_$target failed for another reason (see $log)"
    status=1
  fi
  rm -rf "$work"
}
for entry in "${bugs[@]}"; do
  bug="${entry%%:*}"
  prove "$bug" "${entry##*:}" "reports/fuzz-planted/${bug}.log" "CVMCHECK_PLANTED=$bug" 10
done
# The same through the worker protocol: the planted broken worker (planted_workers/) in front of
# the reference, fuzzed as an external backend (CVMCHECK_WORKER), must be found too, as a wrong
# value and as a crash.
workers=("wrong-value:elementwise" "crash --on-call 200:reduce")
reference_worker="$PWD/$fuzz_dir/bin/cvmcheck worker --backend reference"
for entry in "${workers[@]}"; do
  mode="${entry%%:*}"
  prove "worker $mode" "${entry##*:}" "reports/fuzz-planted/worker-${mode%% *}.log" \
    "CVMCHECK_WORKER=$PWD/$fuzz_dir/bin/broken_worker $mode -- $reference_worker" 30
done
exit "$status"
