#!/usr/bin/env python3
"""The checks of a night on Slurm (ci/slurm.sh): what the night's folder and store must hold
after one of its shards was stopped in the middle and requeued.

  check_night.py NIGHT --shards N --store FILE --stopped-shard K --uninterrupted REPORT_DIR
                 [--planted BACKEND]

NIGHT is the night's folder (ci/slurm/night.sh), REPORT_DIR the report of the stopped shard's
calls made by one uninterrupted run (the same options, --max-cases bounding both). Checks:
  - the main campaign's merged report holds every shard, none lacking or partial;
  - the stopped shard has a run stopped by a signal and a run that went on from its report
    (run.resumed_from), and its runs together made exactly the uninterrupted run's calls:
    the same positions (calls and draws the generators gave up), the same counts in every cell
    of the table, the same findings with the same calls: nothing lost, nothing twice;
  - the merged report's calls are the sum of every shard's runs';
  - the planted backend's finding is in the merged report, with its call descriptor and a repro
    case directory;
  - the store holds one campaign run (the night's), and the page was built.
Prints one line per check; exit 1 when one fails.
"""

import argparse
import glob
import json
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shard_plan  # noqa: E402

CELL_COUNTS = ("cases", "ok", "logic_error", "runtime_error", "mismatches", "skipped", "expected")


def load(path):
    with open(path) as f:
        return json.load(f)


def positions(report):
    return report.get("calls", 0) + report.get("generator_failures", 0)


def summed_table(reports):
    table = {}
    for r in reports:
        for op, row in r.get("table", {}).items():
            for backend, cell in row.items():
                into = table.setdefault((op, backend), dict.fromkeys(CELL_COUNTS, 0))
                for k in CELL_COUNTS:
                    into[k] += cell.get(k, 0)
    return table


def finding_calls(reports):
    calls = {}
    for r in reports:
        for f in r.get("findings", []):
            calls[f["signature"]] = calls.get(f["signature"], 0) + f["calls"]
    return calls


class Checks:
    def __init__(self):
        self.failed = 0

    def check(self, ok, what, detail=""):
        print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else f": {detail}"))
        self.failed += 0 if ok else 1


def check_shards(c, merged, count):
    shards = merged.get("shards", {})
    c.check(shards.get("held") == list(range(1, count + 1)) and not shards.get("lacking")
            and not shards.get("partial"),
            f"the merged report holds {len(shards.get('held', []))} of {count} shards",
            json.dumps(shards))


def check_stopped_shard(c, shard_dir, whole):
    runs = [r for _, _, r in shard_plan.reports(shard_dir)]
    stopped = [r for r in runs if shard_plan.stopped_by_signal(r)]
    resumed = [r for r in runs if r.get("run", {}).get("resumed_from")]
    c.check(len(stopped) >= 1 and len(resumed) >= 1,
            f"shard {os.path.basename(shard_dir)}: {len(runs)} runs, {len(stopped)} stopped by a "
            f"signal, {len(resumed)} resumed", "a run stopped and one resumed are needed")
    problem = shard_plan.chain_problem(shard_dir)
    c.check(problem is None, "its runs chain: each starts where the one before stopped", problem)
    made, wanted = sum(positions(r) for r in runs), positions(whole)
    c.check(made == wanted, f"its runs made {made} calls, the uninterrupted run {wanted}")
    cells, whole_cells = summed_table(runs), summed_table([whole])
    differ = [k for k in set(cells) | set(whole_cells) if cells.get(k) != whole_cells.get(k)]
    c.check(not differ, f"the same counts in all {len(whole_cells)} cells of the table",
            f"{len(differ)} differ, e.g. {sorted(differ)[:3]}")
    c.check(finding_calls(runs) == finding_calls([whole]),
            f"the same {len(finding_calls([whole]))} findings with the same calls",
            f"{finding_calls(runs)} vs {finding_calls([whole])}")


def check_planted(c, merged, backend):
    found = [f for f in merged.get("findings", []) if f.get("backend") == backend]
    c.check(bool(found), f"the merged report has the finding of {backend}")
    for f in found[:1]:
        repro = f.get("repro_dir", "")
        c.check(bool(f.get("descriptor")) and os.path.isfile(os.path.join(repro, "case.json")),
                f"{f['signature']}: {f['calls']} calls, its descriptor and repro {repro}",
                "descriptor or repro case missing")


def check_store(c, store):
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            runs = db.execute("SELECT count(*) FROM runs WHERE kind = 'campaign'").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as e:
        c.check(False, f"the store {store} holds the night's run", str(e))
        return
    c.check(runs == 1, f"the store holds {runs} campaign run (the night's)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("night")
    p.add_argument("--shards", type=int, required=True, help="the main campaign's shard count")
    p.add_argument("--store", required=True)
    p.add_argument("--stopped-shard", type=int, required=True)
    p.add_argument("--uninterrupted", required=True,
                   help="the stopped shard's report of one uninterrupted run")
    p.add_argument("--planted", default="", help="the planted backend whose finding must be there")
    args = p.parse_args(argv)
    c = Checks()
    campaign = os.path.join(args.night, "campaigns", "main")
    try:
        merged = load(os.path.join(campaign, "merged", "campaign.json"))
        whole = load(os.path.join(args.uninterrupted, "campaign.json"))
    except (OSError, ValueError) as e:
        print(f"FAIL a report is missing or unreadable: {e}")
        return 1
    check_shards(c, merged, args.shards)
    check_stopped_shard(c, os.path.join(campaign, f"shard-{args.stopped_shard}"), whole)
    every_run = [r for d in sorted(glob.glob(os.path.join(campaign, "shard-*")))
                 for _, _, r in shard_plan.reports(d)]
    c.check(merged.get("calls") == sum(r.get("calls", 0) for r in every_run),
            f"the merged report's {merged.get('calls')} calls are the sum of the "
            f"{len(every_run)} runs' calls")
    if args.planted:
        check_planted(c, merged, args.planted)
    check_store(c, args.store)
    page = os.path.join(args.night, "report.html")
    c.check(os.path.isfile(page) and os.path.getsize(page) > 0, f"the page {page} is built")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
