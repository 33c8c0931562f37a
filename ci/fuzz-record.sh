#!/usr/bin/env bash
# The fuzz artifacts of a night as findings: one repro case per finding signature (the
# campaign's, as `cvmcheck repro` prints it), each recorded in the findings store once as a run
# of kind fuzz; the summary gets a section per distinct finding and the count. An input of a
# target that fuzzes no operator call (worker_reply: a codec input) has no case: the input is
# its repro. Artifacts are named TARGET-..., as libFuzzer's -artifact_prefix=DIR/TARGET- makes
# them. Used by ci/fuzz-nightly.sh and the merge job of a Slurm night (ci/slurm/merge.sh).
# Usage: ci/fuzz-record.sh ARTIFACT_DIR REPRO_DIR STORE SUMMARY FUZZ_BIN_DIR [CVMCHECK]
set -euo pipefail
artifacts=$1 repros=$2 store=$3 summary=$4 fuzz_bin=$5
cvmcheck=${6:-build/bin/cvmcheck}
here=$(cd "$(dirname "$0")/.." && pwd)
mapfile -t operator_targets < <(bash "$here/ci/fuzz-targets.sh" --operators)
declare -A seen
distinct=0
for artifact in "$artifacts"/*; do
  [ -f "$artifact" ] || continue
  t=$(basename "$artifact" | cut -d- -f1)
  if [[ " ${operator_targets[*]} " != *" $t "* ]]; then
    distinct=$((distinct + 1))
    { echo; echo "## $(basename "$artifact") (replay: $fuzz_bin/fuzz_$t $artifact)"; } >>"$summary"
    continue
  fi
  case_dir="$repros/$(basename "$artifact")"
  repro=("$cvmcheck" repro "$artifact" --target "$t" --out "$case_dir")
  report=$("${repro[@]}" 2>&1 || true)
  key=$(echo "$report" | sed -n 's/^signature: //p' | head -1)
  # An input that decodes to no call or passes on replay has no signature: kept apart by its text.
  case "$key" in
    "" | none*) key="unsigned $(echo "$report" | grep -E "^call:|first difference|reference:" |
                 sed -E 's/attrs=.*//' | md5sum | cut -c1-12)" ;;
  esac
  if [ -n "${seen[$key]:-}" ]; then rm -rf "$case_dir"; continue; fi
  seen[$key]=1
  distinct=$((distinct + 1))
  if [[ "$key" != unsigned* ]]; then
    "${repro[@]}" --store "$store" 2>&1 | grep -E "^findings store|^  (new|regressed) " || true
  fi
  { echo; echo "## $(basename "$artifact")"; echo '```'; echo "$report" | head -20; echo '```'; } \
    >>"$summary"
done
echo "distinct findings: $distinct" | tee -a "$summary"
