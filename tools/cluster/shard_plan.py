#!/usr/bin/env python3
"""What the next run of a night's campaign shard does (ci/slurm/shard.sh, docs/nightly.md "On a
cluster"). Each run of a Slurm task (the first, then one per requeue) writes its report to
SHARD_DIR/attempt-R/campaign.json; the reports of a shard's runs form a chain, each run going on
(--resume-from) from where the report before it stopped, so that together they hold each call
of the shard once.

  shard_plan.py SHARD_DIR SECONDS      prints one line, tab-separated:
      fresh  SECONDS                   no report yet: start the shard;
      resume REPORT SECONDS_LEFT       the last report stopped early (a signal): go on from it
                                       for the seconds the chain has not used;
      done                             the last report ended by itself (time, max_cases), or
                                       its time is used up: nothing is left to do.
  shard_plan.py --check SHARD_DIR      checks the chain (each report starts where the one before
                                       it stopped); exit 1 with the reason when it does not.

A run killed without a report (SIGKILL, a node lost) leaves only its folder: its calls are made
again from the last report, so nothing is lost and nothing is counted twice.
"""

import argparse
import json
import os
import re
import sys

MIN_SECONDS = 1.0  # a time box shorter than this makes no call worth a run


def reports(shard_dir):
    """The shard's reports in the order of their runs: [(attempt, path, json)]; a run without a
    readable campaign.json (killed before it wrote one) is left out."""
    found = []
    for name in os.listdir(shard_dir) if os.path.isdir(shard_dir) else []:
        m = re.fullmatch(r"attempt-(\d+)", name)
        path = os.path.join(shard_dir, name, "campaign.json")
        if not m or not os.path.isfile(path):
            continue
        try:
            with open(path) as f:
                found.append((int(m.group(1)), path, json.load(f)))
        except (OSError, ValueError):
            continue
    return sorted(found, key=lambda r: r[0])


def stopped_by_signal(report):
    return report.get("run", {}).get("stopped", "").startswith("signal:")


def plan(shard_dir, seconds):
    """("fresh", seconds) | ("resume", report path, seconds left) | ("done",)."""
    chain = reports(shard_dir)
    if not chain:
        return ("fresh", seconds)
    _, path, last = chain[-1]
    left = seconds - sum(r.get("seconds", 0.0) for _, _, r in chain)
    if not stopped_by_signal(last) or left < MIN_SECONDS:
        return ("done",)
    return ("resume", path, left)


def chain_problem(shard_dir):
    """None, or why the shard's reports do not hold each of its calls once."""
    chain = reports(shard_dir)
    if not chain:
        return f"{shard_dir}: no report"
    before = ""
    for attempt, path, r in chain:
        started = r.get("run", {}).get("resumed_from", "")
        if started != before:
            return (f"{path}: run {attempt} started at {started or 'the first call'}, not "
                    f"where the run before it stopped ({before or 'the first call'})")
        before = r.get("resume_state", "")
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="check the chain of reports")
    p.add_argument("shard_dir")
    p.add_argument("seconds", nargs="?", type=float, help="the shard's time box")
    args = p.parse_args(argv)
    if args.check:
        problem = chain_problem(args.shard_dir)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        return 0
    if args.seconds is None:
        p.error("SECONDS is needed (the shard's time box)")
    print("\t".join(f"{x:.1f}" if isinstance(x, float) else x
                    for x in plan(args.shard_dir, args.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
