#!/usr/bin/env bash
# Nightly fuzzing: every target with libFuzzer's -fork across all cores for SECONDS each, new
# inputs merged back (minimized) into corpus/<target>/, findings deduplicated into a summary,
# then a source-based coverage report (llvm-cov HTML and a per-file summary) of reference/ and
# optimized/ from replaying the whole corpus through coverage-instrumented targets.
# Each distinct finding (by the signature `cvmcheck repro` prints, the campaign's) is recorded in
# the findings store (docs/nightly.md) as a run of kind fuzz.
# Outputs under reports/nightly-fuzz/. Usage: ci/fuzz-nightly.sh [SECONDS_PER_TARGET] [STORE]
# (STORE default reports/findings.sqlite, the campaign's default store).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1800}"
store="${2:-reports/findings.sqlite}"
jobs=$(nproc)
out=reports/nightly-fuzz
rm -rf "$out"
mkdir -p "$out/artifacts"
bash ci/build.sh release >/dev/null
source ci/fuzz-build.sh
mapfile -t targets < <(bash ci/fuzz-targets.sh)
mapfile -t fuzz_flags < <(bash ci/fuzz-options.sh)
summary="$out/findings.md"
echo "# Nightly fuzz findings ($(date -u +%F))" >"$summary"
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  "$fuzz_dir"/bin/fuzz_"$t" -fork="$jobs" -ignore_crashes=1 -max_total_time="$seconds" \
    "${fuzz_flags[@]}" -dict=fuzz/attrs.dict \
    -artifact_prefix="$out/artifacts/${t}-" "$work" "corpus/$t" >"$out/${t}.log" 2>&1 || true
  "$fuzz_dir"/bin/fuzz_"$t" -merge=1 "corpus/$t" "$work" >>"$out/${t}.log" 2>&1 || true
  rm -rf "$work"
  echo "fuzz_$t: $(grep -c 'cvmcheck finding' "$out/${t}.log" || true) finding reports" | tee -a "$summary"
done
# Deduplicate: one repro case per finding signature, each recorded in the store once.
bash ci/fuzz-record.sh "$out/artifacts" "$out/repros" "$store" "$summary" "$fuzz_dir/bin"

# Coverage of reference/ and optimized/ reached by the corpus.
bash ci/build.sh coverage >/dev/null
rm -rf "$out/profiles"
mkdir -p "$out/profiles"
for t in "${targets[@]}"; do
  LLVM_PROFILE_FILE="$out/profiles/${t}-%p.profraw" build-coverage/bin/fuzz_"$t" \
    -runs=0 "corpus/$t" >/dev/null 2>&1 || true
done
llvm-profdata merge -sparse "$out"/profiles/*.profraw -o "$out/coverage.profdata"
objects=()
for t in "${targets[@]}"; do objects+=(-object build-coverage/bin/fuzz_"$t"); done
llvm-cov report "${objects[@]:1}" -instr-profile="$out/coverage.profdata" \
  reference/ optimized/ infer/ >"$out/coverage-summary.txt"
llvm-cov show "${objects[@]:1}" -instr-profile="$out/coverage.profdata" -format=html \
  -output-dir="$out/coverage-html" reference/ optimized/ infer/
tail -1 "$out/coverage-summary.txt"
echo "summary: $summary; findings store: $store; coverage: $out/coverage-summary.txt, $out/coverage-html/index.html"
