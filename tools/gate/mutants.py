"""Mutants on the changed lines only: the catalogue's mutants (tools/mutate) whose line the
diff added or changed, run with the cheap modes; each survivor is reported at its file and
line. Known-equivalent mutants (tools/mutate/equivalent.txt) are left out."""

import json
import os
import subprocess
import sys
import time

import reports

_MUTATE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mutate")
sys.path.insert(0, _MUTATE)
import catalogue  # noqa: E402
import equivalents  # noqa: E402
import mutate  # noqa: E402  (its deterministic, spread-out sample)
import operators  # noqa: E402

MODES = "unit,properties,golden"


def on_changed_lines(repo, files):
    """(live mutants, equivalent ones) whose line is an added or changed line of a kernel."""
    kernels = set(catalogue.kernel_files(repo))
    added = {f.path: f.added for f in files if f.path in kernels and f.added and f.status != "D"}
    if not added:
        return [], []
    equivalent = equivalents.load(os.path.join(_MUTATE, "equivalent.txt"))
    found = [m for m in catalogue.catalogue(repo, operators.attribute, sorted(added),
                                             operators.RULE_NAMES)
             if m.line in added[m.path]]
    return ([m for m in found if m.id not in equivalent],
            [m for m in found if m.id in equivalent])


def choose(mutants, limit):
    """At most `limit`, spread over files and kinds the way the mutation sample is."""
    return list(mutants) if len(mutants) <= limit else mutate.sample(mutants, limit)


def run(ctx, files, limit, fail_on_survivor, sanitize=False):
    live, equivalent = on_changed_lines(ctx.repo, files)
    if not live:
        why = (f"no mutant on the changed lines but {len(equivalent)} listed in "
               "tools/mutate/equivalent.txt, judged before this change: re-check them"
               if equivalent else "no catalogue mutant on the changed lines")
        return reports.Step("mutants", "skipped", 0.0, why)
    chosen = choose(live, limit)
    out = os.path.join(ctx.repo, "build-mutate")  # shares the mutation sample's scratch build
    env = dict(os.environ, CCACHE_BASEDIR=ctx.repo, CCACHE_NOHASHDIR="1")
    env.setdefault("CMAKE_CXX_COMPILER_LAUNCHER", "ccache")
    modes = MODES + (",sanitize" if sanitize else "")
    cmd = [sys.executable, os.path.join(_MUTATE, "mutate.py"), "--ids", *[m.id for m in chosen],
           "--modes", modes, "--no-robustness", "--report-name", "gate", "--out", out]
    log_path = os.path.join(ctx.out, "mutants.log")
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        start = time.monotonic()
        code = subprocess.run(["nice"] + cmd, cwd=ctx.repo, env=env, stdout=log,
                              stderr=subprocess.STDOUT).returncode
        seconds = time.monotonic() - start
    try:
        with open(os.path.join(out, "gate.json")) as f:
            results = json.load(f)["mutants"]
    except (OSError, ValueError, KeyError):
        results = []
    if code != 0 or len(results) != len(chosen):
        with open(log_path) as f:
            tail = f.read()[-3000:]
        return reports.Step("mutants", "error", seconds, "the mutation run did not finish", tail)
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        if r["status"] in ("survived", "timeout"):
            ctx.results.append(reports.Result(
                "gate/surviving-mutant",
                f"mutant {r['id']} {r['status']} ({modes} on {', '.join(r['ops'])}): "
                f"{r['change']}", r["file"], r["line"]))
        elif r["status"] == "no-device":
            ctx.results.append(reports.Result(
                "gate/not-checked", f"mutant {r['id']} needs a GPU: {r['change']}",
                r["file"], r["line"]))
    skipped = len(live) - len(chosen)
    what = (f"{len(chosen)} mutants of the changed lines ({modes}): "
            + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
            + (f"; {skipped} more not run (--max-mutants {limit})" if skipped else "")
            + (f"; {len(equivalent)} listed in tools/mutate/equivalent.txt, judged before this "
               "change: re-check them" if equivalent else ""))
    survivors = counts.get("survived", 0) + counts.get("timeout", 0)
    status = "failed" if survivors and fail_on_survivor else "passed"
    if survivors and not fail_on_survivor:
        what += " (survivors are warnings; --fail-on-survivor makes them fail the gate)"
    return reports.Step("mutants", status, seconds, what)
