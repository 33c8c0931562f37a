#!/usr/bin/env python3
"""The nightly's bisect step: every finding of the findings store not bisected yet (new, open or
regressed; a regressed one again) is bisected (cvm_bisect.py) within one time budget for them
all, newest first, and each culprit is recorded in the store (`cvmcheck findings culprit`), so
that `cvmcheck findings show SIG` answers "which commit?".

A finding that does not reproduce at its last commit is recorded with that note, so it is not
tried every night. A bisect the budget stops is taken up by the next run; where
reports/bisect/ is kept between runs it continues from its state without rebuilding anything.
Arguments after `--` go to every cvm_bisect.py run (e.g. --repeat 3).

Exit status: 0 (also when the budget ran out or a finding did not reproduce: the nightly reports
them, it does not fail on them), 2 usage or an unreadable store. docs/bisect.md.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BISECT = os.path.join(HERE, "cvm_bisect.py")
MIN_SECONDS = 30  # below this a bisect cannot even replay its bad revision once built


def parse_args(argv):
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", default="reports/findings.sqlite", help="default %(default)s")
    p.add_argument("--budget", type=float, default=1800, help="seconds for all bisects "
                   "together (default %(default)s)")
    p.add_argument("--status", default="new,regressed,open", help="which findings (default "
                   "%(default)s)")
    p.add_argument("--cvmcheck", default="build/bin/cvmcheck", help="reads and writes the "
                   "store (default %(default)s)")
    p.add_argument("--repo", default=".", help="the repository (default: the current one)")
    args = p.parse_args(argv)
    args.extra = extra
    return args


def cvmcheck(args, *rest):
    done = subprocess.run([args.cvmcheck, "findings", *rest, "--store", args.store],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"nightly bisect: cvmcheck findings {rest[0]}: {done.stderr.strip()}")
    return done.stdout


def wanted(finding):
    culprit = finding.get("culprit")
    return not culprit or finding["status"] == "regressed"


def culprit_of(result):
    """The store's culprit fields from a bisect's JSON report."""
    note = result["introduced_note"]
    introduced = result["introduced"]["commit"] if result["introduced"] else ""
    fixed = result["fixed"]["commit"] if result["fixed"] else ""
    if note == "first bad commit":
        note = ""
    if result["flaky"]:
        note = (note + "; " if note else "") + f"flaky ({len(result['flaky'])} revisions)"
    return introduced, fixed, note


def run_bisect(command):
    """(exit status, its stdout, its last stderr line), the progress lines passed on as they come
    (stdout goes to a file: a pipe the program fills while this reads stderr would stall both)."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, text=True)
        last = ""
        for line in proc.stderr:
            sys.stderr.write(line)
            last = line.strip() or last
        proc.wait()
        out.seek(0)
        return proc.returncode, out.read(), last.replace("cvmcheck bisect: ", "")


def bisect_one(args, finding, seconds):
    """(outcome line, culprit recorded or not)."""
    signature = finding["signature"]
    command = [sys.executable, BISECT, signature, "--store", args.store, "--repo", args.repo,
               "--cvmcheck", args.cvmcheck, "--budget", str(int(seconds)), "--json",
               *args.extra]
    status, report, why = run_bisect(command)
    if status == 3:
        return "stopped by the budget (continues next run)", False
    if status == 1:
        cvmcheck(args, "culprit", signature, "--note", why)
        return why, True
    if status != 0:
        return f"no result (cvm_bisect.py exit {status})", False
    result = json.loads(report)
    introduced, fixed, note = culprit_of(result)
    cvmcheck(args, "culprit", signature, "--introduced", introduced, "--fixed", fixed,
             "--note", note, "--report", result["json_path"])
    return (f"introduced {introduced[:10] or 'unknown'}"
            f"{', fixed ' + fixed[:10] if fixed else ''}{' (' + note + ')' if note else ''}"), True


def main(argv):
    args = parse_args(argv)
    started = time.monotonic()
    findings = [f for f in json.loads(cvmcheck(args, "list", "--status", args.status, "--json"))
                if wanted(f)]
    done = 0
    for index, finding in enumerate(findings):
        left = args.budget - (time.monotonic() - started)
        if left < MIN_SECONDS:
            print(f"nightly bisect: budget spent; {len(findings) - index} findings wait for "
                  "the next run")
            break
        line, recorded = bisect_one(args, finding, left)
        done += recorded
        print(f"nightly bisect: {finding['signature']}: {line}", flush=True)
    print(f"nightly bisect: {done} of {len(findings)} findings bisected in "
          f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
