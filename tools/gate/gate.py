#!/usr/bin/env python3
"""cvmcheck's CI gate: checks a change against the operators it can affect, and only those.

  python3 tools/gate/gate.py --base REV [--head REV] [--out DIR] ...   (or ci/gate.sh)

Maps the files changed since head forked from base to operators and backends (mapping.py),
then runs for those: the record examples and path tests on every backend, the RapidCheck
properties, the golden cases on every backend, the fuzz corpus replay, a time-boxed campaign,
the mutants on the changed lines, and for a touched nn or elementwise kernel a base-vs-head
benchmark. Writes OUT/summary.md (also appended to $GITHUB_STEP_SUMMARY), OUT/junit.xml and
OUT/gate.sarif. Exit codes: changes.py and docs/gate.md.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
REPO = os.path.dirname(os.path.dirname(HERE))

import changes  # noqa: E402
import oplist  # noqa: E402
import reports  # noqa: E402


def load_mapping():
    """Imports the mapping with the operator list read from core/op_list.json (no build needed, so
    bad input and docs-only changes are answered at once). tools/mutate/operators.py reads
    the list from CVMCHECK_BINARY; the variable is restored so that the subprocesses (the
    mutation runs) see the real binary."""
    saved = os.environ.get("CVMCHECK_BINARY")
    os.environ["CVMCHECK_BINARY"] = os.path.join(HERE, "oplist.py")
    try:
        import mapping
    finally:
        if saved is None:
            os.environ.pop("CVMCHECK_BINARY")
        else:
            os.environ["CVMCHECK_BINARY"] = saved
    return mapping


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True, help="the revision the change is made against")
    p.add_argument("--head", default="HEAD", help="the change (must be checked out; HEAD)")
    p.add_argument("--out", default=os.path.join(REPO, "reports", "gate"))
    p.add_argument("--campaign-seconds", type=int, default=30,
                   help="campaign time box, split across the operators (default 30)")
    p.add_argument("--max-mutants", type=int, default=8,
                   help="most changed-line mutants to run, a spread sample (default 8)")
    p.add_argument("--no-mutants", action="store_true")
    p.add_argument("--no-bench", action="store_true",
                   help="skip the base-vs-head benchmark of touched nn/elementwise kernels")
    p.add_argument("--bench-seconds", type=float, default=0.2,
                   help="minimum time of one benchmark repetition (default 0.2)")
    p.add_argument("--sanitize-mutants", action="store_true",
                   help="judge the changed-line mutants also with the ASan+UBSan build's unit "
                   "tests: an out-of-bounds access that changes no output is a kill")
    p.add_argument("--fail-on-survivor", action="store_true",
                   help="a surviving changed-line mutant fails the gate (default: a warning)")
    p.add_argument("--no-build", action="store_true",
                   help="use the existing build/ (it must be the head's)")
    p.add_argument("--store", default=None,
                   help="findings store the campaign records its run in (docs/nightly.md; "
                        "default OUT/findings.sqlite)")
    return p.parse_args(argv)


def build_release(out):
    """bash ci/build.sh release; (ok, seconds, log tail)."""
    start = time.monotonic()
    with open(os.path.join(out, "build.log"), "w") as log:
        code = subprocess.run(["nice", "bash", os.path.join(REPO, "ci", "build.sh"), "release"],
                              cwd=REPO, stdout=log, stderr=subprocess.STDOUT).returncode
    with open(os.path.join(out, "build.log")) as f:
        tail = f.read()[-3000:]
    return code == 0, time.monotonic() - start, tail


def available_backends():
    listing = json.loads(subprocess.run(
        [os.path.join(REPO, "build", "bin", "cvmcheck"), "ops", "--json"], check=True,
        capture_output=True).stdout)
    return {b["name"]: b.get("available", True) for b in listing["backends"]}


def campaign_backends(impact, available, ctx):
    """The backends the campaign compares with the reference: the affected ones that can run
    here (all when the reference or shared code changed). An affected backend that cannot run
    is reported as not checked, at the change."""
    for name in sorted(impact.backends):
        if not available.get(name, False):
            ctx.add("gate/not-checked", "", f"this change affects backend {name}, which cannot "
                    "run here (no device): the GPU workflow checks it")
    if impact.everything or "reference" in impact.backends:
        return []
    return sorted(b for b in impact.backends if available.get(b, False) and b != "reference")


def step_log(step):
    print(f"gate: {step.name}: {step.status} ({step.seconds:.0f} s): {step.what}", flush=True)
    return step


def run_checks(args, files, impact, ctx, notes):
    """Every check for the impact, in cost order; returns the steps."""
    import bench
    import mutants
    import steps as s
    done = []
    if impact.tooling:
        done += [step_log(x) for x in s.tooling(ctx)]
    if not impact.ops and not impact.mrt:
        return done
    if args.no_build:
        notes.append("--no-build: used the existing build/")
    else:
        ok, seconds, tail = build_release(args.out)
        done.append(step_log(reports.Step("build", "passed" if ok else "failed", seconds,
                                          "bash ci/build.sh release", "" if ok else tail)))
        if not ok:
            return done
    available = available_backends()
    if impact.ops:
        done.append(step_log(s.examples(ctx)))
        done.append(step_log(s.properties(ctx)))
        done.append(step_log(s.golden(ctx)))
        done.append(step_log(s.corpus(ctx)))
    if impact.mrt:
        done.append(step_log(s.mrt(ctx)))
    if impact.ops:
        backends = campaign_backends(impact, available, ctx)
        seed = int(ctx.head_id[:15], 16) or 1  # per commit: repeatable, new for each push
        done.append(step_log(s.campaign(ctx, args.campaign_seconds, seed, backends)))
    if any(x.status == "failed" for x in done):
        # Mutants and timings of a head that fails its own tests say nothing.
        done.append(step_log(reports.Step("mutants and bench", "skipped", 0.0,
                                          "not run: the head already fails a check above")))
        return done
    if not args.no_mutants:
        done.append(step_log(mutants.run(ctx, files, args.max_mutants, args.fail_on_survivor,
                                            args.sanitize_mutants)))
    if not args.no_bench:
        step = bench.run(ctx, files, args.bench_seconds)
        if step:
            done.append(step_log(step))
    return done


def main(argv=None):
    args = parse_args(argv)
    args.out = os.path.abspath(args.out)
    start = time.monotonic()
    try:
        base_id, head_id, fork = changes.check_revisions(REPO, args.base, args.head)
        changes.check_clean(REPO)
        files = changes.changed_files(REPO, base_id, head_id)
        if not files:
            raise changes.GateError(changes.EXIT_NO_CHANGES, f"no changes between '{args.base}'"
                                    f" and '{args.head}': nothing to gate")
    except changes.GateError as e:
        print(f"gate: {e} (exit {e.code})", file=sys.stderr)
        return e.code
    mapping = load_mapping()

    def read_lines(path):
        with open(os.path.join(REPO, path), errors="replace") as f:
            return f.read().split("\n")

    impact = mapping.map_changes(files, read_lines)
    families = {f: [] for f in oplist.read()["families"]}
    for op in oplist.read()["operators"]:
        families[op["family"]].append(op["name"])
    import steps
    ctx = steps.Context(REPO, args.out, impact, families)
    ctx.head_id, ctx.base_id = head_id, fork
    ctx.store = os.path.abspath(args.store or os.path.join(args.out, "findings.sqlite"))
    rows = [(f.path, impact.reasons.get(f.path, "")) for f in files]
    for path, why in rows:
        print(f"gate: {path}: {why}")
    notes = []
    if impact.ops:
        notes.append(f"operators ({len(impact.ops)} of {len(ctx.all_ops)}): "
                     + ", ".join(sorted(impact.ops)))
        notes.append("backends affected: " + ", ".join(sorted(impact.backends)))
    if impact.nothing_to_run():
        notes.append("docs-only: nothing to run (every changed path is documentation)")
        print("gate: docs-only: nothing to run")
        # One reported testcase, so a JUnit consumer shows the outcome rather than no tests.
        done = [reports.Step("docs-only", "skipped", 0.0,
                             "nothing to run: every changed path is documentation")]
    else:
        try:
            done = run_checks(args, files, impact, ctx, notes)
        except Exception as e:  # a tool crashed: report it, never pass
            done = [reports.Step("gate", "error", 0.0, f"internal error: {e!r}")]
            print(f"gate: internal error: {e!r}", file=sys.stderr)
    if not impact.nothing_to_run() and not any(s.status in ("passed", "failed") for s in done):
        done.append(reports.Step("gate", "error", 0.0, "no check ran for a change that needs one"))
    if any(s.status == "failed" for s in done):
        code, verdict = changes.EXIT_FAIL, "FAILED"
    elif any(s.status == "error" for s in done):
        code, verdict = changes.EXIT_INTERNAL, "ERROR (a check could not run)"
    else:
        code = changes.EXIT_PASS
        verdict = "passed (docs-only: nothing to run)" if impact.nothing_to_run() else "passed"
    seconds = time.monotonic() - start
    notes.append(f"wall time {seconds:.0f} s")
    if getattr(ctx, "report_page", None):
        notes.append("the campaign's page (matrix, findings, repro lines): "
                     "[report.html](report.html)")
    text = reports.markdown((args.base, head_id[:12], fork[:12]), verdict, rows, done,
                            ctx.results, notes)
    reports.write_all(args.out, text, done, seconds, ctx.results)
    if getattr(ctx, "report_page", None):  # again, now with the summary that links it
        steps.report_page(ctx, os.path.join(args.out, "summary.md"))
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a") as f:
            f.write(text)
    print(f"gate: {verdict} in {seconds:.0f} s; {len(ctx.results)} annotations; reports in "
          f"{args.out}/summary.md, junit.xml, gate.sarif (exit {code})")
    return code


if __name__ == "__main__":
    sys.exit(main())
