#!/usr/bin/env python3
"""Mutants drawn at random, judged by the main job's campaign alone (issue 34).

A seed draws N mutants over the production code the default campaign runs: optimized/, cuda/
as the cuda-host backend runs it (the element headers, the plans, the host runner; not the
device runner, which needs a GPU) and infer/ (the validity checks). The draw is rule first,
then site: a rule uniformly among the rules with a site left in the pool, then one of its sites
uniformly, so a frequent rule does not drown the rest. The same seed on the same tree draws
the same mutants (a hash, not Python's random, picks).

Each mutant is applied to the scratch tree (scratch.py), `cvmcheck` is rebuilt incrementally
through ccache, and `cvmcheck campaign` runs over every operator and the default backends for
S seconds, as ci/campaign.sh runs it (its seed is the draw's). A campaign that exits 1 (a
mismatch, or a backend with nothing compared) kills the mutant; a crash or a hang of the
campaign kills it too, reported as such. Survivors are then given to the unit tests of their
operators (modes.py's unit mode) and reported apart. Mutants named in equivalent.txt are
drawn like any other but not run, and the score leaves them out.

  python3 tools/mutate/random_mutants.py --seed 1 -n 100 --seconds 20
  python3 tools/mutate/random_mutants.py --seed 1 -n 100 --list      the draw only
  python3 tools/mutate/random_mutants.py --pool                      sites per rule and file
"""

import argparse
import collections
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalogue  # noqa: E402
import equivalents  # noqa: E402
import isas  # noqa: E402
import line_paths  # noqa: E402
import modes  # noqa: E402
import operators  # noqa: E402
import random_report  # noqa: E402
import scratch  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# The cuda/ sources that only the device backend compiles or runs.
DEVICE_ONLY = ("cuda/device_runner.cu", "cuda/no_device.cc")
# Code that only some ISA dispatch variants run: the native variant, and for the ISAs with an
# emulated twin (optimized/isa_twin.h) the twin, which every x86-64 machine runs. A mutant of
# such a file is drawn whatever the machine; it is judged unless none of its variants can run
# here (`no-isa`: the AVX2 file on a machine without AVX2). From optimized/isa_list.h.
ISA_ONLY = isas.isa_only_files()


def missing_isa(mutant):
    """Why this machine cannot run the mutated code, or ""."""
    variants = ISA_ONLY.get(mutant.path, ())
    reasons = []
    for b in operators.BACKENDS:
        if b["name"] not in variants:
            continue
        if b.get("available", True):
            return ""
        reasons.append(b.get("unavailable_reason", b["name"] + " unavailable"))
    return "; ".join(reasons)


def pool_files(repo):
    """The kernels and checks of the default campaign's production backends."""
    files = set(catalogue.kernel_files(repo))
    files |= {os.path.relpath(p, repo) for p in glob.glob(os.path.join(repo, "cuda", "*.cc"))}
    return sorted(f for f in files if f not in DEVICE_ONLY)


def pool(repo):
    """Every site of every rule over pool_files, ordered by id."""
    found = catalogue.catalogue(repo, operators.attribute, pool_files(repo),
                                operators.RULE_NAMES, kinds=catalogue.ALL_KINDS, anywhere=True)
    return sorted(found, key=lambda m: (m.path, m.line, m.kind, m.ordinal))


def _pick(seed, step, what, n):
    """A uniform index below n from a hash of (seed, step, what): the same on every Python."""
    digest = hashlib.sha256(f"{seed}:{step}:{what}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % n


def draw(mutants, n, seed):
    """n distinct mutants, rule first (among rules with a site left), then site."""
    by_kind = collections.defaultdict(list)
    for m in mutants:
        by_kind[m.kind].append(m)
    chosen = []
    for step in range(n):
        kinds = sorted(k for k, sites in by_kind.items() if sites)
        if not kinds:
            break
        kind = kinds[_pick(seed, step, "rule", len(kinds))]
        sites = by_kind[kind]
        chosen.append(sites.pop(_pick(seed, step, "site", len(sites))))
    return chosen


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    argv_seen = argv if argv is not None else sys.argv
    p.add_argument("--seed", type=int,
                   required="--pool" not in argv_seen and "--rescore" not in argv_seen)
    p.add_argument("-n", type=int, default=100, help="mutants to draw (default %(default)s)")
    p.add_argument("--seconds", type=float, default=20,
                   help="campaign time box per mutant (default %(default)s)")
    p.add_argument("--short-seconds", type=float, default=None,
                   help="also judge every built mutant by a campaign of this shorter time box "
                   "(same seed): the score a gate of a few seconds would have")
    p.add_argument("--list", action="store_true", help="print the draw and exit")
    p.add_argument("--pool", action="store_true", help="print the pool's sites per rule")
    p.add_argument("--skip", type=int, default=0,
                   help="resume: leave out the first K drawn mutants (their verdicts stay in "
                   "the JSON report when it is there)")
    p.add_argument("--rescore", action="store_true",
                   help="no run: re-read OUT/random.json against equivalent.txt as it is now "
                   "(a survivor since reviewed as equivalent becomes equivalent, its verdict "
                   "kept as `was`) and rewrite random.json and random.md")
    p.add_argument("--unit-budget", type=float, default=modes.DEFAULT_BUDGETS["unit"])
    p.add_argument("--rejudge", nargs="+", metavar="ID",
                   help="run only these drawn mutants again; the others' verdicts stay as the "
                   "JSON report has them (after a change of the judge itself)")
    p.add_argument("--build-timeout", type=int, default=900)
    p.add_argument("--jobs", type=int, default=2, help="build jobs (default %(default)s)")
    p.add_argument("--sanitize", action="store_true",
                   help="judge each campaign survivor again with the ASan+UBSan build's campaign "
                   "(same seed and time box) before the unit tests: an out-of-bounds access that "
                   "changes no output is a kill (killed-sanitizer)")
    p.add_argument("--out", default=os.path.join(REPO, "build-mutate", "random"))
    return p.parse_args(argv)


class Judge:
    """Builds a mutated scratch tree and runs the campaign, then the unit tests on survivors."""

    def __init__(self, args, tree, log):
        self.args = args
        self.tree = tree
        self.cli = scratch.release_build(tree, log, False, targets=["cvmcheck"], jobs=args.jobs)
        self.full = scratch.release_build(tree, log, False, jobs=args.jobs)
        self.harness = modes.Harness(tree, args.out, {"unit": args.unit_budget})
        self.sanitized = scratch.sanitizer_build(tree, log, targets=["cvmcheck"]) if args.sanitize else None
        self.seed = args.seed
        self.baseline_paths = {}  # the unmutated campaign's paths: campaign.json's "paths"
        # The short time box's campaigns leave unreached paths alone when the unmutated tree's
        # short campaign reaches not every declared path (set by the baseline).
        self.short_allows_unreached = False

    def campaign(self, build="build", seconds=None, allow_unreached=False):
        """(verdict, seconds, calls, tail); verdict: survived, mismatch, unreached (its only
        failure: a declared path no call reached), crash or timeout. The run's paths are kept
        in self.last_paths."""
        report = tempfile.mkdtemp(prefix="campaign-", dir=self.args.out)
        seconds = seconds or self.args.seconds
        cmd = [os.path.join(self.tree, build, "bin", "cvmcheck"), "campaign",
               "--seconds", str(seconds), "--seed", str(self.seed),
               "--report", report, "--max-repros", "0", "--shrink-seconds", "0", "--quiet"]
        if allow_unreached:
            cmd.append("--allow-unreached-paths")
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=self.harness.cwd, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=2 * seconds + 60,
                                  start_new_session=True)
            rc, out = proc.returncode, proc.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            rc, out = None, (e.output or b"").decode(errors="replace")
        seconds = time.monotonic() - start
        calls = _calls(report)
        self.last_paths = _paths(report)
        only_unreached = rc == 1 and _only_unreached(report)
        shutil.rmtree(report, ignore_errors=True)
        verdict = ("timeout" if rc is None else "survived" if rc == 0 else
                   "unreached" if only_unreached else "mismatch" if rc == 1 else "crash")
        return verdict, time.monotonic() - start, calls, _tail(out, rc)

    def judged_campaign(self, seconds=None, allow_unreached=False):
        """The campaign's verdict on a mutant. A run whose only failure is a path no call
        reached runs again for twice the time: a rare path missed by chance (a loaded machine
        makes fewer calls) is not the mutant's doing; one the mutant took away stays unreached."""
        seconds = seconds or self.args.seconds
        verdict, took, calls, tail = self.campaign(seconds=seconds, allow_unreached=allow_unreached)
        if verdict != "unreached":
            return verdict, took, calls, tail
        again, more, calls, tail = self.campaign(seconds=2 * seconds)
        return ("unreached" if again == "unreached" else again), took + more, calls, tail

    def short_campaign(self, result):
        """With --short-seconds: the verdict of the shorter time box, kept beside the main one."""
        if not self.args.short_seconds:
            return
        verdict, seconds, calls, _ = self.judged_campaign(
            self.args.short_seconds, allow_unreached=self.short_allows_unreached)
        result.update(short=verdict, short_seconds=round(seconds, 1), short_calls=calls)

    def run(self, mutant):
        """The result dict of one mutant (random_report.py reads it)."""
        backend = "cuda-host" if mutant.path.startswith("cuda/") else "optimized"
        original = catalogue.apply(self.tree, mutant)
        try:
            start = time.monotonic()
            built = self.cli.build(timeout=self.args.build_timeout)
            result = _result(mutant, build_seconds=time.monotonic() - start)
            if not built:
                result["status"] = "build-failed"
                return result
            verdict, seconds, calls, tail = self.judged_campaign()
            result.update(campaign=verdict, campaign_seconds=round(seconds, 1),
                          campaign_calls=calls, tail=tail)
            self.short_campaign(result)
            if verdict != "survived":
                result["status"] = "killed-campaign"
                return result
            self._add_paths(result, mutant)
            if self.sanitized is not None and self._sanitizer_kills(result):
                return result
            if not self.full.build(timeout=self.args.build_timeout):
                result["status"] = "survived"
                result["unit"] = "tests-build-failed"
                return result
            unit = self.harness.run("unit", mutant.ops, backend)
            result.update(unit=unit.status, unit_seconds=round(unit.seconds, 1))
            if unit.status != "survived":
                result["status"] = "killed-tests"
                result["tail"] = unit.tail
            else:
                result["status"] = "survived"
            return result
        finally:
            catalogue.restore(self.tree, mutant, original)


    def _add_paths(self, result, mutant):
        """The paths the survivor's line belongs to, with the unmutated campaign's calls on each
        (summed over the backends of its family: cuda-host for cuda/, optimized* otherwise)."""
        prefix = "cuda-host" if mutant.path.startswith("cuda/") else "optimized"
        ids = line_paths.paths_of_line(self.tree, mutant.path, mutant.line)
        result["paths"] = {pid: line_paths.calls_of(self.baseline_paths, prefix, pid) for pid in ids}

    def _sanitizer_kills(self, result):
        """Runs the sanitizer build's campaign on a survivor; True (and the status set) when it
        fails: a memory or undefined-behaviour error the release campaign could not see."""
        if not self.sanitized.build(timeout=self.args.build_timeout):
            result["sanitizer"] = "build-failed"
            return False
        # Its errors, not its coverage: the slower build reaches fewer paths in the same time.
        verdict, seconds, calls, tail = self.campaign(build="build-asan", allow_unreached=True)
        result.update(sanitizer=verdict, sanitizer_seconds=round(seconds, 1))
        if verdict == "survived":
            return False
        result["status"] = "killed-sanitizer"
        result["tail"] = tail
        return True


def _campaign_json(report):
    """The campaign's campaign.json in `report`, or None when it wrote none."""
    try:
        with open(os.path.join(report, "campaign.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _paths(report):
    return (_campaign_json(report) or {}).get("paths", {})


def _only_unreached(report):
    """True when a failed campaign's one failure was a declared path that no call reached."""
    data = _campaign_json(report) or {}
    missing = any(b.get("not_reached") for b in data.get("paths", {}).values())
    return (missing and data.get("mismatching_calls", 0) == 0 and not data.get("nothing_compared")
            and not data.get("declared_not_compared") and not data.get("unexpected_passes"))


def _calls(report):
    data = _campaign_json(report)
    if data is None:
        return None
    return data.get("calls", data.get("run", {}).get("calls"))


def _tail(out, rc):
    lines = [l for l in out.splitlines() if l.strip()]
    keep = [l for l in lines if "mismatch" in l.lower() or "finding" in l.lower()
            or "nothing compared" in l or "error" in l.lower() or "reached" in l]
    text = "\n".join((keep or lines)[-8:])
    return (f"exit {rc}\n" if rc not in (0, 1) else "") + text[-1200:]


def _result(mutant, **extra):
    r = {"id": mutant.id, "file": mutant.path, "line": mutant.line, "kind": mutant.kind,
         "function": mutant.function, "ops": list(mutant.ops), "change": mutant.describe()}
    r.update(extra)
    return r


def _load_previous(path):
    try:
        with open(path) as f:
            return {r["id"]: r for r in json.load(f)["mutants"]}
    except (OSError, ValueError, KeyError):
        return {}


def main(argv=None):
    args = parse_args(argv)
    if args.rescore:
        return rescore(os.path.abspath(args.out))
    everything = pool(REPO)
    if args.pool:
        random_report.print_pool(everything)
        return 0
    chosen = draw(everything, args.n, args.seed)
    equivalent = equivalents.load(os.path.join(REPO, "tools", "mutate", "equivalent.txt"))
    if args.list:
        for i, m in enumerate(chosen, 1):
            mark = "  [equivalent]" if m.id in equivalent else ""
            print(f"{i}\t{m.id}\t{m.describe()}{mark}")
        return 0
    return run(args, everything, chosen, equivalent)


def run(args, everything, chosen, equivalent):
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    tree = os.path.join(args.out, "tree")
    json_path = os.path.join(args.out, "random.json")
    previous = _load_previous(json_path) if args.skip or args.rejudge else {}
    wall = time.monotonic()
    print(f"random mutants: seed {args.seed}, n {len(chosen)}, {args.seconds:g} s campaign each, "
          f"pool {len(everything)} sites over {len({m.kind for m in everything})} rules",
          flush=True)
    print(f"syncing {tree}: {scratch.sync_tree(REPO, tree)} files copied", flush=True)
    judge = Judge(args, tree, os.path.join(args.out, "build.log"))
    if not judge.full.build(timeout=None):
        sys.exit(f"the unmutated scratch tree does not build: see {args.out}/build.log")
    verdict, seconds, calls, tail = judge.campaign()
    judge.baseline_paths = judge.last_paths
    print(f"baseline campaign: {verdict} ({seconds:.1f} s, {calls} calls)", flush=True)
    if verdict != "survived":
        sys.exit("the unmutated tree fails the campaign; fix that first:\n" + tail)
    short = baseline_short(judge) if args.short_seconds else None
    info = {"seed": args.seed, "n": len(chosen), "seconds": args.seconds,
            "started": time.strftime("%Y-%m-%d %H:%M:%S"), "pool": len(everything),
            "pool_per_rule": dict(collections.Counter(m.kind for m in everything)),
            "baseline_calls": calls, "baseline_seconds": round(seconds, 1),
            "baseline_paths": judge.baseline_paths, "sanitize": bool(args.sanitize),
            "commit": _commit(), "wall_seconds": 0}
    if short:
        info.update(short_seconds=args.short_seconds, **short)
    results = []
    for i, m in enumerate(chosen, 1):
        kept = i <= args.skip or (args.rejudge and m.id not in args.rejudge)
        if kept and m.id in previous:
            results.append(previous[m.id])
            continue
        if m.id in equivalent:
            r = _result(m, status="equivalent", reason=equivalent[m.id])
        elif missing_isa(m):
            r = _result(m, status="no-isa", reason=missing_isa(m))
        else:
            r = judge.run(m)
        r["index"] = i
        results.append(r)
        print(random_report.progress(i, len(chosen), r), flush=True)
        info["wall_seconds"] = round(time.monotonic() - wall, 1)
        random_report.write(args.out, info, results)
    judge.full.build(timeout=None)  # leave the scratch build unmutated
    info["wall_seconds"] = round(time.monotonic() - wall, 1)
    random_report.write(args.out, info, results)
    print(random_report.score_line(results))
    print(f"wrote {args.out}/random.json and {args.out}/random.md")
    return 0


def baseline_short(judge):
    """The unmutated tree's campaign in the short time box. Its declared paths are judged only
    when that campaign reaches them all; a mismatch there stops the run."""
    verdict, seconds, calls, tail = judge.campaign(seconds=judge.args.short_seconds)
    if verdict == "unreached":
        judge.short_allows_unreached = True
        verdict, seconds, calls, tail = judge.campaign(seconds=judge.args.short_seconds,
                                                       allow_unreached=True)
    print(f"baseline short campaign: {verdict} ({seconds:.1f} s, {calls} calls"
          f"{', unreached paths not judged' if judge.short_allows_unreached else ''})", flush=True)
    if verdict != "survived":
        sys.exit("the unmutated tree fails the short campaign; fix that first:\n" + tail)
    return {"short_baseline_calls": calls, "short_baseline_seconds": round(seconds, 1),
            "short_allows_unreached": judge.short_allows_unreached}


def rescore(out):
    with open(os.path.join(out, "random.json")) as f:
        data = json.load(f)
    equivalent = equivalents.load(os.path.join(REPO, "tools", "mutate", "equivalent.txt"))
    for r in data["mutants"]:
        if r["status"] != "equivalent" and r["id"] in equivalent:
            r["was"], r["status"], r["reason"] = r["status"], "equivalent", equivalent[r["id"]]
    random_report.write(out, data["run"], data["mutants"])
    print(random_report.score_line(data["mutants"]))
    return 0


def _commit():
    out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO,
                         capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                           capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+changes" if dirty else "")


if __name__ == "__main__":
    sys.exit(main())
