#!/usr/bin/env python3
"""What the dispatch variants add: before/after kill rates of one mutation run.

The run must have used the modes in this order, stopping at the first kill:

  --modes unit,golden,properties-base,campaign-base,properties,campaign

The first four are the killers as they were before optimized/variants.cc (the same tests, the
properties and the campaign on the base backend only); the last two add the variants
(optimized/avx2, optimized/portable, optimized@3, ...). A mutant is killed "before" when one of
the first four killed it, and "after" when any mode did. A mutant that a -base mode killed never
reached properties or campaign; its "after" verdict rests on their comparing a superset of the
backends on the same calls (same seed); re-run such mutants with --modes properties,campaign
to check it.

A run with --all-modes may use any of these modes (say only properties-base, campaign-base,
properties, campaign: what the backend-driven killers catch without the path tests); each mode's
own verdict is read then.

  python3 tools/mutate/variants_gain.py build-mutate/isa-paths/isa_paths.json [--markdown]
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import equivalents  # noqa: E402

BEFORE = ("unit", "golden", "properties-base", "campaign-base")
AFTER = BEFORE + ("properties", "campaign")


def verdicts(results, equivalent, all_modes=False):
    """(rows, counts): per mutant (id, before, after, killed_by), and the counts per side."""
    rows = []
    for r in results:
        if r["status"] == "equivalent" or r["id"] in equivalent:
            before = after = "equivalent"
        elif r["status"] in ("build-failed", "no-device"):
            before = after = r["status"]
        elif all_modes and r["status"] == "killed":
            before = "killed" if any(m in BEFORE for m in r["killed_by"]) else "survived"
            after = "killed"
        elif r["status"] == "killed":
            first = r["killed_by"][0]
            before = "killed" if first in BEFORE else "survived"
            after = "killed" if first in AFTER else "survived"
        else:  # survived or timeout: no mode killed it
            before = after = r["status"]
        rows.append((r["id"], before, after, ",".join(r["killed_by"])))
    counts = {}
    for side, index in (("before", 1), ("after", 2)):
        c = {}
        for row in rows:
            c[row[index]] = c.get(row[index], 0) + 1
        counts[side] = c
    return rows, counts


def score(c):
    killed = c.get("killed", 0)
    live = killed + c.get("survived", 0) + c.get("timeout", 0)
    return killed, live, (100.0 * killed / live if live else 0.0)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("report", help="mutate.py's JSON report")
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = p.parse_args()
    with open(args.report) as f:
        data = json.load(f)
    modes = data["run"]["modes"]
    all_modes = bool(data["run"].get("all_modes"))
    if not all_modes and tuple(modes) != AFTER:
        sys.exit(f"the run's modes are {modes}; this needs {','.join(AFTER)} (or --all-modes)")
    if all_modes and not set(modes) <= set(AFTER):
        sys.exit(f"the run's modes are {modes}; only {','.join(AFTER)} have a before/after")
    equivalent = equivalents.load(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "equivalent.txt"))
    rows, counts = verdicts(data["mutants"], equivalent, all_modes)
    for side in ("before", "after"):
        c = counts[side]
        killed, live, pct = score(c)
        line = (f"{side}: {killed}/{live} = {pct:.1f}% of the non-equivalent mutants killed "
                f"({', '.join(f'{k} {v}' for k, v in sorted(c.items()))}; {len(rows)} mutants)")
        print(("- " if args.markdown else "") + line)
    changed = [r for r in rows if r[1] != r[2]]
    if changed:
        print("killed only with the variants:" if not args.markdown else "\nKilled only with the variants:\n")
        for r in changed:
            print(f"  {r[0]} (by {r[3]})" if not args.markdown else f"- `{r[0]}` (by {r[3]})")
    left = [r for r in rows if r[2] in ("survived", "timeout")]
    if left:
        print("not killed after:" if not args.markdown else "\nNot killed with the variants:\n")
        for r in left:
            print(f"  {r[0]} ({r[2]})" if not args.markdown else f"- `{r[0]}` ({r[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
