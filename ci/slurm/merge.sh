#!/usr/bin/env bash
# shellcheck disable=SC2154  # root, cvmcheck, commit, store, ...: from night.env, campaign.env
# The batch script of a night's last job (ci/slurm/night.sh submits it after every campaign and
# fuzz task, whatever their end: afterany), the one job that writes the findings store:
#   1. each campaign's reports, every run of every shard, merged into
#      NIGHT/campaigns/NAME/merged (campaign.json, junit.xml, table.txt) by `cvmcheck merge`,
#      which records the campaign in the store as one run;
#   2. the fuzz tasks' crashes: one repro per finding signature, recorded in the store
#      (ci/fuzz-record.sh; NIGHT/fuzz/findings.md);
#   3. the new findings bisected (ci/nightly-bisect.sh, NIGHT/bisect.txt), each culprit recorded
#      in the store;
#   4. the night's page, NIGHT/report.html (the main campaign, the store, the earlier nights as
#      history), and NIGHT/campaigns/NAME/report.html for each other campaign.
# Exit status (also in NIGHT/merge.status), the worst of the campaigns': 2 when a campaign's
# reports could not be merged or a shard is lacking (the shards there are still recorded), else 1
# when a campaign mismatched, else 5 when a shard's last run was stopped by a signal and not
# requeued (the time limit's), else 0.
# Usage: merge.sh NIGHT
set -uo pipefail
night=${1:?usage: merge.sh NIGHT}
# shellcheck source=/dev/null
source "$night/night.env"
cd "$root" || exit 2
status=0
rank() { case "$1" in 0) echo 0 ;; 5) echo 1 ;; 1) echo 2 ;; *) echo 3 ;; esac; }
worse() { [ "$(rank "$1")" -le "$(rank "$status")" ] || status=$1; }
trap 'echo "$status" >"$night/merge.status"' EXIT

# The one merge of a campaign's reports: the shards' runs joined (a stopped run and the run that
# resumed it count each call once), DIR/campaign.json and junit.xml, the table, one run in the
# store, the campaign's exit status; 2 for reports that are not shards of one campaign or, with
# --expect-shards, a shard lacking.
merge_reports() {  # OUT [--expect-shards N] REPORT_DIR...
  local out=$1
  shift
  "$cvmcheck" merge --report "$out" --store "$store" --commit "$commit" "$@"
}

merge_campaign() {  # NAME: every report of the campaign, merged and recorded
  local dir="$night/campaigns/$1" reports merged=0
  # shellcheck source=/dev/null
  source "$dir/campaign.env"
  mapfile -t reports < <(find "$dir" -mindepth 3 -maxdepth 3 -name campaign.json \
    -path '*/shard-*/attempt-*' -printf '%h\n' | sort -V)
  echo "== campaign $1: ${#reports[@]} reports of $shards shards"
  if [ ${#reports[@]} -eq 0 ]; then
    echo "campaign $1: no shard left a report (their logs: $night/logs/$1-*.out)"
    worse 2
    return
  fi
  mkdir -p "$dir/merged"
  merge_reports "$dir/merged" --expect-shards "$shards" "${reports[@]}" >"$dir/merged/table.txt" ||
    merged=$?
  if [ "$merged" = 2 ]; then
    # A shard lacking: the night's calls are recorded all the same, and the night fails.
    merge_reports "$dir/merged" "${reports[@]}" >"$dir/merged/table.txt" || true
  fi
  cat "$dir/merged/table.txt"
  worse "$merged"
}

for dir in "$night"/campaigns/*/; do merge_campaign "$(basename "$dir")"; done

if [ -s "$night/fuzz/targets.txt" ]; then
  echo "== fuzz: $(wc -l <"$night/fuzz/targets.txt") targets"
  cat "$night"/logs/fuzz-*.out 2>/dev/null | grep '^fuzz_' || true
  bash ci/fuzz-record.sh "$night/fuzz/artifacts" "$night/fuzz/repros" "$store" \
    "$night/fuzz/findings.md" "$fuzz_bin" "$cvmcheck"
fi

if [ "$bisect_seconds" -gt 0 ]; then
  echo "== bisect of the new findings ($bisect_seconds s)"
  bash ci/nightly-bisect.sh "$store" "$bisect_seconds" 2>&1 | tee "$night/bisect.txt"
fi

echo "== pages"
for dir in "$night"/campaigns/*/; do
  name=$(basename "$dir")
  [ -f "$dir/merged/campaign.json" ] || continue
  page=(--campaign "$dir/merged/campaign.json" --store "$store")
  if [ "$name" = main ]; then
    mkdir -p "$history"
    if compgen -G "$history/*.json" >/dev/null; then page+=(--history "$history"); fi
    "$cvmcheck" report "${page[@]}" --out "$night/report.html" >/dev/null || worse 2
    cp "$dir/merged/campaign.json" "$history/$(basename "$night")-campaign.json"
  else
    "$cvmcheck" report "${page[@]}" --out "$dir/report.html" >/dev/null || worse 2
  fi
done
echo "night $night: exit status $status; page file://$night/report.html"
exit "$status"
