#!/usr/bin/env bash
# Two small real runs for the browser tests (tests/browser/report.test.cjs), written into DIR:
#   base/campaign.json  optimized and a planted bug in max;
#   head/campaign.json  the same, plus cuda-host, a planted bug in cvm_clip (a new finding: the
#                       diff must list it) and a planted bug in sum listed as an expected failure;
#   mrt.json, golden.json, summary.md and head/report.html (the page under test, with base as
#   its history);
#   nothing/report.html  a run whose planted backend implements none of its operators;
#   store/findings.sqlite three runs of one backend "mine" into one findings store: the
#                       reference's worker, then the planted max bug's (a new finding), then the
#                       reference's again (fixed), with a culprit recorded as a bisect would;
#                       store/report.html the last run's page with --store.
# Usage: make-fixture.sh CVMCHECK_BINARY DIR
set -euo pipefail
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
export CVMCHECK_PLANTED=all
ops=max,cvm_clip,sum,broadcast_add,abs
common=(--ops "$ops" --seed 424242 --max-cases 600 --seconds 120 --shrink-seconds 0.5 --quiet
        --jobs 1 --allow-nothing-compared)
"$bin" campaign "${common[@]}" --report "$dir/base" --commit base0000 \
  --backends optimized,planted-max-clamps-at-zero >/dev/null || true
cat >"$dir/known.txt" <<'LIST'
# The planted sum bug, listed: the page shows it as an expected failure with this reason.
sum/*   [planted-sum] planted: sum raises runtime_error for bad inputs   docs/expected-failures.md
LIST
"$bin" campaign "${common[@]}" --report "$dir/head" --commit head1111 \
  --backends optimized,cuda-host,planted-max-clamps-at-zero,planted-clip-upper-bound-off-by-one,planted-sum-error-class-swapped \
  --xfail-for planted-sum-error-class-swapped="$dir/known.txt" >/dev/null || true
"$bin" mrt --cases 5 --seed 7 --backend all --jobs 1 --json "$dir/mrt.json" >/dev/null
here=$(cd "$(dirname "$0")/../.." && pwd)
"$bin" golden verify "$here/golden-mrt" --backend reference --jobs 1 --json "$dir/golden.json" \
  >/dev/null
printf '## cvmcheck gate: passed\n\n(a summary for the page test)\n' >"$dir/summary.md"
"$bin" report --campaign "$dir/head/campaign.json" --history "$dir/base/campaign.json" \
  --mrt "$dir/mrt.json" --golden "$dir/golden.json" --gate "$dir/summary.md" \
  --out "$dir/head/report.html" >/dev/null
"$bin" campaign --ops abs --seed 7 --max-cases 20 --quiet --jobs 1 --allow-nothing-compared \
  --report "$dir/nothing" --backends planted-max-clamps-at-zero >/dev/null
"$bin" report --campaign "$dir/nothing/campaign.json" >/dev/null
store="$dir/store/findings.sqlite"
store_run() {  # NUMBER WORKER_BACKEND: one run of "mine", served by that backend's worker
  "$bin" campaign --ops max --seed 99 --max-cases 100 --seconds 120 --shrink-seconds 0 --quiet \
    --jobs 1 --backends mine --backend-def mine="$bin worker --backend $2" --store "$store" \
    --report "$dir/store/$1" --commit "store00$1" >/dev/null || true
}
store_run 1 reference
store_run 2 planted-max-clamps-at-zero
store_run 3 reference
signature=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["findings"][0]["signature"])' \
  "$dir/store/2/campaign.json")
"$bin" findings culprit "$signature" --store "$store" --introduced store002 --fixed store003 \
  --note "planted for the browser test" >/dev/null
"$bin" report --campaign "$dir/store/3/campaign.json" --store "$store" \
  --out "$dir/store/report.html" >/dev/null
