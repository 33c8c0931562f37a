#!/usr/bin/env python3
"""cvmcheck bisect: the commit that introduced a finding, and the commit that fixed it.

  cvmcheck bisect FINDING [--good REV] [--bad REV] [--repeat N] [...]

FINDING is a signature (or its start) from the findings store (--store), a call descriptor
('op=... backend=...'), or a case directory (with --backend). Each revision is built once, in a
worktree of its own, through ccache, with only the `cvmcheck` target (or taken from --binaries
DIR/<commit>/cvmcheck), and replays the finding --repeat times: bad when any replay fails with
the finding's signature, good only when all pass; a revision that does not build, cannot run the
call or fails differently is skipped (and reported). With only a bad revision the search walks
back at distances 1, 2, 4, ... until a good one, or one without the operator. When HEAD no
longer has the finding, the fixing commit is searched too and the call is promoted to a corpus
input. The state is kept in --workdir: a killed bisect continues when run again.

Exit status: 0 a result (first bad commit, or the candidates skips left), 1 the finding does not
reproduce at the bad revision, 2 usage, 3 stopped by --budget or interrupted (run it again to
continue). docs/bisect.md.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

if sys.version_info < (3, 8):
    sys.exit("cvmcheck bisect: needs Python 3.8 or newer")
if not shutil.which("git"):
    sys.exit("cvmcheck bisect: needs git on PATH")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bisect_builds  # noqa: E402
import bisect_finding  # noqa: E402
import bisect_report  # noqa: E402
import bisect_search  # noqa: E402
import bisect_state  # noqa: E402
from bisect_builds import git  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(prog="cvmcheck bisect", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("finding", help="a store signature (or its start), a call descriptor, or a "
                   "case directory")
    p.add_argument("--store", default="reports/findings.sqlite", help="findings store to read "
                   "a signature from (default %(default)s)")
    p.add_argument("--backend", default="", help="backend to replay on (default: the "
                   "finding's or the descriptor's)")
    p.add_argument("--repo", default=".", help="the repository to bisect (default: the "
                   "current directory's)")
    p.add_argument("--good", action="append", default=[], help="a revision without the "
                   "finding (repeatable); default: searched backwards from --bad")
    p.add_argument("--bad", default="", help="a revision with it (default: the store's last "
                   "sighting, else --head)")
    p.add_argument("--head", default="HEAD", help="the newest revision, searched for a fix "
                   "when it no longer has the finding (default %(default)s)")
    p.add_argument("--no-fixed", action="store_true", help="do not search for a fix")
    p.add_argument("--repeat", type=int, default=1, help="replays per revision: bad if any "
                   "fails the same way, good only if all pass (default %(default)s)")
    p.add_argument("--call-timeout", type=float, default=120, help="seconds per replay")
    p.add_argument("--binaries", default="", help="prebuilt binaries, DIR/<commit>/cvmcheck or "
                   "DIR/<commit> (a prefix of 7+ digits will do); no builds")
    p.add_argument("--build-cmd", default=bisect_builds.DEFAULT_BUILD, help="run in each "
                   "revision's worktree (default: %(default)s)")
    p.add_argument("--binary-path", default=bisect_builds.DEFAULT_BINARY, help="what it builds "
                   "(default %(default)s)")
    p.add_argument("--build-timeout", type=float, default=3600, help="seconds per build")
    p.add_argument("--keep-trees", action="store_true", help="keep each revision's worktree")
    p.add_argument("--skip-paths", default=bisect_builds.DEFAULT_SKIP, help="top-level paths "
                   "left out of each worktree, since no build step reads them (default "
                   "%(default)s; '' for none)")
    p.add_argument("--cache", default="", help="binaries and build results by commit, shared by "
                   "bisects (default: reports/bisect/builds in the repository)")
    p.add_argument("--workdir", default="", help="this bisect's state and report (default: "
                   "reports/bisect/<finding> in the repository)")
    p.add_argument("--fresh", action="store_true", help="forget this finding's earlier verdicts")
    p.add_argument("--budget", type=float, default=0, help="stop before a build once this many "
                   "seconds are spent (exit 3; run again to continue)")
    p.add_argument("--no-promote", action="store_true", help="do not write a corpus input "
                   "for a fixed finding")
    p.add_argument("--promote-into", default="", help="where the corpus input goes (default: "
                   "corpus/all in the repository)")
    p.add_argument("--cvmcheck", default=os.environ.get("CVMCHECK_BINARY", ""), help="the "
                   "binary that reads the store (default: $CVMCHECK_BINARY, else "
                   "build/bin/cvmcheck in the repository)")
    p.add_argument("--json", action="store_true", help="print the JSON report, not the text")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def resolve_finding(args, repo):
    if os.path.isfile(os.path.join(args.finding, "case.json")):
        return bisect_finding.from_case(args.finding, args.backend)
    if bisect_finding.looks_like_descriptor(args.finding):
        return bisect_finding.from_descriptor(args.finding, args.backend)
    cvmcheck = args.cvmcheck or os.path.join(repo, "build", "bin", "cvmcheck")
    finding = bisect_finding.from_store(cvmcheck, args.store, args.finding)
    if args.backend:
        finding.backend = args.backend
    return finding


def revision(repo, rev):
    done = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet",
                           rev + "^{commit}"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"cvmcheck bisect: {rev}: not a revision of {repo}")
    return done.stdout.strip()


class Progress:
    """One line per event on stderr: revisions left, builds done and their time, what runs."""

    def __init__(self, builder):
        self.builder, self.where = builder, ""

    def begin(self, where):
        self.where = where

    def __call__(self, event, a, b):
        if event in ("introduced", "fixed"):
            self.where = f"{event}: {a} revisions left (~{b} steps)"
            return
        if event == "testing":
            built = self.builder.built
            avg = f", {self.builder.average_build_seconds():.1f} s each" if built else ""
            line = f"[bisect {self.where}] {built} builds{avg}: testing {a[:10]} {b}"
        else:
            line = f"[bisect]   {a[:10]} {b}"
        print(line, file=sys.stderr, flush=True)


def no_failure(record):
    cannot = [r["detail"] for r in record["runs"] if r["outcome"] == "cannot"]
    return "cannot run the call: " + cannot[0] if cannot else "every replay passed"


def run_searches(args, ev, repo, bad, head, workdir, progress):
    progress.begin("the bad revision")
    signature = ev.adopt_signature(bad)
    kind, why = ev.verdict(bad) if signature else (None, no_failure(ev.state.record(bad)))
    if kind != bisect_state.BAD:
        print(f"cvmcheck bisect: the finding does not reproduce at the bad revision {bad[:10]}: "
              f"{why}", file=sys.stderr)
        return None
    goods = [revision(repo, g) for g in args.good]
    driver = os.path.join(workdir, "driver")
    progress.begin("the good revisions" if goods else "back from the bad revision")
    intro = bisect_search.find_introduced(ev, repo, bad, goods, driver, progress)
    is_ancestor = subprocess.run(["git", "-C", repo, "merge-base", "--is-ancestor", bad, head])
    if args.no_fixed:
        return intro, {"not_searched": "--no-fixed"}
    if head == bad:
        return intro, {"not_searched": f"the bad revision is the head, {head[:10]}"}
    if is_ancestor.returncode != 0:
        return intro, {"not_searched": f"{bad[:10]} is not an ancestor of {head[:10]}"}
    progress.begin("the head revision")
    return intro, bisect_search.find_fixed(ev, repo, bad, head, driver, progress)


def promote(args, ev, repo, head):
    """The call as a corpus input, written by the head revision's binary (it replays in CI on
    every backend, so the bug cannot come back silently): (path, "") or ("", why not)."""
    binary, why = ev.builder.binary(head)
    if binary is None:
        return "", why
    into = args.promote_into or os.path.join(repo, "corpus", "all")
    f = ev.finding
    source = ["--from-call", f.descriptor] if f.descriptor else ["--from-case", f.repro_dir]
    done = subprocess.run([binary, "corpus", "--target", "all", "--out", into, *source],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return "", (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
    return done.stdout.strip().splitlines()[-1], ""


def fixed_note(fixed, head):
    if "not_searched" in fixed:
        return "not searched: " + fixed["not_searched"]
    if fixed["first"]:
        return ""
    if fixed["candidates"]:
        return "one of these; the others between them were skipped"
    if fixed["head_verdict"] == bisect_state.BAD:
        return f"not fixed: {head[:10]} still has it ({fixed['head_why']})"
    return f"unknown: {head[:10]} cannot tell ({fixed['head_why']})"


def assemble(args, ev, repo, bad, head, intro, fixed, promoted, started, json_path):
    rows = bisect_report.revision_rows(ev.state, ev.repeat)
    facts = lambda c: bisect_report.commit_facts(repo, c) if c else None  # noqa: E731
    fixed_first = fixed.get("first")
    url = git(repo, "config", "--get", "remote.origin.url", check=False) or repo
    since_added = intro.get("since_added", "")
    return {
        "finding": ev.finding.to_json(), "signature": ev.state.signature,
        "replay": ev.finding.replay_args(), "repeat": ev.repeat, "repo": repo, "bad": bad,
        "head": head, "good": intro.get("good", []),
        "probes": [{"commit": c, "verdict": k} for c, k in intro.get("probes", [])],
        "introduced": facts(intro["first"]),
        "introduced_note": bisect_report.introduced_line(intro),
        "introduced_candidates": [facts(c) for c in intro["candidates"]],
        "present_since_operator_added": since_added,
        "present_since_first_commit": bool(intro.get("since_root")),
        "fixed": facts(fixed_first), "fixed_note": fixed_note(fixed, head),
        "fixed_candidates": [facts(c) for c in fixed.get("candidates", [])],
        "osv": bisect_report.osv_record(ev.finding, ev.state.signature, url,
                                        "0" if intro.get("since_root") else intro["first"],
                                        fixed_first, since_added),
        "revisions": rows,
        "skipped": [r for r in rows if r["verdict"] == bisect_state.SKIP],
        "flaky": bisect_report.flakes(rows), "different_failures": bisect_report.different(rows),
        "bisect_log": {"introduced": intro.get("log", ""),
                       "fixed": fixed.get("log", "")},
        "regression_input": promoted[0], "promotion_note": promoted[1],
        "stats": {"builds": ev.builder.built, "build_seconds": round(ev.builder.build_seconds, 2),
                  "average_build_seconds": round(ev.builder.average_build_seconds(), 2),
                  "reused": ev.builder.reused, "replays": ev.replays,
                  "wall_seconds": round(time.monotonic() - started, 2)},
        "json_path": json_path,
    }


def main(argv):
    started = time.monotonic()
    args = parse_args(argv)
    repo = git(os.path.abspath(args.repo), "rev-parse", "--show-toplevel")
    finding = resolve_finding(args, repo)
    head = revision(repo, args.head)
    bad = revision(repo, args.bad or finding.last_commit or args.head)
    key = finding.signature or finding.descriptor or finding.repro_dir
    slug = finding.op + "-" + hashlib.sha1(key.encode()).hexdigest()[:10]
    workdir = os.path.abspath(args.workdir or os.path.join(repo, "reports", "bisect", slug))
    cache = args.cache or os.path.join(repo, "reports", "bisect", "builds")
    if args.fresh:
        shutil.rmtree(workdir, ignore_errors=True)
    state = bisect_state.State(os.path.join(workdir, "state.json"), finding)
    builder = bisect_builds.Builder(repo, cache, args.build_cmd, args.binary_path, args.binaries,
                                    args.build_timeout, args.keep_trees, args.skip_paths)
    progress = Progress(builder)
    ev = bisect_state.Evaluator(repo, finding, builder, state, args.repeat, args.call_timeout,
                                args.budget, progress)
    try:
        searched = run_searches(args, ev, repo, bad, head, workdir, progress)
        if searched is None:
            return 1
        intro, fixed = searched
        promoted = ("", "")
        if fixed.get("first") and not args.no_promote:
            promoted = promote(args, ev, repo, head)
    except (bisect_state.BudgetExceeded, KeyboardInterrupt) as e:
        print(f"cvmcheck bisect: stopped ({e or 'interrupted'}); {state.path} keeps every "
              "verdict: the same command continues", file=sys.stderr)
        return 3
    json_path = os.path.join(workdir, "bisect.json")
    result = assemble(args, ev, repo, bad, head, intro, fixed, promoted, started, json_path)
    bisect_builds.write_json(json_path, result)
    sys.stdout.write(json.dumps(result, indent=1) + "\n" if args.json
                     else bisect_report.text_report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
