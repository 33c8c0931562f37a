#!/usr/bin/env python3
"""Mutation testing of the kernels: how strong is each harness mode?

Generates source mutants of optimized/ (and cuda/ once it exists), applies one at a time to a
scratch copy of the tree, rebuilds it incrementally and runs the harness modes (modes.py)
restricted to the mutant's operators, recording which modes kill it and how fast. The result
is a kill matrix (report.py) in OUT/report.json and OUT/report.md.

  python3 tools/mutate/mutate.py --list [--files F...]          the catalogue
  python3 tools/mutate/mutate.py --files optimized/reduce.cc    run those mutants
  python3 tools/mutate/mutate.py --ids ID... --all-modes --fuzz every mode on each
  python3 tools/mutate/mutate.py --sample 8                     a fixed spread-out sample
  python3 tools/mutate/mutate.py --set isa_paths --list         a named set (tools/mutate/sets/)
"""

import argparse
import glob
import collections
import hashlib
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalogue  # noqa: E402
import equivalents  # noqa: E402
import modes  # noqa: E402
import operators  # noqa: E402
import report  # noqa: E402
import scratch  # noqa: E402
import sets  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--list", action="store_true", help="print the catalogue and exit")
    p.add_argument("--counts", action="store_true", help="print catalogue sizes per file and kind")
    p.add_argument("--files", nargs="*", help="kernel files (default: all)")
    p.add_argument("--kinds", nargs="*", choices=catalogue.KINDS)
    p.add_argument("--set", help="only the lines a named set covers (tools/mutate/sets/NAME.txt, "
                   "e.g. isa_paths: code that runs only on the non-default dispatch paths)")
    p.add_argument("--lines", nargs="*", metavar="ENTRY",
                   help="only these lines: PATH, PATH@FUNCTION or PATH:A-B (sets.py)")
    p.add_argument("--ids", nargs="*", help="exact mutant ids")
    p.add_argument("--ids-file", help="file with one mutant id a line (# comments)")
    p.add_argument("--sample", type=int, help="a deterministic sample of N mutants, spread over "
                   "files and kinds (equivalent ones never chosen)")
    p.add_argument("--every", type=int, default=1, help="keep every Nth mutant of the selection")
    p.add_argument("--modes", default="unit,properties,golden",
                   help="comma-separated, in order (default unit,properties,golden)")
    p.add_argument("--fuzz", action="store_true", help="add the fuzz mode (builds the fuzz preset)")
    p.add_argument("--sanitize", action="store_true",
                   help="add the sanitize mode (the unit tests in an ASan+UBSan scratch build)")
    p.add_argument("--shard", help="K/N: run only the Kth of N interleaved shards of the "
                   "selection (each shard needs its own --out)")
    p.add_argument("--all-modes", action="store_true",
                   help="run every mode on every mutant (the full kill matrix)")
    p.add_argument("--budget", action="append", default=[], metavar="MODE=SECONDS")
    p.add_argument("--build-timeout", type=int, default=900)
    p.add_argument("--prop-cases", type=int, help="CVMCHECK_PROP_CASES for the properties mode")
    p.add_argument("--campaign-cases", type=int, default=modes.CAMPAIGN_CASES,
                   help="calls of the campaign modes (seed 1; default %(default)s)")
    p.add_argument("--campaign-seconds", type=int, default=modes.CAMPAIGN_SECONDS,
                   help="time cap of the campaign modes (default %(default)s)")
    p.add_argument("--rc-seed", type=int, default=1, help="RapidCheck seed of the properties mode")
    p.add_argument("--no-robustness", action="store_true",
                   help="leave the (operator-wide, slow) robustness tests out of the unit mode")
    p.add_argument("--out", default=os.path.join(REPO, "build-mutate"))
    p.add_argument("--report-name", default="report")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip checking that the unmutated tree passes every selected mode")
    p.add_argument("--fail-on-survivor", action="store_true",
                   help="exit 1 when a non-equivalent mutant survives or times out")
    return p.parse_args(argv)


def sample(mutants, n):
    """n mutants, round-robin over (file, kind) buckets, each bucket ordered by a hash of the
    id: the same catalogue always gives the same sample, and it is spread out."""
    buckets = collections.defaultdict(list)
    for m in mutants:
        buckets[(m.path, m.kind)].append(m)
    for key in buckets:
        buckets[key].sort(key=lambda m: hashlib.sha1(m.id.encode()).hexdigest())
    order = sorted(buckets, key=lambda k: hashlib.sha1(repr(k).encode()).hexdigest())
    chosen = []
    while len(chosen) < n and any(buckets.values()):
        for key in order:
            if buckets[key] and len(chosen) < n:
                chosen.append(buckets[key].pop(0))
    return sorted(chosen, key=lambda m: (m.path, m.line, m.kind, m.ordinal))


def line_entries(args):
    """The --set and --lines entries (sets.py), checked against the tree; [] when none."""
    entries = sets.load(args.set) if args.set else []
    entries += [sets.parse_entry(e) for e in args.lines or []]
    errors = sets.check_anchors(REPO, entries)
    if errors:
        sys.exit("mutant set: " + "; ".join(errors))
    return entries


def every_mutant():
    """The catalogue with the random draw's rules and files too (random_mutants.py: every kind
    on every file, cuda/*.cc included), so that --ids can rerun a drawn mutant and
    equivalent.txt may name one."""
    files = set(catalogue.kernel_files(REPO))
    files |= {os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "cuda", "*.cc"))}
    return catalogue.catalogue(REPO, operators.attribute, sorted(files), operators.RULE_NAMES,
                               kinds=catalogue.ALL_KINDS, anywhere=True)


def select(args, equivalent):
    entries = line_entries(args)
    files = args.files or (sets.files(entries) if entries else None)
    everything = catalogue.catalogue(REPO, operators.attribute, files, operators.RULE_NAMES)
    if entries:
        everything = sets.select(everything, entries)
    known = {m.id for m in every_mutant()}
    for ident in equivalent:
        if ident not in known:
            print(f"warning: equivalent.txt names {ident}, which is no longer a mutant", file=sys.stderr)
    chosen = everything
    if args.kinds:
        chosen = [m for m in chosen if m.kind in args.kinds]
    ids = list(args.ids or [])
    if args.ids_file:
        with open(args.ids_file) as f:
            ids += [l.split()[0] for l in f if l.strip() and not l.startswith("#")]
    if ids:
        by_id = {m.id: m for m in every_mutant()}
        missing = [i for i in ids if i not in by_id]
        if missing:
            sys.exit(f"unknown mutant ids: {' '.join(missing)}")
        chosen = [by_id[i] for i in ids]
        if entries:
            chosen = sets.select(chosen, entries)
    if args.sample:
        chosen = sample([m for m in chosen if m.id not in equivalent], args.sample)
    if args.every > 1:
        chosen = chosen[::args.every]
    if args.shard:
        k, n = (int(x) for x in args.shard.split("/"))
        chosen = chosen[k - 1::n]
    return chosen


def backend_of(mutant):
    """The backend whose tests can see a mutant: cuda/ element functions run on cuda-host."""
    return "cuda-host" if mutant.path.startswith("cuda/") else "optimized"


def needs_device(mutant):
    """A mutant of the device runner (launches, copies) changes nothing cuda-host runs."""
    return mutant.path.endswith(".cu")


def result_of(mutant, status, mode_results, killed_by, time_to_kill, build_seconds, reason=""):
    return {
        "id": mutant.id, "file": mutant.path, "line": mutant.line, "kind": mutant.kind,
        "ordinal": mutant.ordinal, "function": mutant.function, "ops": list(mutant.ops),
        "change": mutant.describe(), "status": status, "killed_by": killed_by,
        "time_to_kill": time_to_kill, "build_seconds": round(build_seconds, 1),
        "modes": {k: v.to_json() for k, v in mode_results.items()}, "reason": reason,
    }


def run_mutant(mutant, tree, build, harness, mode_list, all_modes, build_timeout, device):
    """Applies, builds, runs the modes, restores. Time to kill counts from the end of the
    build to the end of the first killing mode."""
    if needs_device(mutant) and not device:
        return result_of(mutant, "no-device", {}, [], None, 0,
                         "changes only the device runner; no CUDA device here")
    backend = "cuda" if needs_device(mutant) else backend_of(mutant)
    original = catalogue.apply(tree, mutant)
    try:
        start = time.monotonic()
        built = build.build(timeout=build_timeout)
        build_seconds = time.monotonic() - start
        if not built:
            return result_of(mutant, "build-failed", {}, [], None, build_seconds)
        results, killed_by, elapsed, time_to_kill = {}, [], 0.0, None
        for mode in mode_list:
            r = harness.run(mode, mutant.ops, backend)
            results[mode] = r
            elapsed += r.seconds
            if r.status == "killed":
                killed_by.append(mode)
                if time_to_kill is None:
                    time_to_kill = round(elapsed, 2)
                if not all_modes:
                    break
            elif r.status == "timeout":
                break  # a hang: the later modes would only hang too, each for its whole budget
        if killed_by:
            status = "killed"
        elif any(r.status == "timeout" for r in results.values()):
            status = "timeout"
        else:
            status = "survived"
        return result_of(mutant, status, results, killed_by, time_to_kill, build_seconds)
    finally:
        catalogue.restore(tree, mutant, original)


def main(argv=None):
    args = parse_args(argv)
    equivalent = equivalents.load(os.path.join(REPO, "tools", "mutate", "equivalent.txt"))
    chosen = select(args, equivalent)
    if args.counts:
        counts = collections.Counter((m.path, m.kind) for m in chosen)
        files = sorted({m.path for m in chosen})
        print("file".ljust(30) + "".join(k.rjust(13) for k in catalogue.KINDS) + "total".rjust(8))
        for f in files:
            row = [counts[(f, k)] for k in catalogue.KINDS]
            print(f.ljust(30) + "".join(str(n).rjust(13) for n in row) + str(sum(row)).rjust(8))
        print("total".ljust(30) + "".join(str(sum(counts[(f, k)] for f in files)).rjust(13)
                                          for k in catalogue.KINDS) + str(len(chosen)).rjust(8))
        return 0
    if args.list:
        for m in chosen:
            mark = "  [equivalent]" if m.id in equivalent else ""
            print(f"{m.id}\t{','.join(m.ops)}\t{m.describe()}{mark}")
        return 0

    mode_list = [m for m in args.modes.split(",") if m]
    if args.sanitize and "sanitize" not in mode_list:
        mode_list.append("sanitize")
    if args.fuzz and "fuzz" not in mode_list:
        mode_list.append("fuzz")
    budgets = dict(modes.DEFAULT_BUDGETS)
    for b in args.budget:
        name, _, seconds = b.partition("=")
        budgets[name] = float(seconds)

    args.out = os.path.abspath(args.out)  # the modes run binaries from another directory
    os.makedirs(args.out, exist_ok=True)
    tree = os.path.join(args.out, "tree")
    log = os.path.join(args.out, "build.log")
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    wall = time.monotonic()
    print(f"syncing {tree}: {scratch.sync_tree(REPO, tree)} files copied", flush=True)
    device = scratch.cuda_device_present()
    build = scratch.release_build(tree, log, device)
    fuzz_builds = {}
    sanitizer = scratch.sanitizer_build(tree, log)

    def fuzz_builder(family):
        fb = fuzz_builds.setdefault(family, scratch.fuzz_build(tree, log, family))
        return fb.build(timeout=args.build_timeout)

    harness = modes.Harness(tree, args.out, budgets, args.prop_cases,
                            fuzz_builder if "fuzz" in mode_list else None,
                            rc_seed=args.rc_seed, robustness=not args.no_robustness,
                            campaign_cases=args.campaign_cases,
                            campaign_seconds=args.campaign_seconds,
                            sanitize_builder=(lambda: sanitizer.build(timeout=args.build_timeout))
                            if "sanitize" in mode_list else None)
    if not build.build(timeout=None):
        sys.exit(f"the unmutated scratch tree does not build: see {log}")

    if not args.no_baseline:
        live = [m for m in chosen if m.id not in equivalent and (device or not needs_device(m))]
        for backend in sorted({backend_of(m) for m in live}):
            ops = sorted({op for m in live if backend_of(m) == backend for op in m.ops})
            for mode in mode_list:
                r = harness.run(mode, ops, backend)
                print(f"baseline {mode} ({backend}): {r.status} ({r.seconds:.1f} s)", flush=True)
                if r.status != "survived":
                    sys.exit(f"the unmutated tree fails mode {mode}; fix that first:\n{r.tail}")

    results = []
    info = {"started": started, "modes": mode_list, "all_modes": args.all_modes,
            "budgets": {m: budgets[m] for m in mode_list}, "prop_cases": args.prop_cases,
            "selection": " ".join(argv if argv is not None else sys.argv[1:]), "wall_seconds": 0}
    json_path = os.path.join(args.out, args.report_name + ".json")
    md_path = os.path.join(args.out, args.report_name + ".md")
    for i, m in enumerate(chosen, 1):
        if m.id in equivalent:
            results.append(result_of(m, "equivalent", {}, [], None, 0, equivalent[m.id]))
            continue
        r = run_mutant(m, tree, build, harness, mode_list, args.all_modes, args.build_timeout,
                       device)
        results.append(r)
        ttk = f" in {r['time_to_kill']:.1f} s by {','.join(r['killed_by'])}" if r["killed_by"] else ""
        print(f"[{i}/{len(chosen)}] {m.id}: {r['status']}{ttk} (build {r['build_seconds']:.0f} s)",
              flush=True)
        info["wall_seconds"] = time.monotonic() - wall
        report.write_json(json_path, info, results)
    build.build(timeout=None)  # leave the scratch build unmutated (ccache makes this cheap)
    info["wall_seconds"] = time.monotonic() - wall
    report.write_json(json_path, info, results)
    with open(md_path, "w") as f:
        f.write(report.markdown(info, results))
    survivors = [r["id"] for r in results if r["status"] in ("survived", "timeout")]
    print(f"wrote {md_path} and {json_path}; {len(survivors)} survivor(s)"
          + "".join(f"\n  {s}" for s in survivors))
    return 1 if args.fail_on_survivor and survivors else 0


if __name__ == "__main__":
    sys.exit(main())
