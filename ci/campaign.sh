#!/usr/bin/env bash
# The README's main job: installs what is missing, builds the release preset's `cvmcheck` (the
# one binary the campaign, the MRT check and the page need; ci/test.sh builds the rest; its
# progress on stderr, its output in build-logs/release.log: ci/build.sh), and runs a
# time-boxed differential campaign over every operator and backend (default 30 s), writing
# the conformance table to stdout and JSON + JUnit XML under reports/campaign/.
# Then every MRT quantization expansion against its direct formula on every backend
# (`cvmcheck mrt`, MRT_SECONDS, default 10 s). Exit 1 if either finds a mismatch.
# Last, the run's page (`cvmcheck report`, docs/report.md): reports/campaign/report.html, with
# the earlier runs kept in reports/history/ (the last HISTORY_RUNS, default 30) as its history;
# its path is the last line printed. Every run is kept in the findings store
# reports/findings.sqlite (docs/nightly.md): the campaign's last lines say what is new since the
# last run, still open and fixed (`cvmcheck findings list` for the whole history), and the page
# shows each finding's life from it.
# Extra arguments go to `cvmcheck campaign` (e.g. --seconds 300 --seed 42 --ops conv2d,dense,
# --table full for one row per operator and backend).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh release cvmcheck
args=("$@")
[[ " ${args[*]:-} " == *" --seconds "* ]] || args=(--seconds 30 "${args[@]}")
[[ " ${args[*]:-} " == *" --report "* ]] || args=(--report reports/campaign "${args[@]}")
[[ " ${args[*]:-} " == *" --store"* ]] || args=(--store reports/findings.sqlite "${args[@]}")
report=reports/campaign
store=reports/findings.sqlite  # also what a bare --store means
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --report) report="${args[i + 1]:-$report}" ;;
    --store) [[ "${args[i + 1]:---}" == -* ]] || store="${args[i + 1]}" ;;
    --store=*) store="${args[i]#--store=}" ;;
  esac
done
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]] || commit="$commit+changes"
rm -f "$report/campaign.json" "$report/mrt.json"
status=0
build/bin/cvmcheck campaign --commit "$commit" "${args[@]}" || status=$?
echo
echo "== MRT expansions (the MRT formalization) against their direct formulas"
mkdir -p "$report"
build/bin/cvmcheck mrt --seconds "${MRT_SECONDS:-10}" --backend all --json "$report/mrt.json" ||
  status=1
if [[ -f "$report/campaign.json" ]]; then
  history=reports/history
  mkdir -p "$history"
  page_args=(--campaign "$report/campaign.json" --out "$report/report.html")
  [[ -f "$report/mrt.json" ]] && page_args+=(--mrt "$report/mrt.json")
  # Each finding's life and the runs' history, as the store keeps them.
  [[ -f "$store" ]] && page_args+=(--store "$store")
  # The earlier runs first, then this one joins them for the next run's page.
  if compgen -G "$history/*.json" >/dev/null; then page_args+=(--history "$history"); fi
  build/bin/cvmcheck report "${page_args[@]}" >/dev/null || status=1
  cp "$report/campaign.json" "$history/$(date -u +%Y%m%dT%H%M%SZ)-campaign.json"
  mapfile -t old < <(printf '%s\n' "$history"/*.json | sort | head -n "-${HISTORY_RUNS:-30}")
  [[ ${#old[@]} -eq 0 ]] || rm -f "${old[@]}"
  echo
  echo "report page: file://$(cd "$(dirname "$report/report.html")" && pwd)/report.html"
fi
exit "$status"
