#!/usr/bin/env python3
"""docs/mutation.md from one or more kill-matrix JSON files (tools/mutate/mutate.py output).

Several runs (say one per kernel file, or a before/after pair) merge by mutant id, a later file
winning, so a partial re-run updates the matrix. The per-mutant table is left out of the docs
page unless --full (it lives in build-mutate/*.md); survivors are always listed.

  python3 tools/mutate/summary.py build-mutate/nightly.json docs/mutation.md [--notes FILE]
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import equivalents  # noqa: E402
import report  # noqa: E402

INTRO = """How strong is each harness mode? `tools/mutate/mutate.py` plants one small bug at a time in a
scratch copy of the kernels (`optimized/` and `cuda/`), rebuilds incrementally and runs the
harness modes restricted to the mutated operator: `unit` (examples, nn and family path tests,
`tests/mutation_kills_test.cc`, optionally the robustness tests), `properties` (RapidCheck,
fixed seed), `golden` (replay), `sanitize` (the unit tests in an ASan+UBSan build with
libstdc++ assertions: overruns that change no output) and, optionally, `fuzz` (the family's
libFuzzer target). A mutant of `cuda/*.h` runs the same tests on the `cuda-host` backend, which
executes those `__host__ __device__` element functions on the CPU; a mutant of the device runner
(`cuda/device_runner.cu`: launches, copies) needs a GPU and is reported `no-device` without one.
Kinds: relational flips, off-by-one in loop bounds and clamps, swapped indices/strides, dropped
clamps, int32 narrowing of int64 intermediates, wrong rounding constants, dropped bias, swapped
error classes, and wrong rule ids (`wrong_rule`: a rule id that `infer/`, the validity checks
the optimized and CUDA backends share, raises is swapped for another of the same file; the only
kind applied to `infer/`). Equivalent mutants are listed with a reason in `tools/mutate/equivalent.txt`. CI
runs a fixed sample (`ci/mutation-sample.sh`); `ci/mutation-nightly.sh --jobs N` runs the
catalogue in N shards and rewrites this page. `ci/mutants.sh` draws mutants at random and
judges them by the main job's campaign alone (below).
"""


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("inputs", nargs="+", help="report JSON files, then the Markdown output")
    p.add_argument("--notes", help="Markdown inserted after the introduction (what was run)")
    p.add_argument("--full", action="store_true", help="keep the per-mutant table")
    p.add_argument("--parallel", action="store_true",
                   help="the runs were shards run at the same time: wall time is the longest")
    args = p.parse_args()
    *inputs, out = args.inputs
    merged, runs = {}, []
    for path in inputs:
        with open(path) as f:
            data = json.load(f)
        runs.append(data["run"])
        for r in data["mutants"]:
            merged[r["id"]] = r
    results = sorted(merged.values(), key=lambda r: (r["file"], r["line"], r["kind"], r["ordinal"]))
    # Mutants judged equivalent after the run (tools/mutate/equivalent.txt) leave the scores.
    equivalent = equivalents.load(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "equivalent.txt"))
    for r in results:
        if r["id"] in equivalent and r["status"] != "equivalent":
            if r["status"] == "killed":
                print(f"warning: {r['id']} is listed as equivalent but was killed", file=sys.stderr)
            r["observed"] = r["status"]
            r["status"] = "equivalent"
            r["reason"] = equivalent[r["id"]]
    info = dict(runs[-1])
    info["started"] = runs[0].get("started", "?")
    info["modes"] = list(dict.fromkeys(m for r in runs for m in r.get("modes", [])))
    info["all_modes"] = all(r.get("all_modes") for r in runs)
    walls = [r.get("wall_seconds", 0) for r in runs]
    info["wall_seconds"] = max(walls) if args.parallel else sum(walls)
    if len(runs) > 1:
        info["selection"] = f"{len(runs)} runs merged: " + "; ".join(r.get("selection", "?") for r in runs)
    text = report.markdown(info, results, title="Mutation testing of the kernels")
    head, _, rest = text.partition("\n\n")
    if not args.full:
        rest = rest.split("\n## Every mutant")[0].rstrip() + "\n"
    notes = ""
    if args.notes:
        with open(args.notes) as f:
            notes = f.read().rstrip() + "\n\n"
    with open(out, "w") as f:
        f.write(head + "\n\n" + INTRO + "\n" + notes + rest)
    print(f"wrote {out}: {len(results)} mutants")
    return 0


if __name__ == "__main__":
    sys.exit(main())
