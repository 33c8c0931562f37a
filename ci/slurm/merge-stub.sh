#!/usr/bin/env bash
# shellcheck disable=SC2154  # cvmcheck, store: from night.env
# STUB, sourced by ci/slurm/merge.sh while `cvmcheck merge` is not in the tree: the same
# interface, through tools/gate/campaign_merge.py and `cvmcheck findings record`. The Python
# merge refuses a shard given twice, so each run of a shard (a stopped run, the run that resumed
# it) goes in as a part of its own; the "shards" object is written as `cvmcheck merge` writes it.
# Delete this file once `cvmcheck merge` is merged: merge.sh then calls it.
merge_reports() {  # OUT [--expect-shards N] REPORT_DIR...
  local out=$1 expect=0 parts status=0
  shift
  if [ "$1" = --expect-shards ]; then expect=$2; shift 2; fi
  parts=$(mktemp -d)
  python3 - "$parts" "$@" <<'PY' || return 2
import json, os, sys
parts, runs = sys.argv[1], sys.argv[2:]
for i, run in enumerate(runs):
    with open(os.path.join(run, "campaign.json")) as f:
        r = json.load(f)
    k, n = r["shard"].split("/")
    r["shard"] = f"{k}.{i}/{n}"
    with open(os.path.join(parts, f"{i:05d}.json"), "w") as f:
        json.dump(r, f)
PY
  python3 tools/gate/campaign_merge.py --out "$out" "$parts"/*.json || status=$?
  rm -rf "$parts"
  [ "$status" != 2 ] || return 2
  python3 - "$out/campaign.json" "$expect" "$@" <<'PY' || return 2
import json, os, sys
path, expect, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
with open(path) as f:
    merged = json.load(f)
held, count = set(), 0
for run in runs:
    with open(os.path.join(run, "campaign.json")) as f:
        k, n = json.load(f)["shard"].split("/")
    held.add(int(k))
    count = int(n)
# `findings record` of this tree reads "shard" as K/N only (a seed's shards are one group there).
merged["shard"] = f"1/{count}"
merged["shards"] = {"count": count, "held": sorted(held),
                    "lacking": [k for k in range(1, count + 1) if k not in held], "partial": []}
with open(path, "w") as f:
    json.dump(merged, f, indent=2)
if expect and (expect != count or len(held) < count):
    print(f"merge stub: --expect-shards {expect}: shards {merged['shards']['lacking']} lacking",
          file=sys.stderr)
    sys.exit(1)
PY
  "$cvmcheck" findings record "$out/campaign.json" --store "$store"
  cat "$out/table.md"
  return "$status"
}
